package terminal

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/harness-agent/harness/plugins/terminal/internal/helper"
	"github.com/harness-agent/harness/sdk"
)

// sandboxSpec is how the helper confines one command.
type sandboxSpec struct {
	namespaces bool     // user, mount, PID (and network) namespaces
	network    bool     // keep the plugin's network namespace
	landlock   []string // Landlock's writable paths; nil: no Landlock
	seccomp    bool
	workspace  string
	tmp        string // the plugin's private temp dir (on the host)
	protect    []string
}

func (s *sandboxSpec) args() []string {
	var args []string
	for _, p := range s.landlock {
		args = append(args, "-write", p)
	}
	if s.seccomp {
		args = append(args, "-seccomp")
	}
	if s.namespaces {
		args = append(args, "-namespaces", "-workspace", s.workspace, "-tmp", s.tmp)
		if s.network {
			args = append(args, "-network")
		}
		for _, p := range s.protect {
			args = append(args, "-protect", p)
		}
	}
	return args
}

// tmpDir is the command's TMPDIR: its private temp dir, which the
// namespaced sandbox mounts on /tmp.
func (s *sandboxSpec) tmpDir() string {
	if s.namespaces {
		return "/tmp"
	}
	return s.tmp
}

// planSandbox decides how a command of cfg is sandboxed on this machine,
// and the note that says what is missing when the kernel falls short
// (empty when nothing is). A nil spec runs the command unsandboxed.
func planSandbox(cfg config) (*sandboxSpec, string, error) {
	tmp, err := privateTemp()
	if err != nil {
		return nil, "", err
	}
	nsErr := namespaceSupport(cfg.workspace, tmp)
	llErr := sandboxAvailable()
	if nsErr != nil && llErr != nil {
		return nil, fmt.Sprintf("note: no sandbox on this system (namespaces: %v; Landlock: %v): the command ran unsandboxed", nsErr, llErr), nil
	}
	spec := &sandboxSpec{seccomp: helper.SeccompBuilt(), workspace: cfg.workspace, tmp: tmp, protect: cfg.protected, network: cfg.network}
	var note string
	switch {
	case nsErr == nil:
		spec.namespaces = true
		if llErr == nil {
			spec.landlock = sandboxWritable(cfg.workspace, "/tmp", true)
		} else {
			note = fmt.Sprintf("note: the sandbox runs without Landlock here (%v): device files are not confined", llErr)
		}
	default:
		spec.landlock = sandboxWritable(cfg.workspace, tmp, false)
		note = fmt.Sprintf("note: the sandbox is partial here (namespaces: %v): writes outside the workspace are refused, "+
			"but protected paths in it, file metadata, other processes and the network are not confined", nsErr)
	}
	if !spec.seccomp {
		note = strings.TrimSpace(note + " note: UNIX sockets are not confined on this architecture")
	}
	return spec, note, nil
}

var privateTempDir struct {
	sync.Mutex
	path string
}

// privateTempPrefix names the plugins' private temp dirs:
// harness-terminal-PID-RANDOM.
const privateTempPrefix = "harness-terminal-"

// privateTemp is the plugin's private temp dir, made on first use (mode
// 0700) and removed at shutdown: sandboxed commands write their temporary
// files there, never to the host's shared temp dir. Those of plugins that
// died without their shutdown (SIGKILL) are removed when the next one
// makes its own.
func privateTemp() (string, error) {
	privateTempDir.Lock()
	defer privateTempDir.Unlock()
	if privateTempDir.path != "" {
		if _, err := os.Stat(privateTempDir.path); err == nil {
			return privateTempDir.path, nil
		}
	}
	removeStaleTemps()
	dir, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", privateTempPrefix, os.Getpid()))
	if err != nil {
		return "", fmt.Errorf("terminal: the sandbox's temp dir: %w", err)
	}
	privateTempDir.path = dir
	return dir, nil
}

