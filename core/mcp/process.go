package mcp

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/core/pluginhost"
)

// waitDelay bounds how long reaping a server waits for the stderr of
// processes it left behind to close.
const waitDelay = time.Second

// process is a stdio server: the command of an mcp block, in a process
// group of its own, with pipes to its stdin and stdout.
type process struct {
	cmd    *exec.Cmd
	stdin  *os.File // our end of its stdin
	stdout *os.File // our end of its stdout
	stderr *stderrSink
	done   chan struct{} // closed once it exited and its group is gone
	err    error         // what Wait returned; read after done
}

// startProcess starts the block's command in dir with an explicit
// environment: what programs need to run (PATH, HOME, locale, …) and the
// block's env, never the rest of harness's environment, where secrets such
// as the DeepSeek key live. A relative program path is taken from base, the
// configuration's directory.
func startProcess(m *config.MCPServer, base, dir string, log hclog.Logger) (*process, error) {
	env := serverEnv(m.Env)
	path, err := lookPath(m.Command[0], base, envValue(env, "PATH"))
	if err != nil {
		return nil, fmt.Errorf("mcp %q: %w", m.Name, err)
	}
	cmd := exec.Command(path, m.Command[1:]...)
	cmd.Args[0] = m.Command[0]
	cmd.Env = env
	cmd.Dir = dir
	cmd.WaitDelay = waitDelay
	isolate(cmd)

	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	p := &process{cmd: cmd, stdin: inW, stdout: outR, stderr: newStderrSink(log), done: make(chan struct{})}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, p.stderr
	err = cmd.Start()
	// The child has its own copies of these ends now.
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("mcp %q: start %s: %w", m.Name, strings.Join(m.Command, " "), err)
	}
	log.Debug("server started", "pid", cmd.Process.Pid, "command", strings.Join(m.Command, " "))
	go p.reap(log)
	return p, nil
}

// reap waits for the server's exit, then kills what is left of its group
// and closes our end of its stdout, so that a call waiting for an answer
// fails at once even when a process it started still holds the pipe.
func (p *process) reap(log hclog.Logger) {
	p.err = p.cmd.Wait()
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	p.stderr.flush()
	p.stdout.Close()
	log.Debug("server exited", "pid", p.cmd.Process.Pid, "status", p.status())
	close(p.done)
}

// exited reports whether the server has exited.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// waitExit waits at most d for the server's exit and reports whether it exited.
func (p *process) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.done:
		return true
	case <-t.C:
		return false
	}
}

// status describes how the server exited: "exit status 1", "signal: killed".
func (p *process) status() string {
	var ee *exec.ExitError
	switch {
	case p.err == nil:
		return "exit status 0"
	case errors.As(p.err, &ee):
		return ee.ProcessState.String()
	default:
		return p.err.Error()
	}
}

// stop ends the server the way the MCP specification asks for (its stdin
// closed, then SIGTERM), and kills its group when it is not gone within
// grace; 0 kills it at once.
func (p *process) stop(grace time.Duration) {
	if p.exited() {
		return
	}
	pid := p.cmd.Process.Pid
	if grace > 0 {
		p.stdin.Close()
		_ = syscall.Kill(-pid, syscall.SIGTERM)
		if p.waitExit(grace) {
			return
		}
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	<-p.done
}

// serverEnv is a server's whole environment: the variables programs need
// to run, then the block's own (sorted, so that a block's value wins).
func serverEnv(own map[string]string) []string {
	env := pluginhost.BaseEnv()
	keys := make([]string, 0, len(own))
	for k := range own {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, k+"=") })
		env = append(env, k+"="+own[k])
	}
	return env
}

func envValue(env []string, key string) string {
	for _, kv := range slices.Backward(env) {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}

// lookPath finds a server's program: a path with a slash is taken as it is
// (relative to base), a bare name is looked up in the server's PATH.
func lookPath(name, base, path string) (string, error) {
	if strings.ContainsRune(name, filepath.Separator) {
		if !filepath.IsAbs(name) {
			name = filepath.Join(base, name)
		}
		if err := executable(name); err != nil {
			return "", fmt.Errorf("command %s: %w", name, err)
		}
		return name, nil
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		if p := filepath.Join(dir, name); executable(p) == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("command %q is not in PATH (%s); install it or give its full path", name, path)
}

func executable(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return err
	case fi.IsDir():
		return fmt.Errorf("is a directory")
	case fi.Mode()&0o111 == 0:
		return fs.ErrPermission
	}
	return nil
}
