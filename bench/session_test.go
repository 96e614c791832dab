package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harness-agent/harness/sdk/sdktest/fakedeepseek"
)

// BenchmarkSession runs a whole agent session as a user runs it, one
// process start per session, against the fake DeepSeek server answering
// with fakedeepseek.ReadSession: TURNS-1 reads of a file, then an answer.
// Each iteration runs harness and then, when CRUSH_BIN names a Crush
// binary, `crush run` on the same script against the same server, so a
// busy machine slows both alike. Per session it measures:
//
//   - wall: from the start of the process to its exit;
//   - cpu: user + system time of the process and of every process it
//     reaped (harness's plugin processes), from wait4's rusage;
//   - last-turn: the client's own time at the last turn, as the server
//     sees it: from when the fake began writing the answer that asked for
//     the last read (written within microseconds) to the arrival of the
//     request carrying its result (reading the stream, the tool call,
//     every commit, building and sending the request). The stamp is taken
//     before the write: on 2 cores the fake's process may not run again
//     until the client's next request is in.
//
// Both clients keep one store across iterations, as a user's does.
func BenchmarkSession(b *testing.B) {
	for _, turns := range []int{2, 100} {
		b.Run(fmt.Sprintf("turns=%d", turns), func(b *testing.B) { benchSession(b, turns) })
	}
}

// client is one agent program under measurement.
type client struct {
	name string
	dir  string
	env  []string
	args []string
	bin  string

	wall, cpu, last timings
}

func benchSession(b *testing.B, turns int) {
	fake := fakedeepseek.New(b)
	file := "notes.md"
	if turns > 2 {
		file = "notes-%d.md"
	}
	fake.Script(fakedeepseek.ReadSession(turns, file))
	notes := "# Notes\n\n- TODO: the parser\n- TODO: the docs\n"
	workspace := func(name string) string {
		dir := filepath.Join(b.TempDir(), name)
		must(b, os.MkdirAll(dir, 0o755))
		for k := 1; k < turns; k++ {
			p := file
			if strings.Contains(file, "%d") {
				p = fmt.Sprintf(file, k)
			}
			must(b, os.WriteFile(filepath.Join(dir, p), []byte(notes), 0o644))
		}
		return dir
	}
	task := "Summarize the notes"

	h := &client{name: "harness", bin: harnessBin, dir: workspace("harness"),
		args: []string{"run", "--no-input", "agent.hcl", task}}
	h.env = append(os.Environ(), "HARNESS_STATE_DIR="+filepath.Join(h.dir, "..", "state"), "DEEPSEEK_API_KEY=sk-bench")
	must(b, os.WriteFile(filepath.Join(h.dir, "agent.hcl"), []byte(harnessConfig(fake.URL, turns)), 0o644))
	clients := []*client{h}
	if bin := os.Getenv("CRUSH_BIN"); bin != "" {
		c := &client{name: "crush", bin: bin, dir: workspace("crush"), args: []string{"run", "--quiet", task}}
		home := filepath.Join(c.dir, "..", "home")
		must(b, os.MkdirAll(home, 0o755))
		c.env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
			"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"), "XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
			"CRUSH_DISABLE_METRICS=1", "DO_NOT_TRACK=1", "DEEPSEEK_API_KEY=sk-bench")
		must(b, os.WriteFile(filepath.Join(c.dir, "crush.json"), crushConfig(b, fake.URL), 0o644))
		clients = append(clients, c)
	}
	// One session of each first: stores created, files in the page cache.
	for _, c := range clients {
		c.session(b, fake, turns)
	}
	for _, c := range clients {
		c.wall, c.cpu, c.last = nil, nil, nil
	}
	for range b.N {
		for _, c := range clients {
			c.session(b, fake, turns)
		}
	}
	for _, c := range clients {
		b.ReportMetric(float64(c.wall.p50())/1e6, c.name+"-wall-p50-ms")
		b.ReportMetric(float64(c.cpu.p50())/1e6, c.name+"-cpu-p50-ms")
		if turns > 2 {
			b.ReportMetric(float64(c.last.p50())/1e3, c.name+"-last-turn-p50-us")
		}
	}
}

// session runs one session of c and records its figures.
func (c *client) session(b *testing.B, fake *fakedeepseek.Server, turns int) {
	b.Helper()
	before := len(fake.Requests())
	cmd := exec.Command(c.bin, c.args...)
	cmd.Dir, cmd.Env = c.dir, c.env
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		b.Fatalf("%s: %v\n%s", c.name, err, out.String())
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	// The requests of this session that offered the read tool, by turn.
	var asked, answered time.Time
	reads := 0
	for _, r := range fake.Requests()[before:] {
		if _, ok := r.Body["tools"]; !ok {
			continue // Crush's title request
		}
		switch fakedeepseek.ToolResults(r) {
		case turns - 2:
			asked = r.Answered
		case turns - 1:
			answered = r.Received
		}
		reads++
	}
	if reads != turns || asked.IsZero() || answered.IsZero() {
		b.Fatalf("%s: %d requests with tools, want %d (a session of %d turns)\n%s", c.name, reads, turns, turns, out.String())
	}
	c.wall, c.cpu = append(c.wall, wall), append(c.cpu, cpu)
	c.last = append(c.last, answered.Sub(asked))
}

func harnessConfig(url string, turns int) string {
	return fmt.Sprintf(`provider "deepseek" {
  api_key  = env("DEEPSEEK_API_KEY")
  base_url = %q
}

model "chat" {
  provider       = "deepseek"
  id             = "deepseek-chat"
  context_window = 128000
  thinking       = false
}

agent "reader" {
  model     = "chat"
  tools     = ["read_file"]
  max_turns = %d
}
`, url, turns+10)
}

// crushConfig is a crush.json with one OpenAI-compatible provider, the
// fake, as its large and small model, and nothing Crush would otherwise
// fetch or start (provider list updates, model discovery, metrics, LSPs).
func crushConfig(b *testing.B, url string) []byte {
	model := map[string]any{"id": "deepseek-chat", "name": "DeepSeek Chat", "context_window": 128000,
		"default_max_tokens": 8192, "cost_per_1m_in": 0.27, "cost_per_1m_out": 1.1}
	cfg := map[string]any{
		"$schema": "https://charm.land/crush.json",
		"providers": map[string]any{"fake": map[string]any{"type": "openai-compat", "base_url": url,
			"api_key": "$DEEPSEEK_API_KEY", "discover_models": false, "models": []any{model}}},
		"models": map[string]any{"large": map[string]any{"model": "deepseek-chat", "provider": "fake"},
			"small": map[string]any{"model": "deepseek-chat", "provider": "fake"}},
		"options": map[string]any{"disable_provider_auto_update": true, "disable_default_providers": true,
			"disable_metrics": true, "auto_lsp": false},
	}
	raw, err := json.MarshalIndent(cfg, "", "  ")
	must(b, err)
	return raw
}

func must(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}
