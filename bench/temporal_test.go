package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/internal/pgtest"
	"github.com/harness-agent/harness/internal/temporaltest"
	"github.com/harness-agent/harness/internal/testkit"
	"github.com/harness-agent/harness/sdk/sdktest/fakedeepseek"
)

// BenchmarkTemporalScale is the scale figure of the Temporal engine: N
// sessions (BENCH_SCALE_SESSIONS, default 50) of T turns each
// (BENCH_SCALE_TURNS, default 10: T-1 read_file calls, then the answer)
// against the fake DeepSeek server, all started at once, run these ways:
//
//   - local: N `harness run` processes, the local engine, one SQLite store;
//   - temporal: N `harness run --engine temporal --detach` on a Temporal
//     dev server, served by W `harness worker` processes
//     (BENCH_SCALE_WORKERS, default 3), the same store;
//   - kill: the same as temporal, with one worker killed (kill -9 of its
//     process group, its plugins with it) once a third of the turns are
//     done; the others finish every session;
//   - postgres: the same as temporal on a PostgreSQL store, when
//     HARNESS_TEST_POSTGRES names a database (a schema of its own).
//
// A turn is one model request; its time is from the request to the
// session's next one, as the fake server sees them arrive: the answer
// streamed and committed, the tool call run, the next request built. The
// fake answers by the request's turn (its count of assistant messages),
// so a request sent twice gets the same answer and is counted: the kill
// run fails when a request the model had completed was sent again (a
// re-sent request must be the one its session had in flight at the kill).
// CPU is the processor time of each run's processes (the harness
// processes and their plugins, the workers, the Temporal server), per
// turn: it does not move with the machine's load as the times do.
//
// It needs the Temporal CLI ($HARNESS_TEMPORAL, as the end-to-end tests)
// and skips without it. bench/scale.sh runs it with the services of
// scripts/test.sh; alone (BENCH_SCALE_ONLY=NAME for one of the runs,
// BENCH_SCALE_HEARTBEAT for the engine's heartbeat, default 20s;
// BENCH_SCALE_DEBUG=1 logs each run's first session, event by event):
//
//	HARNESS_TEMPORAL=~/.cache/harness-test/temporal-bin/temporal \
//	  go test ./bench -run '^$' -bench TemporalScale -benchtime 1x -timeout 30m -v
func BenchmarkTemporalScale(b *testing.B) {
	dev := temporaltest.Start(b)
	sc := &scale{b: b, addr: dev.Addr, dev: dev, dir: b.TempDir(),
		sessions: envInt(b, "BENCH_SCALE_SESSIONS", 50), turns: envInt(b, "BENCH_SCALE_TURNS", 10),
		workers: envInt(b, "BENCH_SCALE_WORKERS", 3), heartbeat: os.Getenv("BENCH_SCALE_HEARTBEAT")}
	if sc.heartbeat == "" {
		sc.heartbeat = "20s" // the engine's default
	}
	sc.state = filepath.Join(sc.dir, "state")
	sc.model = newTurnModel(b, sc.turns)
	b.Logf("load average before: %s", loadAvg())

	only := os.Getenv("BENCH_SCALE_ONLY") // one of the runs, when set
	var local, temporal, kill, postgres *phaseResult
	runs := []struct {
		name string
		out  **phaseResult
	}{{"local", &local}, {"temporal", &temporal}, {"kill", &kill}}
	if os.Getenv(pgtest.Env) != "" {
		runs = append(runs, struct {
			name string
			out  **phaseResult
		}{"postgres", &postgres})
	} else {
		b.Logf("no PostgreSQL run: %s is not set (scripts/test.sh sets it for a throwaway cluster)", pgtest.Env)
	}
	for _, p := range runs {
		if only != "" && only != p.name {
			continue // left nil: neither shown nor reported
		}
		sc.store = filepath.Join(sc.state, session.StoreFile)
		if p.name == "postgres" {
			sc.store = pgtest.URL(b)
		}
		*p.out = sc.phase(p.name, p.name == "kill")
	}

	b.Logf("load average after: %s", loadAvg())
	b.Logf("%d sessions x %d turns, all started at once, %d workers, heartbeat %s, one SQLite store (the postgres run: one PostgreSQL store):", sc.sessions, sc.turns, sc.workers, sc.heartbeat)
	b.Logf("%-9s %8s %12s %8s %10s %10s %10s %11s %9s", "engine", "wall", "sessions/min", "turns/s", "turn p50", "turn p99", "start p50", "session p50", "CPU/turn")
	for _, p := range []*phaseResult{local, temporal, kill, postgres} {
		if p == nil {
			continue
		}
		b.Logf("%-9s %8s %12.1f %8.1f %10s %10s %10s %11s %9s", p.name, p.wall.Round(10*time.Millisecond), p.sessionsPerMin(), p.turnsPerSec(),
			ms(p.turn.pct(50)), ms(p.turn.pct(99)), ms(p.start.pct(50)), ms(p.session.pct(50)), ms(p.cpuPerTurn()))
	}
	// Only figures of runs that ran are shown and reported.
	for _, p := range []*phaseResult{temporal, kill} {
		if p != nil {
			b.Logf("(the Temporal server's part of CPU/turn, %s: %s)", p.name, ms(p.serverCPU/time.Duration(max(1, p.sessions*p.turns))))
		}
	}
	if local != nil {
		b.ReportMetric(local.sessionsPerMin(), "local-sessions/min")
		b.ReportMetric(float64(local.cpuPerTurn())/float64(time.Millisecond), "local-cpu-ms/turn")
	}
	if temporal != nil {
		b.ReportMetric(temporal.sessionsPerMin(), "temporal-sessions/min")
		b.ReportMetric(temporal.turnsPerSec(), "temporal-turns/s")
		b.ReportMetric(float64(temporal.cpuPerTurn())/float64(time.Millisecond), "temporal-cpu-ms/turn")
	}
	if local != nil && temporal != nil {
		b.Logf("overhead per turn, temporal - local: p50 %s, p99 %s", ms(temporal.turn.pct(50)-local.turn.pct(50)), ms(temporal.turn.pct(99)-local.turn.pct(99)))
		b.ReportMetric(float64(temporal.turn.pct(50)-local.turn.pct(50))/float64(time.Millisecond), "overhead-p50-ms")
		b.ReportMetric(float64(temporal.turn.pct(99)-local.turn.pct(99))/float64(time.Millisecond), "overhead-p99-ms")
	}
	if kill != nil {
		b.Logf("(the kill run's CPU misses the killed worker's plugins)")
		b.Logf("kill: %d model requests sent again (each the one its session had in flight at the kill), 0 completed ones; %d sessions stalled across the kill, the longest %s (the kill to its next request)",
			kill.resent, kill.stalled, ms(kill.recover))
		b.ReportMetric(float64(kill.recover)/float64(time.Millisecond), "kill-recover-ms")
		b.ReportMetric(float64(kill.resent), "kill-resent")
	}
}