// removeStaleTemps removes the private temp dirs of this user's plugins
// whose process is gone.
func removeStaleTemps() {
	matches, _ := filepath.Glob(filepath.Join(os.TempDir(), privateTempPrefix+"*-*"))
	for _, dir := range matches {
		pidText, _, _ := strings.Cut(strings.TrimPrefix(filepath.Base(dir), privateTempPrefix), "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		var st unix.Stat_t
		if unix.Lstat(dir, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR || int(st.Uid) != os.Getuid() {
			continue
		}
		if err := unix.Kill(pid, 0); errors.Is(err, unix.ESRCH) {
			_ = os.RemoveAll(dir)
		}
	}
}

func removePrivateTemp() {
	privateTempDir.Lock()
	defer privateTempDir.Unlock()
	if privateTempDir.path != "" {
		_ = os.RemoveAll(privateTempDir.path)
		privateTempDir.path = ""
	}
}

var namespaceProbe struct {
	once sync.Once
	err  error
}

// probeNamespaces is the probe namespaceSupport runs once; tests replace
// it to play a kernel without user namespaces.
var probeNamespaces = runNamespaceProbe

// namespaceSupport says why the namespaced sandbox cannot be set up here,
// or nil. It finds out once per plugin process, by setting it up.
func namespaceSupport(workspace, tmp string) error {
	namespaceProbe.once.Do(func() { namespaceProbe.err = probeNamespaces(workspace, tmp) })
	return namespaceProbe.err
}

// runNamespaceProbe starts a helper that sets the namespaced sandbox up
// and exits without running anything.
func runNamespaceProbe(workspace, tmp string) error {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("control socket: %w", err)
	}
	ctl := os.NewFile(uintptr(fds[0]), "control")
	defer ctl.Close()
	helperEnd := os.NewFile(uintptr(fds[1]), "control")
	spec := &sandboxSpec{namespaces: true, seccomp: helper.SeccompBuilt(), workspace: workspace, tmp: tmp}
	cmd := &exec.Cmd{
		Path:        "/proc/self/exe",
		Args:        append([]string{os.Args[0], helper.Arg, "-probe"}, spec.args()...),
		Dir:         workspace,
		Env:         []string{helper.Env + "=1"},
		ExtraFiles:  []*os.File{helperEnd},
		SysProcAttr: sandboxSysProcAttr(false),
	}
	err = startHelper(cmd, true)
	helperEnd.Close()
	if err != nil {
		return fmt.Errorf("cannot create them: %w (user namespaces may be disabled, e.g. by the user.max_user_namespaces "+
			"or kernel.apparmor_restrict_unprivileged_userns sysctl)", err)
	}
	var lines []string
	sc := bufio.NewScanner(ctl)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	werr := cmd.Wait()
	for _, l := range lines {
		if msg, ok := strings.CutPrefix(l, "denied "); ok {
			return errors.New(msg)
		}
		if l == "ready" && werr == nil {
			return nil
		}
	}
	return fmt.Errorf("the probe helper ended with %v and said %q", werr, strings.Join(lines, "; "))
}

// resetNamespaceProbe forgets what the probe found (for tests).
func resetNamespaceProbe() {
	namespaceProbe.once = sync.Once{}
	namespaceProbe.err = nil
}

// missingPath is a protected path in the workspace that does not exist:
// it cannot be a mount point, so the sandbox cannot make it read-only, and
// undoes its creation instead (removeCreated).
type missingPath struct {
	parts []string // relative to the workspace
	first int      // index of the first component that does not exist
}

// missingProtected lists the protected paths in the workspace that do not
// exist.
func missingProtected(workspace string, protected []string) []missingPath {
	root, err := os.OpenRoot(workspace)
	if err != nil {
		return nil
	}
	defer root.Close()
	var out []missingPath
	for _, p := range protected {
		rel, ok := helper.RelInside(workspace, p)
		if !ok || rel == "." {
			continue
		}
		parts := strings.Split(rel, string(filepath.Separator))
		for i := range parts {
			if _, err := root.Lstat(filepath.Join(parts[:i+1]...)); err != nil {
				if errors.Is(err, os.ErrNotExist) {
					out = append(out, missingPath{parts: parts, first: i})
				}
				break
			}
		}
	}
	return out
}

// removeCreated removes what the command created at missing paths and
// returns those. From the first component that did not exist, a directory
// the command made is walked into; anything else there (the protected
// path itself, or a symlink or file where a directory was) is removed. It
// works through an os.Root, so nothing outside the workspace is touched,
// and runs when every process of the command is gone.
func removeCreated(workspace string, missing []missingPath) []string {
	if len(missing) == 0 {
		return nil
	}
	root, err := os.OpenRoot(workspace)
	if err != nil {
		return nil
	}
	defer root.Close()
	var removed []string
	for _, m := range missing {
		for i := m.first; i < len(m.parts); i++ {
			rel := filepath.Join(m.parts[:i+1]...)
			fi, err := root.Lstat(rel)
			if err != nil {
				break // not created (or gone already)
			}
			if i < len(m.parts)-1 && fi.IsDir() {
				continue
			}
			if err := root.RemoveAll(rel); err != nil {
				sdk.Logger().Warn("terminal: cannot remove a protected path the command created", "path", rel, "error", err)
			} else {
				removed = append(removed, filepath.Join(workspace, rel))
			}
			break
		}
	}
	return removed
}
