package pluginhost

import (
	"fmt"
	"os"
	"sync"
)

// program is what a plugin process runs, pinned when the host first opened
// (and, for a third-party plugin, hashed) it: every start and restart runs
// those bytes, whatever happens to the path afterwards. A program whose file
// is nil is the host's own running image.
type program struct {
	file *os.File
	name string // argv[0], and the path named in messages
}

// selfProgram is the program of built-in plugins: with path "", the host's
// own running image (on Linux /proc/self/exe, the file the kernel started,
// even if its path has since been replaced, and which cannot be rewritten
// while it runs); otherwise the file at path as it is now.
func selfProgram(path string) (program, error) {
	if path != "" {
		f, err := pin(path)
		if err != nil {
			return program{}, fmt.Errorf("open the binary for built-in plugins: %w", err)
		}
		return program{file: f, name: path}, nil
	}
	name, err := os.Executable()
	if err != nil {
		return program{}, fmt.Errorf("locate the harness binary for built-in plugins: %w", err)
	}
	return program{name: name}, nil
}

func (p program) close() {
	if p.file != nil {
		p.file.Close()
	}
}

// pinned is a third-party plugin's program, verified once and kept for the
// host's lifetime.
type pinned struct {
	mu   sync.Mutex
	prog *program
}

// get returns the plugin's program, verifying and pinning it on first use.
func (p *pinned) get(name, path, sha string) (program, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.prog != nil {
		return *p.prog, nil
	}
	f, err := pinVerified(name, path, sha)
	if err != nil {
		return program{}, err
	}
	p.prog = &program{file: f, name: path}
	return *p.prog, nil
}

func (p *pinned) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.prog != nil {
		p.prog.close()
		p.prog = nil
	}
}