type scale struct {
	b                        *testing.B
	addr, dir, state         string
	store                    string // the run's session store: a SQLite file or a PostgreSQL URL
	sessions, turns, workers int
	heartbeat                string
	model                    *turnModel
	dev                      *temporaltest.Dev

	mu  sync.Mutex
	cpu time.Duration // of the processes the current run started, once ended
}

// spent adds the processor time of an ended process (its own and that of
// the children it waited for: a run's or a worker's plugins).
func (sc *scale) spent(ps *os.ProcessState) {
	if ps == nil {
		return
	}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		sc.mu.Lock()
		sc.cpu += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		sc.mu.Unlock()
	}
}

type phaseResult struct {
	name                 string
	sessions, turns      int
	wall                 time.Duration
	turn, start, session durations
	// The kill run's: requests sent twice, sessions whose next request
	// came later than a heartbeat after the kill, the longest such wait.
	resent, stalled int
	recover         time.Duration
	// cpu is the processor time of the run's processes: the harness
	// processes, their plugins, the workers and the Temporal server (not
	// the fake model, which is the same for every run).
	cpu time.Duration
	// serverCPU is the Temporal server's part of cpu.
	serverCPU time.Duration
}

// cpuPerTurn is the processor time per turn.
func (p *phaseResult) cpuPerTurn() time.Duration {
	return p.cpu / time.Duration(max(1, p.sessions*p.turns))
}

