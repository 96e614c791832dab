package tools_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/harness-agent/harness/core/pluginhost"
	"github.com/harness-agent/harness/core/tools"
	"github.com/harness-agent/harness/internal/testkit"
	"github.com/harness-agent/harness/sdk"
)

// builtinPlugin is a built-in tool plugin's standalone binary, built once
// per test process.
func builtinPlugin(t *testing.T, name string) string {
	t.Helper()
	return testkit.Build(t, "../../plugins/"+name+"/cmd/harness-tool-"+name)
}

// pluginExecutor serves the real plugin name as a subprocess, configured
// with workspace ws, through an executor with the registry's default cap.
func pluginExecutor(t *testing.T, name, toolName, ws string) *tools.Executor {
	t.Helper()
	path := builtinPlugin(t, name)
	sum, err := pluginhost.FileSHA256(path)
	if err != nil {
		t.Fatal(err)
	}
	host, err := pluginhost.New(pluginhost.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(host.Close)
	if err := host.Register(pluginhost.Spec{Name: name, Kind: sdk.PluginTool, Path: path, SHA256: sum}); err != nil {
		t.Fatal(err)
	}
	h, err := host.Tool(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Configure(context.Background(), sdk.PluginConfig{Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	return newExecutor(t, newRegistry(t, tool(toolName, h)), tools.Options{})
}

var continueRE = regexp.MustCompile(`(?m)^… showed lines (\d+)-(\d+) of (\d+)[^;]*; use offset=(\d+) to continue\.$`)

// read_file pages a file of any size by whole lines: following the
// offsets it returns until the end gives back the file byte for byte, no
// line skipped, and the registry's net never cuts a page.
func TestReadFilePagesThroughRegistry(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	sizes := map[string]int{"10k.txt": 10 << 10, "260k.txt": 260 << 10, "5m.txt": 5 << 20}
	for name, size := range sizes {
		var b strings.Builder
		for i := 1; b.Len() < size; i++ {
			// Lines of varying length, up to about 150 bytes.
			fmt.Fprintf(&b, "%d %s\n", i, strings.Repeat("abcdefghij", i%15))
		}
		if err := os.WriteFile(filepath.Join(ws, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ex := pluginExecutor(t, "readfile", "read_file", ws)
	for name := range sizes {
		want, err := os.ReadFile(filepath.Join(ws, name))
		if err != nil {
			t.Fatal(err)
		}
		var got strings.Builder
		next, pages := 1, 0
		for {
			pages++
			o := ex.Run(context.Background(), call(fmt.Sprint(pages), "read_file", fmt.Sprintf(`{"path":%q,"offset":%d}`, name, next)))
			if o.Result.Err != nil {
				t.Fatalf("%s page %d: %v", name, pages, o.Result.Err)
			}
			content := o.Result.Content
			if strings.Contains(content, "the harness cut") {
				t.Fatalf("%s page %d: the registry cut a read_file page", name, pages)
			}
			body, note, found := strings.Cut(content, "\n\n")
			if found {
				body += "\n" // the last line's own newline
			}
			first, last := 0, 0
			for l := range strings.Lines(body) {
				num, text, ok := strings.Cut(l, "\t")
				n, err := strconv.Atoi(strings.TrimSpace(num))
				if !ok || err != nil {
					t.Fatalf("%s page %d: not a numbered line: %q", name, pages, l)
				}
				if first == 0 {
					first = n
				}
				if n != next+(n-first) || (last != 0 && n != last+1) {
					t.Fatalf("%s page %d: line %d after %d", name, pages, n, last)
				}
				last = n
				got.WriteString(text)
			}
			if first != next {
				t.Fatalf("%s page %d starts at line %d, asked for %d", name, pages, first, next)
			}
			view := o.Result.Presentation.(sdk.FileView)
			if view.StartLine != first || view.EndLine != last {
				t.Fatalf("%s page %d: card says lines %d-%d, content has %d-%d", name, pages, view.StartLine, view.EndLine, first, last)
			}
			m := continueRE.FindStringSubmatch(note)
			if m == nil {
				if note != "" {
					t.Fatalf("%s page %d: unexpected note %q", name, pages, note)
				}
				break
			}
			if m[1] != strconv.Itoa(first) || m[2] != strconv.Itoa(last) || m[4] != strconv.Itoa(last+1) {
				t.Fatalf("%s page %d: note %q for lines %d-%d", name, pages, note, first, last)
			}
			next = last + 1
		}
		if got.String() != string(want) {
			t.Fatalf("%s: %d pages give %d bytes that differ from the file's %d", name, pages, got.Len(), len(want))
		}
		t.Logf("%s: %d bytes in %d pages", name, len(want), pages)
	}
}

// 1.29 MB of terminal output through the real terminal plugin and the
// registry: the model gets head and tail with the true omitted size, the
// registry's net does not hide the terminal's own marker, and the card
// shows what the model got.
func TestTerminalOutputAccountThroughRegistry(t *testing.T) {
	t.Parallel()
	ex := pluginExecutor(t, "terminal", "terminal", t.TempDir())
	o := ex.Run(context.Background(), call("1", "terminal", `{"command":"seq 1 200000"}`))
	if o.Result.Err != nil {
		t.Fatal(o.Result.Err)
	}
	m := regexp.MustCompile(`(?m)^\[… (\d+) bytes \((\d+) lines\) omitted …\]$`).FindStringSubmatch(o.Result.Content)
	if m == nil || strings.Contains(o.Result.Content, "the harness cut") {
		t.Fatalf("no terminal marker, or the registry cut: %.300q", o.Result.Content)
	}
	var all strings.Builder
	for i := 1; i <= 200_000; i++ {
		fmt.Fprintf(&all, "%d\n", i)
	}
	head, rest, _ := strings.Cut(o.Result.Content, m[0]+"\n")
	tail := strings.TrimSuffix(rest, "exit code: 0")
	omitted := all.Len() - len(head) - len(tail)
	lines := strings.Count(all.String()[len(head):all.Len()-len(tail)], "\n")
	if !strings.HasPrefix(all.String(), head) || !strings.HasSuffix(all.String(), tail) ||
		m[1] != strconv.Itoa(omitted) || m[2] != strconv.Itoa(lines) {
		t.Fatalf("marker %q; %d bytes, %d lines were omitted", m[0], omitted, lines)
	}
	if view := o.Result.Presentation.(sdk.TerminalView); !strings.HasPrefix(o.Result.Content, view.Output) {
		t.Errorf("the card's output is not what the model got")
	}
}
