package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const loudConfig = scriptedModel + `
agent "loud" {
  model = "scripted"
  tools = ["terminal"]
  permissions {
    terminal             = "allow"
    sandbox              = "off"
    terminal_store_bytes = 65536
  }
}
`

const loudScript = `turn {
  text = "Printing a lot."
  tool_call "terminal" {
    arguments = { command = "head -c 60000000 /dev/zero | tr '\\0' 'a' | fold -w 100" }
  }
}
turn {
  text = "done"
}
`

// 60 MB of terminal output leaves a store of a few hundred KiB: the
// model's capped result plus a bounded head and tail of tool.progress, with
// a note saying exactly how much was not kept.
func TestTerminalOutputInTheStoreIsBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agent.hcl"), loudConfig)
	writeFile(t, filepath.Join(dir, "turns.hcl"), loudScript)
	r := harness(t, dir, nil, "run", "--json", "--no-input", "agent.hcl", "go")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	var progress strings.Builder
	for _, ev := range parseEvents(t, r.stdout) {
		if ev.Type == "tool.progress" {
			var d struct{ Text string }
			if err := json.Unmarshal(ev.Data, &d); err != nil {
				t.Fatal(err)
			}
			progress.WriteString(d.Text)
		}
	}
	note := regexp.MustCompile(`\[… (\d+) bytes of output not kept in the session store`).FindStringSubmatch(progress.String())
	const total = 60_000_000 + 599_999 // fold breaks the line every 100 bytes
	if note == nil || progress.Len() > 65536+256 || note[1] != strconv.Itoa(total-(progress.Len()-len(noteLine(progress.String())))) {
		t.Errorf("%d bytes of progress, note %v", progress.Len(), note)
	}
	var size int64
	for _, name := range []string{"harness.db", "harness.db-wal"} {
		if fi, err := os.Stat(filepath.Join(stateDir(t), name)); err == nil {
			size += fi.Size()
		}
	}
	if size == 0 || size > 8<<20 {
		t.Errorf("the store holds %d bytes after 60 MB of output", size)
	}
	t.Logf("store: %d KiB after 60 MB of terminal output", size>>10)
}

func noteLine(s string) string {
	return regexp.MustCompile(`\n\[… \d+ bytes of output not kept in the session store \(permissions.terminal_store_bytes\) …\]\n`).FindString(s)
}