func (p *phaseResult) sessionsPerMin() float64 {
	return float64(p.sessions) / p.wall.Minutes()
}

func (p *phaseResult) turnsPerSec() float64 {
	return float64(p.sessions*p.turns) / p.wall.Seconds()
}

// phase runs the sessions of one engine and measures them.
func (sc *scale) phase(name string, kill bool) *phaseResult {
	b := sc.b
	temporal := name != "local"
	queue := "scale-" + name
	sc.cpu = 0
	devCPU := sc.dev.CPU()
	var stopWorkers []func(signal syscall.Signal)
	var workerPIDs []int
	if temporal {
		for i := range sc.workers {
			stop, pid := sc.startWorker(fmt.Sprintf("%s-%d", name, i), queue)
			stopWorkers, workerPIDs = append(stopWorkers, stop), append(workerPIDs, pid)
		}
	}
	defer func() {
		for _, stop := range stopWorkers {
			stop(syscall.SIGTERM)
		}
	}()

	tags := make([]string, sc.sessions)
	dirs := make([]string, sc.sessions)
	for i := range sc.sessions {
		tags[i] = fmt.Sprintf("scale-%s-%03d", name, i)
		dirs[i] = filepath.Join(sc.dir, tags[i])
		engine := ""
		if temporal {
			engine = fmt.Sprintf("engine \"temporal\" {\n  address    = %q\n  task_queue = %q\n  heartbeat  = %q\n}\n", sc.addr, queue, sc.heartbeat)
		}
		writeBenchFile(b, filepath.Join(dirs[i], "agent.hcl"), scaleConfig(sc.model.URL, engine))
		writeBenchFile(b, filepath.Join(dirs[i], "notes.txt"), "hello from the notes\n")
	}

	begin := time.Now()
	launched := make([]time.Time, sc.sessions)
	ids := make([]string, sc.sessions)
	var wg sync.WaitGroup
	for i := range sc.sessions {
		wg.Go(func() {
			args := []string{"run", "--json", "--no-input", "agent.hcl", "Read the notes (" + tags[i] + ")"}
			if temporal {
				args = []string{"run", "--engine", "temporal", "--detach", "agent.hcl", "Read the notes (" + tags[i] + ")"}
			}
			launched[i] = time.Now()
			out, err := sc.harness(dirs[i], args...)
			if err != nil {
				b.Errorf("%s: harness %s: %v\n%s", tags[i], strings.Join(args, " "), err, out)
				return
			}
			ids[i] = sessionID(out, temporal)
		})
	}
	if kill {
		// A third of the turns done: kill -9 one worker with its plugins.
		sc.model.waitFor(b, "scale-"+name+"-", sc.sessions*sc.turns/3)
	}
	killedAt := time.Now()
	if kill {
		stopWorkers[0](syscall.SIGKILL)
		b.Logf("kill: worker %s-0 killed (kill -9 of its process group) after %s", name, killedAt.Sub(begin).Round(time.Millisecond))
	}
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}

	store, err := session.Open(sc.store)
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	res := &phaseResult{name: name, sessions: sc.sessions, turns: sc.turns}
	var last time.Time
	deadline := time.Now().Add(20 * time.Minute)
	for i, id := range ids {
		var info session.SessionInfo
		if !testkit.Eventually(time.Until(deadline), func() bool {
			if info, err = store.Session(context.Background(), id); err != nil {
				b.Fatalf("%s: session %q: %v", tags[i], id, err)
			}
			return !info.EndedAt.IsZero()
		}) {
			b.Fatalf("%s: session %s still running after 20 minutes", tags[i], id)
		}
		if info.Status != "completed" {
			b.Fatalf("%s: session %s ended %s, want completed", tags[i], id, info.Status)
		}
		last = latest(last, info.EndedAt)
		res.session = append(res.session, info.EndedAt.Sub(launched[i]))
	}
	res.wall = last.Sub(begin)
	// Every session ended: the workers stopped their plugins.
	for i, pid := range workerPIDs {
		if kill && i == 0 {
			continue // killed
		}
		var left []int
		if !testkit.Eventually(time.Minute, func() bool { left = children(pid); return len(left) == 0 }) {
			b.Errorf("worker %s-%d still runs %d processes (%v) a minute after its sessions ended: their plugins were not stopped", name, i, len(left), left)
		}
	}
	for _, stop := range stopWorkers {
		stop(syscall.SIGTERM)
	}
	res.serverCPU = sc.dev.CPU() - devCPU
	res.cpu = sc.cpu + res.serverCPU
	if os.Getenv("BENCH_SCALE_DEBUG") != "" {
		evs, _ := store.Events(context.Background(), ids[0], 0)
		for _, ev := range evs {
			b.Logf("%s %s %s %.600s", name, ev.Time.Format("15:04:05.000"), ev.Type, ev.Data)
		}
	}

	for i, tag := range tags {
		reqs := sc.model.of(tag)
		byTurn := map[int][]time.Time{}
		for _, r := range reqs {
			byTurn[r.turn] = append(byTurn[r.turn], r.at)
		}
		if len(byTurn) != sc.turns {
			b.Fatalf("%s: the model got requests for %d turns, want %d", tag, len(byTurn), sc.turns)
		}
		first := make([]time.Time, sc.turns) // each turn's first request
		for t := range sc.turns {
			first[t] = byTurn[t][0]
			if n := len(byTurn[t]); n > 1 {
				// Sent again: only the request in flight at the kill may be.
				inFlight := kill && first[t].Before(killedAt) && (t+1 == sc.turns || !byTurn[t+1][0].Before(killedAt))
				if !inFlight {
					b.Errorf("%s: turn %d's model request was sent %d times; only one in flight at a worker's death may be sent again", tag, t+1, n)
				}
				res.resent += n - 1
			}
		}
		res.start = append(res.start, first[0].Sub(launched[i]))
		for t := 1; t < sc.turns; t++ {
			res.turn = append(res.turn, first[t].Sub(first[t-1]))
		}
		if kill {
			// The session's wait across the kill: from the kill to its
			// first request after it.
			for _, r := range reqs {
				if r.at.After(killedAt) {
					if wait := r.at.Sub(killedAt); wait > res.recover {
						res.recover = wait
					}
					if hb, _ := time.ParseDuration(sc.heartbeat); r.at.Sub(killedAt) > hb/2 {
						res.stalled++
					}
					break
				}
			}
		}
	}
	return res
}

