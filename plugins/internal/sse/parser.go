package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
	"unicode/utf8"
)

// DefaultMaxEventSize is the cap on one line and on one event's data when
// Options.MaxEventSize is zero.
const DefaultMaxEventSize = 16 << 20

// readSize is how much the parser asks its reader for at a time.
const readSize = 32 << 10

// Event is one dispatched event.
type Event struct {
	// Type is the event type: the last event field of the block, or
	// "message" when the block had none (or an empty one).
	Type string
	// Data is the event's data lines joined by LF.
	Data string
	// ID is the stream's last event ID at dispatch time.
	ID string
}

// Options tune a Parser. The zero value is ready to use.
type Options struct {
	// MaxEventSize caps the length in bytes of one line and of one event's
	// data; 0 means DefaultMaxEventSize.
	MaxEventSize int
	// OnComment, when set, receives the text after the colon of every
	// comment line (": keep-alive" gives " keep-alive"), in stream order.
	OnComment func(comment string)
}

// SizeError reports a line or an event larger than the configured cap.
type SizeError struct {
	What  string // "line" or "event data"
	Limit int
}

// Error implements the error interface.
func (e *SizeError) Error() string {
	return fmt.Sprintf("sse: %s exceeds the cap of %d bytes (MaxEventSize)", e.What, e.Limit)
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Parser reads events from a text/event-stream body incrementally.
// It is not safe for concurrent use.
type Parser struct {
	r    io.Reader
	max  int
	onCm func(string)

	buf        []byte
	start, end int
	readErr    error
	line       []byte // a line that spans reads
	skipLF     bool   // the previous line ended with CR: a following LF belongs to it
	bomChecked bool

	eventType []byte
	data      []byte
	idBuffer  string
	lastID    string
	retry     time.Duration
	retrySet  bool

	tail    Event
	hasTail bool
	done    bool
}

// NewParser returns a parser reading from r.
func NewParser(r io.Reader, opts Options) *Parser {
	limit := opts.MaxEventSize
	if limit <= 0 {
		limit = DefaultMaxEventSize
	}
	return &Parser{r: r, max: limit, onCm: opts.OnComment, buf: make([]byte, readSize)}
}

// Next returns the next dispatched event. At the end of the stream it
// returns io.EOF; a read error is returned as it is, and a line or event
// over the cap as a *SizeError. After any error, Next keeps returning it.
func (p *Parser) Next() (Event, error) {
	for {
		line, err := p.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) && !p.done {
				p.finishTail()
			}
			p.done = true
			return Event{}, err
		}
		ev, dispatched, err := p.processLine(line)
		if err != nil {
			return Event{}, p.fail(err)
		}
		if dispatched {
			return ev, nil
		}
	}
}

// LastEventID returns the stream's last event ID string: the value set by
// an id field and committed when its block ended.
func (p *Parser) LastEventID() string { return p.lastID }

// Retry returns the reconnection time set by the last valid retry field.
func (p *Parser) Retry() (time.Duration, bool) { return p.retry, p.retrySet }

// Unterminated returns, once Next has returned io.EOF, the event that the
// block at the end of the stream would have dispatched had it been
// followed by a blank line (the final line counts even without a line
// ending). WHATWG discards such a block; callers may choose to honour it,
// for example a final "data: [DONE]" without a trailing newline.
func (p *Parser) Unterminated() (Event, bool) { return p.tail, p.hasTail }

// finishTail interprets what is left at EOF without committing anything
// that WHATWG says must be discarded.
func (p *Parser) finishTail() {
	if len(p.line) > 0 {
		if _, _, err := p.processLine(p.line); err != nil {
			return
		}
		p.line = p.line[:0]
	}
	if len(p.data) == 0 {
		return
	}
	p.tail, p.hasTail = p.makeEvent(p.idBuffer), true
}

