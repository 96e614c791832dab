package redact

import (
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/harness-agent/harness/sdk"
)

// MinLen is the length of the shortest value redacted: shorter api_key
// values are placeholders ("ollama") that also name ordinary things.
const MinLen = 8

// Marker replaces a secret in logs, errors and events.
const Marker = "[redacted]"

// Secrets is a set of values that must not be shown, which grows as they
// become known. The zero value is empty and ready; a nil *Secrets redacts
// nothing. It is safe for concurrent use.
type Secrets struct {
	mu     sync.RWMutex
	values []string
	r      *Replacer // nil while empty
}

// Add adds values (those shorter than MinLen are ignored).
func (s *Secrets) Add(values ...string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	added := false
	for _, v := range values {
		if len(v) >= MinLen && !slices.Contains(s.values, v) {
			s.values, added = append(s.values, v), true
		}
	}
	if added {
		s.r = NewReplacer(s.values, Marker)
	}
}

// Values returns the secrets known so far.
func (s *Secrets) Values() []string {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Clone(s.values)
}

// String returns text with every secret replaced by Marker.
func (s *Secrets) String(text string) string {
	if s == nil {
		return text
	}
	s.mu.RLock()
	r := s.r
	s.mu.RUnlock()
	if r == nil {
		return text
	}
	return r.Replace(text)
}

// Error returns err with its message redacted: err itself when it holds
// no secret, else an error with the same text redacted whose chain no
// longer reaches the original message; an *sdk.Error in the chain keeps
// its kind and Retry-After.
func (s *Secrets) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	red := s.String(msg)
	if red == msg {
		return err
	}
	var se *sdk.Error
	if !errors.As(err, &se) {
		return errors.New(red)
	}
	e := &sdk.Error{Kind: se.Kind, Message: s.String(se.Message), RetryAfter: se.RetryAfter}
	if err == error(se) {
		return e
	}
	return &wrapped{msg: red, err: e}
}

// wrapped is a redacted message around the redacted *sdk.Error it wraps.
type wrapped struct {
	msg string
	err *sdk.Error
}

func (w *wrapped) Error() string { return w.msg }
func (w *wrapped) Unwrap() error { return w.err }

// Writer returns a writer that redacts each Write before passing it to w
// (hclog writes one whole entry per Write). It keeps w's Fd, so that a
// terminal stays recognised as one.
func (s *Secrets) Writer(w io.Writer) io.Writer {
	rw := &writer{s: s, w: w}
	if f, ok := w.(interface{ Fd() uintptr }); ok {
		return &fdWriter{writer: rw, fd: f.Fd}
	}
	return rw
}

type writer struct {
	s *Secrets
	w io.Writer
}

func (w *writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(w.w, w.s.String(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

type fdWriter struct {
	*writer
	fd func() uintptr
}

func (w *fdWriter) Fd() uintptr { return w.fd() }

// NewReplacer replaces each value of MinLen or more, and its JSON- and
// Go-quoted forms (a secret inside a quoted log field or a JSON line), by
// marker; the longest first, so that a value containing another is
// replaced whole. nil when no value is long enough.
func NewReplacer(values []string, marker string) *Replacer {
	return replacer(values, marker, func(v string) []string {
		q := strconv.Quote(v)
		return []string{v, jsonForm(v), q[1 : len(q)-1]}
	})
}

// NewJSONReplacer is NewReplacer for encoded JSON: it replaces only the
// values' JSON-escaped forms, which occur inside strings alone, so that
// the result is still the same JSON with those strings redacted.
func NewJSONReplacer(values []string, marker string) *Replacer {
	return replacer(values, marker, func(v string) []string { return []string{jsonForm(v)} })
}

// jsonForm is v as encoding/json writes it inside a string.
func jsonForm(v string) string {
	j, _ := json.Marshal(v)
	return string(j[1 : len(j)-1])
}

func replacer(values []string, marker string, formsOf func(string) []string) *Replacer {
	var forms []string
	for _, v := range values {
		if len(v) < MinLen {
			continue
		}
		for _, f := range formsOf(v) {
			if !slices.Contains(forms, f) {
				forms = append(forms, f)
			}
		}
	}
	if len(forms) == 0 {
		return nil
	}
	slices.SortStableFunc(forms, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(forms))
	for _, f := range forms {
		pairs = append(pairs, f, marker)
	}
	return &Replacer{forms: forms, r: strings.NewReplacer(pairs...)}
}

// Replacer replaces every occurrence of a set of strings (a secret's
// forms) by a marker. Text that holds none of them, nearly all text, is
// returned after one strings.Contains per form, which scans at memory
// speed, instead of a strings.Replacer's walk of its trie over every byte
// (what it does for more than one string): 32 KiB of a file read went
// through the trie in about 100 µs.
type Replacer struct {
	forms []string // longest first
	r     *strings.Replacer
}

// Replace returns s with every form replaced by the marker, the longest
// first where they overlap (as strings.Replacer does).
func (r *Replacer) Replace(s string) string {
	for _, f := range r.forms {
		if strings.Contains(s, f) {
			return r.r.Replace(s)
		}
	}
	return s
}