// startWorker starts `harness worker` in its own process group; stop
// signals the group and waits for the worker.
func (sc *scale) startWorker(name, queue string) (stop func(syscall.Signal), pid int) {
	b := sc.b
	cmd := exec.Command(harnessBin, "worker", "--temporal", sc.addr, "--task-queue", queue)
	cmd.Dir = sc.dir
	cmd.Env = sc.env()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	var once sync.Once
	stop = func(sig syscall.Signal) {
		once.Do(func() {
			_ = syscall.Kill(-cmd.Process.Pid, sig)
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				<-done
			}
			sc.spent(cmd.ProcessState)
			if s := strings.TrimSpace(out.String()); strings.Count(s, "\n") > 0 {
				b.Logf("worker %s:\n%s", name, s)
			}
		})
	}
	b.Cleanup(func() { stop(syscall.SIGKILL) })
	return stop, cmd.Process.Pid
}

// children returns the processes whose parent is pid (from /proc).
func children(pid int) []int {
	var out []int
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		child, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue
		}
		// The fields after the command name (in parentheses): state, ppid.
		f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out
}

func (sc *scale) env() []string {
	return append(os.Environ(), "HARNESS_STATE_DIR="+sc.state, "HARNESS_STORE="+sc.store, "TEST_DEEPSEEK_KEY=sk-bench")
}

func (sc *scale) harness(dir string, args ...string) (string, error) {
	cmd := exec.Command(harnessBin, args...)
	cmd.Dir = dir
	cmd.Env = sc.env()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	sc.spent(cmd.ProcessState)
	if err != nil {
		return stdout.String() + stderr.String(), err
	}
	return stdout.String(), nil
}

// sessionID reads the session id from a run's output: its first JSON
// event, or the --detach line "session ID runs on …".
func sessionID(out string, detached bool) string {
	if detached {
		if f := strings.Fields(strings.TrimPrefix(out, "session ")); len(f) > 0 {
			return f[0]
		}
		return ""
	}
	var ev struct{ Session string }
	line, _, _ := strings.Cut(out, "\n")
	_ = json.Unmarshal([]byte(line), &ev)
	return ev.Session
}