// readLine returns the next complete line without its terminator. The
// slice is valid until the next call.
func (p *Parser) readLine() ([]byte, error) {
	for {
		if p.start < p.end {
			if p.skipLF {
				p.skipLF = false
				if p.buf[p.start] == '\n' {
					p.start++
					continue
				}
			}
			chunk := p.buf[p.start:p.end]
			i := indexLineEnd(chunk)
			if i >= 0 {
				p.start += i + 1
				p.skipLF = chunk[i] == '\r'
				seg := chunk[:i]
				if len(p.line) > 0 {
					p.line = append(p.line, seg...)
					seg = p.line
					p.line = p.line[:0]
				}
				if len(seg) > p.max {
					return nil, p.fail(&SizeError{What: "line", Limit: p.max})
				}
				return seg, nil
			}
			if len(p.line)+len(chunk) > p.max {
				return nil, p.fail(&SizeError{What: "line", Limit: p.max})
			}
			p.line = append(p.line, chunk...)
			p.start = p.end
		}
		if p.readErr != nil {
			return nil, p.readErr
		}
		p.fill()
	}
}

func (p *Parser) fail(err error) error {
	p.readErr, p.start, p.end, p.done = err, 0, 0, true
	return err
}

// fill reads more input. At the start of the stream it reads until it can
// tell whether the stream begins with a UTF-8 BOM, and drops it.
func (p *Parser) fill() {
	p.start, p.end = 0, 0
	for empty := 0; ; {
		n, err := p.r.Read(p.buf[p.end:])
		p.end += n
		if err != nil {
			p.readErr = err
		}
		if n == 0 && err == nil {
			if empty++; empty > 100 {
				p.readErr = io.ErrNoProgress
				return
			}
			continue
		}
		if !p.bomChecked {
			if err == nil && p.end < len(utf8BOM) && bytes.HasPrefix(utf8BOM, p.buf[:p.end]) {
				continue // could still be a BOM: wait for more
			}
			p.bomChecked = true
			if bytes.HasPrefix(p.buf[:p.end], utf8BOM) {
				p.start = len(utf8BOM)
			}
		}
		if p.start < p.end || err != nil {
			return
		}
	}
}

func indexLineEnd(b []byte) int {
	for i, c := range b {
		if c == '\n' || c == '\r' {
			return i
		}
	}
	return -1
}

// processLine applies one line to the parser state; a blank line may
// dispatch an event.
func (p *Parser) processLine(line []byte) (Event, bool, error) {
	if len(line) == 0 {
		return p.dispatch()
	}
	if !utf8.Valid(line) {
		line = bytes.ToValidUTF8(line, []byte("\uFFFD"))
	}
	if line[0] == ':' {
		if p.onCm != nil {
			p.onCm(string(line[1:]))
		}
		return Event{}, false, nil
	}
	field, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		field, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(field) {
	case "event":
		p.eventType = append(p.eventType[:0], value...)
	case "data":
		if len(p.data)+len(value) > p.max {
			return Event{}, false, &SizeError{What: "event data", Limit: p.max}
		}
		p.data = append(p.data, value...)
		p.data = append(p.data, '\n')
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			p.idBuffer = string(value)
		}
	case "retry":
		if ms, ok := parseDigits(value); ok {
			p.retry, p.retrySet = time.Duration(ms)*time.Millisecond, true
		}
	}
	return Event{}, false, nil
}

// parseDigits accepts ASCII digits only (no sign, no space), as WHATWG
// requires for retry; values too large to represent are ignored.
func parseDigits(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	ms, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil || ms > int64(time.Duration(1<<63-1)/time.Millisecond) {
		return 0, false
	}
	return ms, true
}

func (p *Parser) dispatch() (Event, bool, error) {
	p.lastID = p.idBuffer
	if len(p.data) == 0 {
		p.eventType = p.eventType[:0]
		return Event{}, false, nil
	}
	ev := p.makeEvent(p.lastID)
	p.data = p.data[:0]
	p.eventType = p.eventType[:0]
	return ev, true, nil
}

func (p *Parser) makeEvent(id string) Event {
	typ := "message"
	if len(p.eventType) > 0 {
		typ = string(p.eventType)
	}
	return Event{Type: typ, Data: string(p.data[:len(p.data)-1]), ID: id}
}
