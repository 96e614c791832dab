package engine

import (
	"bytes"
	"context"
	"errors"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// search is the state of one Search call shared by its workers.
type search struct {
	ctx          context.Context
	rootPrefix   string // the root with a trailing separator
	glob         *globFilter
	newMatcher   func() lineMatcher
	contextLines int
	coll         *collector
	queue        queue
}

// job is a unit of work: list a directory (handle == nil), or search some
// files of a directory listed already.
type job struct {
	dir    *dirInfo
	handle *dirHandle // holds a reference for this job
	files  []string   // names in dir
}

type dirInfo struct {
	rel    string // slash path relative to the root, "" for the root
	ignore *ignoreFile
}

// filesPerJob is how many files of one directory a worker searches before
// the rest are handed to other workers: large directories are split so that
// no worker is left with all the work.
const filesPerJob = 32

// run walks and searches with one worker per GOMAXPROCS.
func (s *search) run(from origin) error {
	if !from.isDir {
		s.searchOriginFile(from.rel)
		return s.ctx.Err()
	}
	s.queue.init(job{dir: &dirInfo{rel: from.rel, ignore: from.ignore}})
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			w := s.newWorker()
			defer putBuffer(w.buf)
			for j, ok := s.queue.pop(); ok; j, ok = s.queue.pop() {
				if s.ctx.Err() != nil {
					s.queue.stop()
					j.discard()
				} else {
					w.do(j)
				}
				s.queue.done()
			}
		})
	}
	wg.Wait()
	for _, j := range s.queue.jobs { // left over after a cancellation
		j.discard()
	}
	return s.ctx.Err()
}

// discard gives up a job without doing it.
func (j job) discard() {
	if j.handle != nil {
		j.handle.release()
	}
}

// worker holds what one goroutine reuses from file to file.
type worker struct {
	s       *search
	matcher lineMatcher
	buf     []byte // file content
	dirBuf  []byte // directory listings
}

func (s *search) newWorker() *worker {
	return &worker{s: s, matcher: s.newMatcher(), buf: getBuffer()}
}

func (w *worker) do(j job) {
	if j.handle == nil {
		j.handle, j.files = w.readDir(j.dir)
		if j.handle == nil {
			return
		}
	}
	for _, name := range j.files {
		w.searchFile(j.dir, j.handle, name)
	}
	j.handle.release()
}

// readDir lists a directory, queues its subdirectories and all but the
// first filesPerJob files, and returns those first files for the caller,
// with the directory handle (nil when the directory is unreadable: it is
// skipped, as rg does, without its warning).
func (w *worker) readDir(dir *dirInfo) (*dirHandle, []string) {
	h, entries, err := openDir(w.s.rootPrefix+filepath.FromSlash(dir.rel), &w.dirBuf)
	if err != nil {
		return nil, nil
	}
	ign := dir.ignore
	for _, e := range entries {
		if e.name == ".gitignore" && e.kind == kindFile {
			if content, err := h.readFile(e.name, nil); err == nil {
				ign = chainIgnore(content, ign, dirBase(dir.rel))
			}
			break
		}
	}
	var files []string
	var jobs []job
	for _, e := range entries {
		isDir := e.kind == kindDir
		if !isDir && e.kind != kindFile || isDir && alwaysSkipped(e.name) {
			continue // symbolic links are not followed; devices, sockets, pipes are not searched
		}
		var rel string // built only when needed: most files of most trees never need it
		if isDir || ign != nil || w.s.glob != nil {
			rel = joinRel(dir.rel, e.name)
		}
		if !visible(ign, rel, e.name, isDir) {
			continue
		}
		switch {
		case isDir:
			if w.s.glob == nil || w.s.glob.mayContain(rel) {
				jobs = append(jobs, job{dir: &dirInfo{rel: rel, ignore: ign}})
			}
		case w.s.glob == nil || w.s.glob.matches(rel, e.name):
			files = append(files, e.name)
		}
	}
	here := dir
	if ign != dir.ignore {
		here = &dirInfo{rel: dir.rel, ignore: ign}
	}
	for i := filesPerJob; i < len(files); i += filesPerJob {
		h.hold(1)
		jobs = append(jobs, job{dir: here, handle: h, files: files[i:min(i+filesPerJob, len(files))]})
	}
	w.s.queue.push(jobs)
	return h, files[:min(len(files), filesPerJob)]
}

