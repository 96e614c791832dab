package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/tools"
	"github.com/harness-agent/harness/sdk"
)

// A call that streams megabytes of output records at most its budget of
// tool.progress: the head as it comes, then a note with the exact number
// of bytes not kept, then the newest tail. The model's result is the
// tool's own and is not affected.
func TestProgressStoredWithinBudget(t *testing.T) {
	t.Parallel()
	var all strings.Builder
	for i := 0; all.Len() < 5<<20; i++ {
		fmt.Fprintf(&all, "line %d é\n", i) // a two-byte rune, so that cuts must respect runes
	}
	out := all.String()
	src := sourceFunc(func(_ context.Context, _ sdk.Call, progress sdk.Progress) (sdk.Result, error) {
		for rest := out; rest != ""; {
			n := min(len(rest), 32<<10)
			if n < len(rest) {
				n = strings.LastIndexByte(rest[:n], '\n') + 1 // chunks of whole lines: JSON would mend a split rune
			}
			stream := "stdout"
			if len(rest)%3 == 0 {
				stream = "stderr"
			}
			progress(stream, rest[:n])
			rest = rest[n:]
		}
		return sdk.Result{Content: "done"}, nil
	})
	for _, budget := range []int64{64 << 10, 1 << 20} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			t.Parallel()
			rec := &memRecorder{}
			ex := newExecutor(t, newRegistry(t, tool("loud", src)), tools.Options{Recorder: rec, ProgressStoreBytes: budget})
			if o := ex.Run(context.Background(), call("c", "loud", `{}`)); o.Result.Content != "done" {
				t.Fatalf("result %q", o.Result.Content)
			}
			var stored strings.Builder
			for _, raw := range rec.ofType(event.TypeToolProgress) {
				var ev event.ToolProgress
				if err := json.Unmarshal(raw, &ev); err != nil {
					t.Fatal(err)
				}
				stored.WriteString(ev.Text)
			}
			m := regexp.MustCompile(`\n\[… (\d+) bytes of output not kept in the session store \(permissions.terminal_store_bytes\) …\]\n`).FindStringSubmatchIndex(stored.String())
			if m == nil {
				t.Fatalf("no note in %d stored bytes", stored.Len())
			}
			s := stored.String()
			head, tail := s[:m[0]], s[m[1]:]
			dropped, _ := strconv.Atoi(s[m[2]:m[3]])
			if !strings.HasPrefix(out, head) || !strings.HasSuffix(out, tail) || len(head)+dropped+len(tail) != len(out) {
				t.Errorf("head %d + dropped %d + tail %d bytes != %d, or not the output's own bytes", len(head), dropped, len(tail), len(out))
			}
			if int64(len(head)+len(tail)) > budget {
				t.Errorf("stored %d bytes of output for a budget of %d", len(head)+len(tail), budget)
			}
		})
	}
}

// A budget of none records no progress; a small output is recorded whole.
func TestProgressBudgetEdges(t *testing.T) {
	t.Parallel()
	src := sourceFunc(func(_ context.Context, _ sdk.Call, progress sdk.Progress) (sdk.Result, error) {
		progress("stdout", "hello\n")
		return sdk.Result{Content: "ok"}, nil
	})
	for budget, want := range map[int64]int{-1: 0, 0: 1, 64: 1, 10: 2} {
		rec := &memRecorder{}
		ex := newExecutor(t, newRegistry(t, tool("t", src)), tools.Options{Recorder: rec, ProgressStoreBytes: budget})
		ex.Run(context.Background(), call("c", "t", `{}`))
		if got := len(rec.ofType(event.TypeToolProgress)); got != want {
			t.Errorf("budget %d: %d progress events, want %d", budget, got, want)
		}
	}
}
