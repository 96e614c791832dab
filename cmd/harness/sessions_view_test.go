package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/harness-agent/harness/internal/browsertest"
)

// The quickstart, run by the real binary, viewed in a real browser: one
// card per tool call, one chart point per model request's usage.
func TestSessionsViewShowsTheQuickstartInABrowser(t *testing.T) {
	dir := quickstart(t)
	r := harness(t, dir, nil, "run", "--json", "--no-input", "agent.hcl", "Summarize the open TODOs")
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	evs := parseEvents(t, r.stdout)
	counts := types(evs)
	id := evs[0].Session
	page := filepath.Join(t.TempDir(), "quickstart.html")
	v := harness(t, filepath.Join(dir, "workspace"), nil, "sessions", "view", id, "-o", page)
	if v.code != 0 || !strings.Contains(v.stderr, page) {
		t.Fatalf("sessions view: exit %d\n%s", v.code, v.stderr)
	}

	tab := browsertest.New(t, time.Minute)
	if err := chromedp.Do(tab, chromedp.Navigate(browsertest.FileURL(t, page)), chromedp.WaitReady(`html[data-ready="1"]`)); err != nil {
		t.Fatal(err)
	}
	count := func(sel string) int {
		n, err := chromedp.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll(`+"`"+sel+"`"+`).length`))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for sel, want := range map[string]int{
		"#timeline .card":             counts["tool.call"],
		"#chart .pt":                  counts["llm.usage"],
		"#timeline .t-action-decided": counts["action.decided"],
		"#timeline .t-tool-result":    counts["tool.result"],
		"#timeline .v-diff":           2, // write_file and edit_file
		"#timeline .v-terminal":       1,
		"#timeline .v-search":         1,
		"#timeline .v-file":           1,
		"#timeline .t-session-ended":  1,
	} {
		if got := count(sel); got != want || want == 0 {
			t.Errorf("%s: %d, want %d", sel, got, want)
		}
	}
	text, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.body.textContent`))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Summarize the open TODOs", `by policy · rule deny_commands "rm *"`, "$ wc -l out/summary.md", "+# Open TODOs", "completed"} {
		if !strings.Contains(text, s) {
			t.Errorf("the page does not show %q", s)
		}
	}
	// Off-screen parts of the timeline are laid out only when scrolled to;
	// the whole-page screenshot needs them all.
	if err := chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](`for (const e of document.querySelectorAll(".turn, .timeline > .ev")) e.style.contentVisibility = "visible"`)); err != nil {
		t.Fatal(err)
	}
	browsertest.Screenshot(t, tab, "quickstart.png")
}

func TestSessionsViewUsageErrors(t *testing.T) {
	t.Parallel()
	dir := quickstart(t)
	if r := harness(t, dir, nil, "run", "--no-input", "agent.hcl", "Summarize the open TODOs"); r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	ws := filepath.Join(dir, "workspace")
	for _, args := range [][]string{
		{"sessions", "view"},
		{"sessions", "view", "s-nosuchsession"},
		{"sessions", "view", "s-", "-o", "-", "--open"},
	} {
		if r := harness(t, ws, nil, args...); r.code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, r.code, r.stderr)
		}
	}
	// -o - writes the page to stdout, and nothing else.
	r := harness(t, ws, nil, "sessions", "view", "s-", "-o", "-")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "<!DOCTYPE html>") || !strings.HasSuffix(r.stdout, "</html>\n") {
		t.Fatalf("view -o -: exit %d, stdout starts %.40q\n%s", r.code, r.stdout, r.stderr)
	}
	entries, err := os.ReadDir(ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".html") {
			t.Errorf("view -o - left %s behind", e.Name())
		}
	}
}
