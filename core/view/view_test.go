package view

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/harness-agent/harness/core/session"
)

// page is a rendered page cut into the parts the checks look at.
type page struct {
	html, csp, style, script, data string
}

func render(t testing.TB, info session.SessionInfo, evs []session.Event) page {
	t.Helper()
	var buf bytes.Buffer
	if err := Render(&buf, info, evs); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	between := func(from, to string) string {
		_, rest, ok := strings.Cut(html, from)
		if !ok {
			t.Fatalf("page has no %q", from)
		}
		inner, _, ok := strings.Cut(rest, to)
		if !ok {
			t.Fatalf("page has no %q after %q", to, from)
		}
		return inner
	}
	return page{
		html:   html,
		csp:    between(`http-equiv="Content-Security-Policy" content="`, `"`),
		style:  between("<style>", "</style>"),
		data:   between(`<script type="application/json" id="session-data">`, "</script>"),
		script: between("</script>\n<script>", "</script>"),
	}
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// check asserts what keeps a session's strings data: two script elements
// (the data and the page's own), no '<' in the data, the data decoding to
// exactly the events, and a policy that allows only the page's own script
// and style.
func check(t testing.TB, p page, evs []session.Event) {
	t.Helper()
	if n := strings.Count(p.html, "<script"); n != 2 {
		t.Errorf("%d <script elements, want 2", n)
	}
	if strings.ContainsAny(p.data, "<>&") {
		t.Errorf("the session data carries raw markup characters")
	}
	var got struct {
		Events []session.Event `json:"events"`
	}
	if err := json.Unmarshal([]byte(p.data), &got); err != nil {
		t.Fatalf("session data is not JSON: %v", err)
	}
	if len(got.Events) != len(evs) {
		t.Fatalf("%d events in the page, want %d", len(got.Events), len(evs))
	}
	for i := range evs {
		if got.Events[i].Type != asJSONString(evs[i].Type) || !jsonEqual(got.Events[i].Data, evs[i].Data) {
			t.Errorf("event %d: %s %s, want %s %s", i+1, got.Events[i].Type, got.Events[i].Data, evs[i].Type, evs[i].Data)
		}
	}
	want := "default-src 'none'; script-src " + sha(p.script) + "; style-src " + sha(p.style)
	if !strings.HasPrefix(p.csp, want+";") {
		t.Errorf("policy %q, want it to start with %q", p.csp, want)
	}
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && bytes.Equal(mustJSON(x), mustJSON(y))
}

// asJSONString is s as JSON carries it: invalid UTF-8 becomes U+FFFD.
func asJSONString(s string) string {
	var out string
	_ = json.Unmarshal(mustJSON(s), &out)
	return out
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func TestPageCarriesSessionStringsOnlyAsData(t *testing.T) {
	t.Parallel()
	r := hostile()
	p := render(t, r.info, r.events)
	check(t, p, r.events)
	if strings.Contains(p.html, "window.__xss") && !strings.Contains(p.data, "window.__xss") {
		t.Error("a session string reached the markup outside the data element")
	}
	if strings.Count(p.html, "window.__xss") != strings.Count(p.data, "window.__xss") {
		t.Error("a session string appears outside the data element")
	}
}

func TestEmptySession(t *testing.T) {
	t.Parallel()
	p := render(t, session.SessionInfo{ID: "s-empty", Status: "running"}, nil)
	check(t, p, nil)
}

func FuzzRender(f *testing.F) {
	f.Add("tool.result", xssBreak, "\u2028</ScRiPt ><!--")
	f.Add("x", "&lt;", "]]>")
	f.Fuzz(func(t *testing.T, typ, content, id string) {
		r := newRecording(id)
		r.info.Agent = content
		r.add(typ, map[string]any{"content": content, content: typ})
		r.add("tool.result", map[string]any{"call_id": id, "content": content, "presentation": map[string]any{"kind": "text", "text": content}})
		check(t, render(t, r.info, r.events), r.events)
	})
}

func BenchmarkRender5000(b *testing.B) {
	r := synthetic(5000)
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := Render(&buf, r.info, r.events); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}