func scaleConfig(url, engine string) string {
	return fmt.Sprintf(`provider "deepseek" {
  api_key  = env("TEST_DEEPSEEK_KEY")
  base_url = %q
}

model "flash" {
  provider       = "deepseek"
  id             = "deepseek-v4-flash"
  context_window = 1000000
  thinking       = false
}

agent "coder" {
  model = "flash"
  tools = ["read_file"]
}
%s`, url, engine)
}

// turnModel is the model of the scale run: one fake DeepSeek server per
// turn (fakes[k] answers every session's request k+1: a read_file call,
// the last one the answer), behind a handler that picks the fake by the
// request's count of assistant messages and notes which session (the tag
// in its task) asked for which turn when.
type turnModel struct {
	URL   string
	fakes []*fakedeepseek.Server
	tag   *regexp.Regexp

	mu   sync.Mutex
	reqs []modelRequest
	more chan struct{} // closed and replaced at each request
}

type modelRequest struct {
	tag  string
	turn int
	at   time.Time
}

func newTurnModel(b *testing.B, turns int) *turnModel {
	m := &turnModel{tag: regexp.MustCompile(`scale-[a-z]+-\d+`), more: make(chan struct{})}
	for k := range turns {
		f := fakedeepseek.New(b)
		if k == turns-1 {
			f.Repeat(fakedeepseek.Scripted(fakedeepseek.Turn{Text: "The notes say hello."}))
		} else {
			f.Repeat(fakedeepseek.Scripted(fakedeepseek.Turn{ToolCalls: []fakedeepseek.ToolCall{
				{ID: "c" + strconv.Itoa(k+1), Name: "read_file", Arguments: `{"path":"notes.txt"}`}}}))
		}
		m.fakes = append(m.fakes, f)
	}
	srv := httptest.NewServer(http.HandlerFunc(m.serve))
	b.Cleanup(srv.Close)
	m.URL = srv.URL
	return m
}

func (m *turnModel) serve(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	raw, _ := io.ReadAll(r.Body)
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(raw, &body)
	turn, tag := 0, ""
	for _, msg := range body.Messages {
		switch msg.Role {
		case "assistant":
			turn++
		case "user":
			if s, ok := msg.Content.(string); ok && tag == "" {
				tag = m.tag.FindString(s)
			}
		}
	}
	m.mu.Lock()
	m.reqs = append(m.reqs, modelRequest{tag: tag, turn: turn, at: at})
	close(m.more)
	m.more = make(chan struct{})
	m.mu.Unlock()
	if turn >= len(m.fakes) {
		http.Error(w, "scale model: no turn "+strconv.Itoa(turn+1), http.StatusInternalServerError)
		return
	}
	req, err := http.NewRequestWithContext(r.Context(), r.Method, m.fakes[turn].URL+r.URL.Path, bytes.NewReader(raw))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	req.Header = r.Header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// of returns the requests of the session tagged tag, in arrival order.
func (m *turnModel) of(tag string) []modelRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []modelRequest
	for _, r := range m.reqs {
		if r.tag == tag {
			out = append(out, r)
		}
	}
	return out
}

// waitFor waits until n requests of sessions whose tag starts with prefix
// have arrived.
func (m *turnModel) waitFor(b *testing.B, prefix string, n int) {
	timeout := time.After(20 * time.Minute)
	for {
		m.mu.Lock()
		got := 0
		for _, r := range m.reqs {
			if strings.HasPrefix(r.tag, prefix) {
				got++
			}
		}
		more := m.more
		m.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-more:
		case <-timeout:
			b.Fatalf("only %d of %d model requests of %s* arrived in 20 minutes", got, n, prefix)
		}
	}
}

// durations are measured times; pct is a percentile of them.
type durations []time.Duration

func (d durations) pct(p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0fms", float64(d)/float64(time.Millisecond)) }

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func envInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}

func loadAvg() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	return strings.Join(strings.Fields(string(raw))[:3], " ")
}

func writeBenchFile(b *testing.B, path, body string) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		b.Fatal(err)
	}
}
