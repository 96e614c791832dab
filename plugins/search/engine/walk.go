package engine

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
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

// job is a unit of work: read a directory (files == nil), or search some
// files of a directory that was read already.
type job struct {
	dir   *dirInfo
	files []string // names in dir
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
		w := s.newWorker()
		w.searchFile(from.rel, true)
		putBuffer(w.buf)
		return s.ctx.Err()
	}
	s.queue.init(job{dir: &dirInfo{rel: from.rel, ignore: from.ignore}})
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			w := s.newWorker()
			for j, ok := s.queue.pop(); ok; j, ok = s.queue.pop() {
				if s.ctx.Err() != nil {
					s.queue.stop()
				} else {
					w.do(j)
				}
				s.queue.done()
			}
			putBuffer(w.buf)
		})
	}
	wg.Wait()
	return s.ctx.Err()
}

// worker holds what one goroutine reuses from file to file.
type worker struct {
	s       *search
	matcher lineMatcher
	buf     []byte
}

func (s *search) newWorker() *worker {
	return &worker{s: s, matcher: s.newMatcher(), buf: getBuffer()}
}

func (w *worker) do(j job) {
	if j.files == nil {
		j.files = w.readDir(j.dir)
	}
	for _, name := range j.files {
		w.searchFile(joinRel(j.dir.rel, name), false)
	}
}

// readDir lists a directory, queues its subdirectories and all but the
// first filesPerJob files, and returns those first files for the caller.
func (w *worker) readDir(dir *dirInfo) []string {
	// os.ReadDir takes each entry's type from getdents: no stat per entry.
	entries, err := os.ReadDir(w.s.rootPrefix + filepath.FromSlash(dir.rel))
	if err != nil {
		return nil // unreadable directories are skipped, as rg does (it also warns)
	}
	ign := dir.ignore
	for _, e := range entries {
		if e.Name() == ".gitignore" && e.Type().IsRegular() {
			ign = loadIgnore(w.s.rootPrefix+filepath.FromSlash(joinRel(dir.rel, ".gitignore")), ign, dirBase(dir.rel))
			break
		}
	}
	var files []string
	var jobs []job
	for _, e := range entries {
		name, typ := e.Name(), e.Type()
		isDir := typ.IsDir()
		if !isDir && !typ.IsRegular() || isDir && alwaysSkipped(name) {
			continue // symbolic links are not followed; devices, sockets, pipes are not searched
		}
		rel := joinRel(dir.rel, name)
		if !w.s.visible(ign, rel, name, isDir) {
			continue
		}
		switch {
		case isDir:
			if w.s.glob == nil || w.s.glob.mayContain(rel) {
				jobs = append(jobs, job{dir: &dirInfo{rel: rel, ignore: ign}})
			}
		case w.s.glob == nil || w.s.glob.matches(rel, name):
			files = append(files, name)
		}
	}
	if len(files) > filesPerJob {
		child := &dirInfo{rel: dir.rel, ignore: ign}
		for i := filesPerJob; i < len(files); i += filesPerJob {
			jobs = append(jobs, job{dir: child, files: files[i:min(i+filesPerJob, len(files))]})
		}
		files = files[:filesPerJob]
	}
	w.s.queue.push(jobs)
	return files
}

// visible applies the ignore rules and ripgrep's hidden-file rule to an
// entry: an entry an ignore file excludes is skipped; an entry whose name
// starts with '.' is skipped unless a negated pattern ("!.env") keeps it.
func (s *search) visible(ign *ignoreFile, rel, name string, isDir bool) bool {
	v := undecided
	if ign != nil {
		v = ign.decide(rel, name, isDir)
	}
	return v == kept || v == undecided && name[0] != '.'
}

// searchFile reads and searches one file; unreadable and binary files are
// skipped.
func (w *worker) searchFile(rel string, follow bool) {
	data, err := readFile(w.s.rootPrefix+filepath.FromSlash(rel), w.buf[:0], follow)
	if cap(data) <= maxKeptBuffer {
		w.buf = data[:0]
	}
	if err != nil {
		return
	}
	w.matcher.reset()
	if total, hits := w.scan(rel, data); total > 0 {
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
// pending directories small.
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