// visible applies the ignore rules and ripgrep's hidden-file rule to an
// entry: an entry an ignore file excludes is skipped; an entry whose name
// starts with '.' is skipped unless a negated pattern ("!.env") keeps it.
func visible(ign *ignoreFile, rel, name string, isDir bool) bool {
	v := undecided
	if ign != nil {
		v = ign.decide(rel, name, isDir)
	}
	return v == kept || v == undecided && name[0] != '.'
}

// searchFile reads and searches one file of a directory; unreadable files
// are skipped.
func (w *worker) searchFile(dir *dirInfo, h *dirHandle, name string) {
	data, err := h.readFile(name, w.buf[:0])
	w.keep(data)
	w.searched(dir.rel, name, data, err)
}

// searched searches what was read, or counts a file skipped for its size.
func (w *worker) searched(dirRel, name string, data []byte, err error) {
	var large *tooLargeError
	switch {
	case err == nil:
		w.searchContent(dirRel, name, data)
	case errors.As(err, &large):
		w.s.coll.skip(joinRel(dirRel, name))
	}
}

// searchOriginFile searches the file Query.Path names.
func (s *search) searchOriginFile(rel string) {
	w := s.newWorker()
	defer putBuffer(w.buf)
	data, err := readNoSymlinks(s.rootPrefix+filepath.FromSlash(rel), w.buf[:0])
	w.keep(data)
	dir, name := path.Split(rel)
	w.searched(strings.TrimSuffix(dir, "/"), name, data, err)
}

// keep makes the buffer data was read into the worker's buffer, unless a
// large file made it too big to hold on to.
func (w *worker) keep(data []byte) {
	if cap(data) <= maxKeptBuffer {
		w.buf = data[:0]
	}
}

func (w *worker) searchContent(dirRel, name string, data []byte) {
	w.matcher.reset()
	if total, hits, rel := w.scan(dirRel, name, data); total > 0 {
		w.s.coll.add(rel, total, hits)
	}
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

func dirBase(rel string) string {
	if rel == "" {
		return ""
	}
	return rel + "/"
}

// queue is the shared LIFO of jobs. Depth-first order keeps the number of
// pending directories small, and the batches of a directory's files are
// searched soon after it is listed, while it is open.
type queue struct {
	mu      sync.Mutex
	cond    sync.Cond
	jobs    []job
	running int // jobs popped and not yet done
	stopped bool
}

func (q *queue) init(first job) {
	q.cond.L = &q.mu
	q.jobs = []job{first}
}

func (q *queue) push(jobs []job) {
	if len(jobs) == 0 {
		return
	}
	q.mu.Lock()
	q.jobs = append(q.jobs, jobs...)
	q.mu.Unlock()
	q.cond.Broadcast()
}

// pop waits for a job; ok is false once no job is left and none is running
// (none can be pushed any more), or after stop.
func (q *queue) pop() (job, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.jobs) == 0 && q.running > 0 && !q.stopped {
		q.cond.Wait()
	}
	if len(q.jobs) == 0 || q.stopped {
		return job{}, false
	}
	j := q.jobs[len(q.jobs)-1]
	q.jobs = q.jobs[:len(q.jobs)-1]
	q.running++
	return j, true
}

func (q *queue) done() {
	q.mu.Lock()
	q.running--
	idle := q.running == 0 && len(q.jobs) == 0
	q.mu.Unlock()
	if idle {
		q.cond.Broadcast()
	}
}

// stop makes every pop return false (the search was canceled).
func (q *queue) stop() {
	q.mu.Lock()
	q.stopped = true
	q.mu.Unlock()
	q.cond.Broadcast()
}

// isBinary applies ripgrep's rule: a NUL byte in the content makes it binary.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data, 0) >= 0
}

// trimBOM drops a UTF-8 byte order mark, which ripgrep does not search.
func trimBOM(data []byte) []byte {
	if len(data) >= 3 && data[0] == 0xef && data[1] == 0xbb && data[2] == 0xbf {
		return data[3:]
	}
	return data
}
