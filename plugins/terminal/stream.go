package terminal

import (
	"io"
	"strings"
	"sync"
	"time"

	"github.com/harness-agent/harness/sdk"
)

// Progress coalescing: a chunk goes out when flushSize bytes are pending or
// flushEvery after its first byte arrived, whichever comes first.
const (
	flushEvery = 50 * time.Millisecond
	flushSize  = 32 << 10
	readSize   = 32 << 10
	// chunkQueue bounds the chunks read but not yet handled: with readSize
	// that is the most output in flight between the pipes and the emitter.
	chunkQueue = 16
)

type chunk struct {
	stream string
	data   []byte
}

// outputStreams reads a command's stdout and stderr, keeps the output for
// the model in a capture and streams it as progress events. Events go out
// from a single goroutine, one stream after another in arrival order: the
// gRPC stream behind progress allows one sender only.
type outputStreams struct {
	chunks  chan chunk
	readers sync.WaitGroup
	done    chan struct{} // closed when every chunk was captured and sent
	out     *capture
}

func newOutputStreams(progress sdk.Progress) *outputStreams {
	o := &outputStreams{
		chunks: make(chan chunk, chunkQueue),
		done:   make(chan struct{}),
		out:    newCapture(headCap, tailCap),
	}
	go o.emit(progress)
	return o
}

// read consumes r as the named stream until EOF or until r is closed.
func (o *outputStreams) read(stream string, r io.Reader) {
	o.readers.Add(1)
	go func() {
		defer o.readers.Done()
		buf := make([]byte, readSize)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				o.chunks <- chunk{stream: stream, data: append([]byte(nil), buf[:n]...)}
			}
			if err != nil {
				return
			}
		}
	}()
}

// readersDone returns a channel closed once every reader has stopped.
func (o *outputStreams) readersDone() <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		o.readers.Wait()
		close(ch)
	}()
	return ch
}

// finish waits for the readers to stop (the caller ends them) and for the
// last progress event, and returns the captured output.
func (o *outputStreams) finish() string {
	o.readers.Wait()
	close(o.chunks)
	<-o.done
	return o.out.String()
}

func (o *outputStreams) emit(progress sdk.Progress) {
	defer close(o.done)
	var (
		pending []byte
		stream  string
		timer   = time.NewTimer(time.Hour)
		armed   bool
	)
	timer.Stop()
	defer timer.Stop()

	// flush sends what is pending. Unless final, an incomplete character
	// at the end waits for its remaining bytes.
	flush := func(final bool) {
		keep := 0
		if !final {
			keep = incompleteSuffix(pending)
		}
		if send := pending[:len(pending)-keep]; len(send) > 0 && progress != nil {
			progress(stream, strings.ToValidUTF8(string(send), "\uFFFD"))
		}
		pending = append(pending[:0], pending[len(pending)-keep:]...)
		if armed {
			timer.Stop()
			armed = false
		}
	}

	for {
		select {
		case c, ok := <-o.chunks:
			if !ok {
				flush(true)
				return
			}
			_, _ = o.out.Write(c.data)
			if c.stream != stream && len(pending) > 0 {
				flush(true)
			}
			stream = c.stream
			pending = append(pending, c.data...)
			if len(pending) >= flushSize {
				flush(false)
			}
			if len(pending) > 0 && !armed {
				timer.Reset(flushEvery)
				armed = true
			}
		case <-timer.C:
			armed = false
			flush(false)
		}
	}
}
