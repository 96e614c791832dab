package session

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/harness-agent/harness/internal/pgtest"
)

// The fleet test: 50 sessions run at once by 5 writer processes (this test
// binary re-executed as TestHelperFleet, 10 sessions each, one goroutine per
// session) on one PostgreSQL store, while the test process lists sessions
// and approves the actions they propose, two approvers racing for each.
// Nothing is lost (every session holds exactly its events, 1..N, in its
// writer's order), nothing deadlocks (every process ends), and every
// action is decided exactly once.
const (
	fleetEnvURL      = "HARNESS_SESSION_TEST_FLEET_URL"
	fleetEnvSessions = "HARNESS_SESSION_TEST_FLEET_SESSIONS"
	fleetProcesses   = 5
	fleetPerProcess  = 10
	fleetEvents      = 60 // per session
	fleetActionEvery = 15 // a session proposes an action every 15 events
)

func TestHelperFleet(t *testing.T) {
	url := os.Getenv(fleetEnvURL)
	if url == "" {
		t.Skip("a writer process of TestFleet")
	}
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "fleet writer:", err)
		os.Exit(3)
	}
	s, err := Open(url)
	if err != nil {
		fail(err)
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, fleetPerProcess)
	for _, id := range strings.Split(os.Getenv(fleetEnvSessions), ",") {
		wg.Go(func() {
			for n := 1; n <= fleetEvents; n++ {
				ev, err := s.Append(ctx, id, "test.tick", map[string]any{"n": n})
				if err != nil {
					errs <- err
					return
				}
				if ev.Seq != int64(n) {
					errs <- fmt.Errorf("session %s: appended seq %d, want %d", id, ev.Seq, n)
					return
				}
				if n%fleetActionEvery == 0 {
					if _, err := s.ProposeAction(ctx, Action{Session: id, CallID: "c" + strconv.Itoa(n), Tool: "terminal", Kind: "terminal", Summary: "step " + strconv.Itoa(n)}); err != nil {
						errs <- err
						return
					}
				}
			}
			if err := s.EndSession(ctx, id, "completed", 1); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		fail(err)
	}
	if err := s.Close(); err != nil {
		fail(err)
	}
	fmt.Println("fleet writer done")
}

func TestFleet(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	s, err := Open(url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()

	var procs []*exec.Cmd
	var all []string
	for p := range fleetProcesses {
		var ids []string
		for range fleetPerProcess {
			ids = append(ids, newSession(t, s).ID)
		}
		all = append(all, ids...)
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperFleet$", "-test.count=1")
		cmd.Env = append(os.Environ(), fleetEnvURL+"="+url, fleetEnvSessions+"="+strings.Join(ids, ","))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = &prefixWriter{t: t, prefix: fmt.Sprintf("writer %d: ", p)}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { _, _ = io.Copy(io.Discard, out) }()
		procs = append(procs, cmd)
	}

	// Readers: list, and approve every pending action twice at once.
	var won, lost atomic.Int64
	done := make(chan struct{})
	readers := make(chan error, 1)
	go func() {
		defer close(readers)
		approveAll := func() error {
			if _, err := s.ListSessions(ctx); err != nil {
				return err
			}
			pending, err := s.Actions(ctx, "", "pending")
			if err != nil {
				return err
			}
			var wg sync.WaitGroup
			errs := make(chan error, 2*len(pending))
			for _, a := range pending {
				for who := range 2 {
					wg.Go(func() {
						err := s.DecideAction(ctx, a.ID, "approved", "user", fmt.Sprintf("approver %d", who))
						switch {
						case err == nil:
							won.Add(1)
						case errors.Is(err, ErrAlreadyDecided):
							lost.Add(1)
						default:
							errs <- err
						}
					})
				}
			}
			wg.Wait()
			close(errs)
			return <-errs
		}
		for {
			select {
			case <-done:
				readers <- approveAll() // the actions proposed last
				return
			default:
			}
			if err := approveAll(); err != nil {
				readers <- err
				return
			}
		}
	}()
	for i, cmd := range procs {
		if err := cmd.Wait(); err != nil {
			t.Errorf("writer %d: %v", i, err)
		}
	}
	close(done)
	if err := <-readers; err != nil {
		t.Fatal(err)
	}

	for _, id := range all {
		evs, err := s.Events(ctx, id, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != fleetEvents {
			t.Fatalf("session %s holds %d events, want %d", id, len(evs), fleetEvents)
		}
		for i, ev := range evs {
			var d struct{ N int }
			if err := json.Unmarshal(ev.Data, &d); err != nil || ev.Seq != int64(i+1) || d.N != i+1 {
				t.Fatalf("session %s: event %d is seq %d with n %d (%v): want seq and n %d", id, i, ev.Seq, d.N, err, i+1)
			}
		}
	}
	acts, err := s.Actions(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	want := fleetProcesses * fleetPerProcess * (fleetEvents / fleetActionEvery)
	if len(acts) != want {
		t.Errorf("%d actions, want %d", len(acts), want)
	}
	for _, a := range acts {
		if a.Status != "approved" {
			t.Errorf("action %s is %s after the readers' last sweep", a.ID, a.Status)
		}
	}
	if won.Load() != int64(want) {
		t.Errorf("%d decisions won for %d actions (%d told already decided): want exactly one each", won.Load(), want, lost.Load())
	}
	list, err := s.ListSessions(ctx)
	if err != nil || len(list) != len(all) {
		t.Fatalf("ListSessions: %d sessions, %v; want %d", len(list), err, len(all))
	}
	for _, info := range list {
		if info.Status != "completed" {
			t.Errorf("session %s is %s, want completed", info.ID, info.Status)
		}
	}
}

// prefixWriter logs what a child process writes to stderr.
type prefixWriter struct {
	t      *testing.T
	prefix string
	mu     sync.Mutex
}

func (w *prefixWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	sc := bufio.NewScanner(strings.NewReader(string(p)))
	for sc.Scan() {
		w.t.Log(w.prefix + sc.Text())
	}
	return len(p), nil
}
