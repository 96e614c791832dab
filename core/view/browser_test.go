package view

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/harness-agent/harness/internal/browsertest"
)

// writePage renders r into a file of t's temporary folder.
func writePage(t testing.TB, r *recording) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "session.html")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := Render(f, r.info, r.events); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func open(t testing.TB, tab context.Context, url string) {
	t.Helper()
	if err := chromedp.Do(tab, chromedp.Navigate(url), chromedp.WaitReady(`html[data-ready="1"]`)); err != nil {
		t.Fatalf("load %s: %v", url, err)
	}
}

func eval[T any](t testing.TB, tab context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(tab, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

func TestBrowserShowsToolOutputAsTextAndRunsNoneOfIt(t *testing.T) {
	tab := browsertest.New(t, time.Minute)
	open(t, tab, browsertest.FileURL(t, writePage(t, hostile())))

	if got := eval[string](t, tab, `typeof window.__xss`); got != "undefined" {
		t.Fatalf("markup from the session ran: window.__xss is %s", got)
	}
	if n := eval[int](t, tab, `document.querySelectorAll("img, iframe, object, embed").length`); n != 0 {
		t.Errorf("%d elements made from session markup", n)
	}
	if n := eval[int](t, tab, `document.scripts.length`); n != 2 {
		t.Errorf("%d script elements, want the page's 2", n)
	}
	shown := eval[string](t, tab, `document.getElementById("timeline").innerText`)
	for _, s := range []string{"shown " + xssScript + xssImg + xssBreak, "Task " + xssScript} {
		if !strings.Contains(shown, s) {
			t.Errorf("the page does not show %q literally", s)
		}
	}
	// What the model was given sits in a collapsed <details>: there, but folded.
	if all := eval[string](t, tab, `document.getElementById("timeline").textContent`); !strings.Contains(all, "tool output "+xssScript+xssImg) {
		t.Errorf("the page does not carry the tool output literally")
	}
	if got := eval[string](t, tab, `document.title`); !strings.Contains(got, xssScript) {
		t.Errorf("title %q does not carry the agent name literally", got)
	}
}

func TestBrowserFilterHidesATypeAndDeepLinksFindTheEvent(t *testing.T) {
	tab := browsertest.New(t, time.Minute)
	r := synthetic(120)
	var resultSeq, chunkSeq int64
	for _, ev := range r.events {
		if ev.Type == "tool.result" && resultSeq == 0 {
			resultSeq = ev.Seq
		}
		if ev.Type == "assistant.chunk" && chunkSeq == 0 {
			chunkSeq = ev.Seq
		}
	}
	url := browsertest.FileURL(t, writePage(t, r))
	open(t, tab, url+"#seq-"+itoa(resultSeq))
	if got := eval[string](t, tab, `document.querySelector(".target").id`); got != "seq-"+itoa(resultSeq) {
		t.Errorf("#seq-%d marks %s", resultSeq, got)
	}
	// A chunk is folded into its message: its link finds the event before it.
	if err := chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](`location.hash = "seq-`+itoa(chunkSeq)+`"`),
		chromedp.WaitReady(`#seq-`+itoa(chunkSeq-1)+`.target`)); err != nil {
		t.Fatal(err)
	}

	visible := `(sel) => [...document.querySelectorAll(sel)].filter(e => e.offsetParent !== null).length`
	count := func(sel string) int { return eval[int](t, tab, "("+visible+")("+quote(sel)+")") }
	cards, messages := count(".card"), count(".t-assistant-message")
	if cards == 0 || messages == 0 {
		t.Fatalf("%d cards, %d messages shown", cards, messages)
	}
	toggle := chromedp.Click(`#filter input[value="tool.call"]`)
	if err := chromedp.Do(tab, toggle); err != nil {
		t.Fatal(err)
	}
	if n := count(".card"); n != 0 {
		t.Errorf("%d tool call cards still shown after unticking tool.call", n)
	}
	if n := count(".t-assistant-message"); n != messages {
		t.Errorf("%d messages shown after hiding tool calls, want %d", n, messages)
	}
	if err := chromedp.Do(tab, toggle); err != nil {
		t.Fatal(err)
	}
	if n := count(".card"); n != cards {
		t.Errorf("%d cards after ticking tool.call again, want %d", n, cards)
	}
}

// A 5,000-event session is drawn in one pass; the time it takes is logged
// (and measured by BenchmarkBrowserRender5000), never asserted.
func TestBrowserRenders5000Events(t *testing.T) {
	tab := browsertest.New(t, 2*time.Minute)
	r := synthetic(5000)
	shown, usage := 0, 0
	for _, ev := range r.events {
		if ev.Type != "assistant.chunk" {
			shown++
		}
		if ev.Type == "llm.usage" {
			usage++
		}
	}
	url := browsertest.FileURL(t, writePage(t, r))
	start := time.Now()
	open(t, tab, url)
	took := time.Since(start)
	if n := eval[int](t, tab, `document.querySelectorAll("#timeline .ev").length`); n != shown {
		t.Errorf("%d events drawn, want %d", n, shown)
	}
	if n := eval[int](t, tab, `document.querySelectorAll("#chart .pt").length`); n != usage {
		t.Errorf("%d chart points, want %d", n, usage)
	}
	t.Logf("%d events: loaded and drawn in %v (script %s ms)", len(r.events), took.Round(time.Millisecond), eval[string](t, tab, `document.documentElement.dataset.renderMs`))
}

func BenchmarkBrowserRender5000(b *testing.B) {
	tab := browsertest.New(b, 10*time.Minute)
	url := browsertest.FileURL(b, writePage(b, synthetic(5000)))
	open(b, tab, url)
	for b.Loop() {
		if err := chromedp.Do(tab, chromedp.Reload(), chromedp.WaitReady(`html[data-ready="1"]`)); err != nil {
			b.Fatal(err)
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func quote(s string) string { return strconv.Quote(s) }
