package session

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/harness-agent/harness/internal/pgtest"
)

// proxy forwards TCP connections to the PostgreSQL server of a test; cut
// closes every connection and refuses new ones: the database becomes
// unreachable, as when a network drops or the server's machine dies.
type proxy struct {
	ln       net.Listener
	upstream func() (net.Conn, error)
	mu       sync.Mutex
	conns    []net.Conn
	wg       sync.WaitGroup
}

func startProxy(t *testing.T, base string) (*proxy, string) {
	t.Helper()
	cfg, err := pgx.ParseConfig(base)
	if err != nil {
		t.Fatal(err)
	}
	network, addr := "tcp", net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))
	if strings.HasPrefix(cfg.Host, "/") {
		network, addr = "unix", filepath.Join(cfg.Host, fmt.Sprintf(".s.PGSQL.%d", cfg.Port))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, upstream: func() (net.Conn, error) { return net.Dial(network, addr) }}
	p.wg.Go(p.serve)
	t.Cleanup(p.cut)
	u := url.URL{Scheme: "postgres", Host: ln.Addr().String(), Path: "/" + cfg.Database}
	u.User = url.User(cfg.User)
	if cfg.Password != "" {
		u.User = url.UserPassword(cfg.User, cfg.Password)
	}
	q := url.Values{"sslmode": {"disable"}}
	if sp := cfg.RuntimeParams["search_path"]; sp != "" {
		q.Set("search_path", sp)
	}
	u.RawQuery = q.Encode()
	return p, u.String()
}

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		up, err := p.upstream()
		if err != nil {
			_ = c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, up)
		p.mu.Unlock()
		p.wg.Go(func() { _, _ = io.Copy(up, c); _ = up.Close() })
		p.wg.Go(func() { _, _ = io.Copy(c, up); _ = c.Close() })
	}
}

func (p *proxy) cut() {
	_ = p.ln.Close()
	p.mu.Lock()
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.conns = nil
	p.mu.Unlock()
	p.wg.Wait()
}

// The database becomes unreachable in the middle of a run (the writer
// process appends events through a proxy that is cut): the writer stops
// with an error that names the store (no password) and says the server is
// unreachable, and every event it printed as committed is in the store.
func TestPostgresUnreachableMidRun(t *testing.T) {
	t.Parallel()
	base := pgtest.URL(t)
	ctx := context.Background()
	s, err := Open(base)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	info := newSession(t, s)

	p, viaProxy := startProxy(t, base)
	printed, cmd, stderr := runWriter(t, viaProxy, info.ID, 200, func(*exec.Cmd) error { p.cut(); return nil })
	if cmd.ProcessState.ExitCode() != 3 {
		t.Fatalf("writer: %s, want exit 3 (a store error)\n%s", cmd.ProcessState, stderr)
	}
	for _, want := range []string{"session store postgres://", "append test.tick event", "the database server is unreachable", "--resume"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the writer's error lacks %q:\n%s", want, stderr)
		}
	}
	evs, err := s.Events(ctx, info.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) < len(printed) {
		t.Fatalf("the writer printed %d events as committed, the store holds %d", len(printed), len(evs))
	}
	for i, ev := range evs {
		if ev.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d: not gap-free", i, ev.Seq)
		}
	}
	t.Logf("cut after %d printed lines; %d events stored", len(printed), len(evs))
}
