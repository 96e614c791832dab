package main

import (
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/harness-agent/harness/core/event"
)

// visible makes every character a terminal would interpret, or that hides or
// reorders text, visible as an escape: C0 controls but newline and tab, DEL,
// C1 controls, bidirectional controls and zero-width characters, and bytes
// that are not UTF-8. A model, a tool's output or a file in the workspace
// chooses these strings; printed raw, `\x1b]52;…` writes the person's
// clipboard, `\x1b[2J` repaints an approval question and U+202E shows a
// command other than the one that runs. Every string the CLI prints that it
// did not write itself goes through visible (or visibleLine) once, where the
// renderer receives it.
func visible(s string) string { return escapeControls(s, false) }

// visibleLine is visible for text that must stay on one line: newlines and
// tabs are escaped too.
func visibleLine(s string) string { return escapeControls(s, true) }

func escapeControls(s string, oneLine bool) string {
	if isPlain(s, oneLine) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' && !oneLine, r == '\t' && !oneLine:
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f:
			fmt.Fprintf(&b, `\u%04x`, r)
		case hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// isPlain reports whether s needs no escaping (the common case, kept cheap).
func isPlain(s string, oneLine bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return plainUTF8(s[i:], oneLine)
		}
		if c == 0x7f || c < 0x20 && (oneLine || c != '\n' && c != '\t') {
			return false
		}
	}
	return true
}

func plainUTF8(s string, oneLine bool) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r < 0x20 && (oneLine || r != '\n' && r != '\t') ||
			r >= 0x7f && r <= 0x9f || hidden(r) {
			return false
		}
		i += size
	}
	return true
}

// hidden reports the characters that change how text around them is shown
// without being seen: bidirectional controls (the Trojan Source set),
// zero-width characters, the line and paragraph separators and the BOM.
func hidden(r rune) bool {
	switch {
	case r == 0x061c, // Arabic letter mark
		r == 0x180e,                // Mongolian vowel separator
		r >= 0x200b && r <= 0x200f, // zero-width space, (non-)joiner, LRM, RLM
		r >= 0x2028 && r <= 0x202e, // line/paragraph separators, LRE, RLE, PDF, LRO, RLO
		r >= 0x2060 && r <= 0x2069, // word joiner, invisible operators, LRI, RLI, FSI, PDI
		r == 0xfeff,                // zero-width no-break space (BOM)
		r >= 0xfff9 && r <= 0xfffb: // interlinear annotations
		return true
	}
	return false
}

// visibleEvent is d with every string in it visible, map keys included;
// the renderer runs it once on each event. Raw JSON in it (a call's
// arguments, a result's presentation) is escaped where it is decoded
// (visibleData, visibleValue).
func visibleEvent(d event.Data) event.Data { return visibleValue(d) }

// visibleValue is v with every string in it visible: in struct fields,
// slices, maps (keys too), pointers and interfaces, at any depth. v's own
// slices and maps may be changed in place: it is a value the caller
// decoded for showing.
func visibleValue[T any](v T) T {
	rv := reflect.ValueOf(&v).Elem()
	escapeStrings(rv)
	return v
}

var bytesType = reflect.TypeOf([]byte(nil))

// escapeStrings makes every string under v, which is settable, visible.
func escapeStrings(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if s := v.String(); !isPlain(s, false) {
			v.SetString(visible(s))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() {
				escapeStrings(f)
			}
		}
	case reflect.Pointer:
		if !v.IsNil() {
			escapeStrings(v.Elem())
		}
	case reflect.Interface:
		if !v.IsNil() {
			c := reflect.New(v.Elem().Type()).Elem()
			c.Set(v.Elem())
			escapeStrings(c)
			v.Set(c)
		}
	case reflect.Slice, reflect.Array:
		if v.Type().ConvertibleTo(bytesType) {
			return // raw JSON or bytes: escaped where decoded
		}
		for i := range v.Len() {
			escapeStrings(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		it := v.MapRange()
		for it.Next() {
			k := reflect.New(v.Type().Key()).Elem()
			k.Set(it.Key())
			escapeStrings(k)
			val := reflect.New(v.Type().Elem()).Elem()
			val.Set(it.Value())
			escapeStrings(val)
			out.SetMapIndex(k, val)
		}
		v.Set(out)
	}
}

// visibleData escapes every string inside a decoded JSON value, keys
// included, in place where it can: a tool's own arguments, which no type
// of the harness describes.
func visibleData(v any) any {
	switch x := v.(type) {
	case string:
		return visible(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			out[visible(k)] = visibleData(val)
		}
		return out
	case []any:
		for i := range x {
			x[i] = visibleData(x[i])
		}
		return x
	}
	return v
}
