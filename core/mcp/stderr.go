package mcp

import (
	"bytes"
	"strings"
	"sync"

	"github.com/hashicorp/go-hclog"
)

// stderrTail is how much of the end of a server's stderr a process_exit
// error quotes.
const stderrTail = 2 << 10

// maxLogLine bounds one logged line of a server's stderr.
const maxLogLine = 4 << 10

// stderrSink receives a server's stderr: it logs every line and keeps the
// end of the stream for the error that reports the server's exit.
type stderrSink struct {
	log hclog.Logger

	mu      sync.Mutex
	partial []byte
	tail    []byte
}

func newStderrSink(log hclog.Logger) *stderrSink { return &stderrSink{log: log} }

func (s *stderrSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tail = append(s.tail, p...)
	if over := len(s.tail) - stderrTail; over > 0 {
		s.tail = append(s.tail[:0], s.tail[over:]...)
	}
	s.partial = append(s.partial, p...)
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			break
		}
		s.logLine(s.partial[:i])
		s.partial = s.partial[i+1:]
	}
	if len(s.partial) > maxLogLine {
		s.logLine(s.partial)
		s.partial = s.partial[:0]
	}
	return len(p), nil
}

// flush logs a last line that ended without a newline.
func (s *stderrSink) flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.partial) > 0 {
		s.logLine(s.partial)
		s.partial = nil
	}
}

func (s *stderrSink) logLine(b []byte) {
	if line := strings.TrimRight(string(b), "\r"); line != "" {
		s.log.Debug("server stderr", "line", line)
	}
}

// end returns the end of the stream, starting at a line boundary when the
// kept bytes do not reach back to the stream's start.
func (s *stderrSink) end() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tail
	if len(t) == stderrTail {
		if i := bytes.IndexByte(t, '\n'); i >= 0 {
			t = t[i+1:]
		}
	}
	return strings.TrimSpace(string(t))
}
