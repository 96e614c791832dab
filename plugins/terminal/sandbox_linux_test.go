package terminal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/harness-agent/harness/internal/sandboxtest"
	"github.com/harness-agent/harness/sdk"
)

// The tests of the sandbox's promises (docs/security.md, "Terminal
// sandbox"). Each runs the attack through the real plugin binary, checks
// that its side effect did not happen, and, where that makes the test
// meaningful, that the same attempt does work unsandboxed.

// requireSandbox skips a test of the full sandbox where this kernel cannot
// set it up, saying what is missing.
func requireSandbox(t testing.TB) {
	t.Helper()
	tmp, err := privateTemp()
	if err != nil {
		t.Fatal(err)
	}
	if err := namespaceSupport(t.TempDir(), tmp); err != nil {
		t.Skipf("no namespaced sandbox on this kernel: %v", err)
	}
	if err := sandboxAvailable(); err != nil {
		t.Skipf("no Landlock sandbox on this kernel: %v", err)
	}
}

// sandboxedPlugin is the plugin binary configured with cfg on a new
// workspace, with protected paths; it returns the workspace and the plugin's pid.
func sandboxedPlugin(t *testing.T, cfg string, protected []string, env ...string) (*sdk.ToolClient, string, int) {
	t.Helper()
	requireSandbox(t)
	ws := t.TempDir()
	tc, client := startPlugin(t, env...)
	if err := tc.Configure(context.Background(), sdk.PluginConfig{Workspace: ws, Config: json.RawMessage(cfg), Protected: protected}); err != nil {
		t.Fatalf("configure %s: %v", cfg, err)
	}
	return tc, ws, client.ReattachConfig().Pid
}

// reconfigure gives the running plugin another config on the same workspace.
func reconfigure(t *testing.T, tc *sdk.ToolClient, ws, cfg string, protected []string) {
	t.Helper()
	if err := tc.Configure(context.Background(), sdk.PluginConfig{Workspace: ws, Config: json.RawMessage(cfg), Protected: protected}); err != nil {
		t.Fatalf("configure %s: %v", cfg, err)
	}
}

func runIn(t *testing.T, tc *sdk.ToolClient, command string) sdk.Result {
	t.Helper()
	res, err := tc.Execute(context.Background(), call(command, 0), nil)
	if err != nil {
		t.Fatalf("execute %q: %v", command, err)
	}
	if res.Err != nil {
		t.Fatalf("execute %q: %v (%s)", command, res.Err, res.Content)
	}
	return res
}

// withProbe copies the probe binary into the workspace and returns its
// path there (the sandbox hides the host's /tmp, where it was built).
func withProbe(t *testing.T, ws string) string {
	t.Helper()
	b, err := os.ReadFile(probeBinary)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(ws, "sandboxprobe")
	if err := os.WriteFile(p, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// fileState is what a canary file looks like: any change to its content
// or metadata shows.
type fileState struct {
	content      string
	mode         os.FileMode
	uid, gid     uint32
	mtime, ctime unix.Timespec
	xattr        bool
}

func stateOf(t *testing.T, path string) fileState {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("canary %s: %v", path, err)
	}
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	_, xerr := unix.Getxattr(path, "user.sandbox", nil)
	return fileState{string(b), os.FileMode(st.Mode), st.Uid, st.Gid, st.Mtim, st.Ctim, xerr == nil}
}

func canary(t *testing.T, path string) fileState {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("canary "+path), 0o644); err != nil {
		t.Fatal(err)
	}
	return stateOf(t, path)
}

func assertUnchanged(t *testing.T, path string, before fileState) {
	t.Helper()
	if after := stateOf(t, path); after != before {
		t.Errorf("%s changed: before %+v, after %+v", path, before, after)
	}
}

// TestSandboxProtectedPaths: a sandboxed command cannot replace, edit,
// truncate, remove, rename, chmod or touch a protected path — the config,
// the session store, a plugin binary in the workspace, the harness binary
// outside it — nor move a protected file's directory away and put a
// forgery in its place; the rest of the workspace stays writable.
func TestSandboxProtectedPaths(t *testing.T) {
	t.Parallel()
	outside := outsideDir(t)
	ws := t.TempDir()
	paths := map[string]string{
		"config":        filepath.Join(ws, "agent.hcl"),
		"store":         filepath.Join(ws, ".harness", "harness.db"),
		"plugin binary": filepath.Join(ws, "plugins", "bin", "harness-tool-x"),
		"harness":       filepath.Join(outside, "bin", "harness"),
	}
	states := map[string]fileState{}
	for _, p := range paths {
		states[p] = canary(t, p)
	}
	// Protected paths that do not exist (yet): a lock file, a plugin not
	// built so far, one in a folder that does not exist either.
	missing := []string{filepath.Join(ws, ".harness.lock.hcl"), filepath.Join(ws, "plugins", "bin", "harness-tool-new"),
		filepath.Join(ws, "gen", "sub", "harness-tool-gen"), filepath.Join(ws, "link", "harness-tool-link")}
	protected := append([]string{paths["config"], filepath.Join(ws, ".harness"), paths["plugin binary"], paths["harness"]}, missing...)
	tc, _ := startPlugin(t)
	reconfigure(t, tc, ws, `{}`, protected)
	requireSandbox(t)

	attacks := []string{
		"echo evil > agent.hcl", "echo evil >> agent.hcl", "sed -i s/canary/evil/ agent.hcl", ": > agent.hcl",
		"truncate -s 0 agent.hcl", "rm -f agent.hcl", "mv agent.hcl moved.hcl", "ln -f evil agent.hcl",
		"chmod 777 agent.hcl", "touch -d 2001-01-01 agent.hcl", "ln agent.hcl hardlink.hcl && echo evil >> hardlink.hcl",
		"echo evil > .harness/harness.db", "rm -rf .harness", "mv .harness h2 && mkdir .harness && echo evil > .harness/harness.db",
		"touch .harness/harness.db-wal",
		"cp /bin/sh plugins/bin/harness-tool-x", "mv plugins p2 && mkdir -p plugins/bin && echo evil > plugins/bin/harness-tool-x",
		"mv plugins/bin plugins/b2 && mkdir plugins/bin && echo evil > plugins/bin/harness-tool-x",
		"rm -rf plugins",
		"cp /bin/sh " + paths["harness"], "echo evil > " + paths["harness"], "mv " + paths["harness"] + " " + outside,
		"rm -f " + paths["harness"],
	}
	for _, a := range attacks {
		res := runIn(t, tc, "echo evil > evil; "+a)
		if strings.HasSuffix(res.Content, "exit code: 0") {
			t.Errorf("%q succeeded: %s", a, res.Content)
		}
	}
	for _, p := range paths {
		assertUnchanged(t, p, states[p])
	}
	if _, err := os.Stat(filepath.Join(ws, ".harness", "harness.db-wal")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file was created in the protected store directory: %v", err)
	}

	// A missing protected path the command creates is removed after it,
	// with a note; its existing folders cannot be moved meanwhile.
	for _, a := range []string{
		"echo evil > .harness.lock.hcl",
		"cp evil plugins/bin/harness-tool-new",
		"mkdir -p gen/sub && cp evil gen/sub/harness-tool-gen",
		"ln -s " + outside + " link", // link/harness-tool-link: a file outside
		"mkdir -p gen/sub/harness-tool-gen/deeper",
		"rm -rf gen && ln -s " + outside + " gen",
	} {
		res := runIn(t, tc, "echo evil > evil; "+a)
		if strings.Contains(a, "harness-tool-gen") || strings.Contains(a, "lock") || strings.Contains(a, "new") {
			if !strings.Contains(res.Content, "a protected path it must not create; it was removed") {
				t.Errorf("%q: no note of the removal: %s", a, res.Content)
			}
		}
	}
	for _, p := range missing {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s exists after the sandboxed command created it: %v", p, err)
		}
	}
	// The folders the command made on the way stay; the symlink did not.
	if fi, err := os.Lstat(filepath.Join(ws, "gen", "sub")); err != nil || !fi.IsDir() {
		t.Errorf("gen/sub, a folder the command made, is gone: %v", err)
	}
	outsideFile := canary(t, filepath.Join(outside, "harness-tool-link"))
	runIn(t, tc, "ln -s "+outside+" link")
	if _, err := os.Lstat(filepath.Join(ws, "link")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the symlink in place of a protected path's folder was not removed: %v", err)
	}
	assertUnchanged(t, filepath.Join(outside, "harness-tool-link"), outsideFile)
	res := runIn(t, tc, "mv plugins/bin plugins/b3 && mkdir plugins/bin && echo evil > plugins/bin/harness-tool-new")
	if strings.HasSuffix(res.Content, "exit code: 0") || strings.Contains(res.Content, "it was removed") {
		t.Errorf("the folder of a missing protected path moved: %s", res.Content)
	}
	// The rest of the workspace, the protected paths' directories included,
	// is writable.
	res = runIn(t, tc, "echo ok > plugins/bin/other && mkdir -p src && echo ok > src/a && rm evil && echo done")
	if !strings.HasSuffix(res.Content, "done\nexit code: 0") {
		t.Errorf("writes in the workspace failed: %s", res.Content)
	}

	// Control: unsandboxed, the same edit works.
	reconfigure(t, tc, ws, `{"sandbox": "off"}`, protected)
	runIn(t, tc, "echo evil > agent.hcl")
	if b, _ := os.ReadFile(paths["config"]); string(b) != "evil\n" {
		t.Errorf("unsandboxed, the config was not written: %q", b)
	}
}

// TestSandboxMetadataOutside: chmod, chown, utime and setxattr on a file
// outside the workspace fail (Landlock alone would let them through).
func TestSandboxMetadataOutside(t *testing.T) {
	t.Parallel()
	outside := outsideDir(t)
	target := filepath.Join(outside, "canary")
	before := canary(t, target)
	tc, ws, _ := sandboxedPlugin(t, `{}`, nil)
	probe := withProbe(t, ws)
	for _, a := range []string{
		"chmod 777 " + target, "chown 12345:12345 " + target, "touch -d 2001-01-01 " + target, "touch -a " + target,
		probe + " setxattr " + target, "chmod 700 " + outside, "touch " + outside,
	} {
		res := runIn(t, tc, a)
		if strings.HasSuffix(res.Content, "exit code: 0") {
			t.Errorf("%q succeeded: %s", a, res.Content)
		}
	}
	assertUnchanged(t, target, before)

	// Control: unsandboxed, chmod works (and so would the rest).
	reconfigure(t, tc, ws, `{"sandbox": "off"}`, nil)
	runIn(t, tc, "chmod 600 "+target)
	if stateOf(t, target).mode == before.mode {
		t.Error("unsandboxed, chmod did not change the mode")
	}
}

// listenUnix listens on a UNIX socket outside the sandbox: a pathname
// socket (in a directory outside the workspace) or an abstract one (@…).
func listenUnix(t *testing.T, addr string) *net.UnixListener {
	t.Helper()
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: addr, Net: "unix"})
	if err != nil {
		t.Fatalf("listen on %s: %v", addr, err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// TestSandboxUnixSockets: a command cannot drive a daemon outside over its
// UNIX socket, be it a pathname socket (tmux, docker) or an abstract one.
func TestSandboxUnixSockets(t *testing.T) {
	t.Parallel()
	outside := outsideDir(t)
	listeners := map[string]*net.UnixListener{
		filepath.Join(outside, "daemon.sock"):                                               nil,
		"@harness-sandbox-test-" + strconv.Itoa(os.Getpid()) + "-" + filepath.Base(outside): nil,
	}
	for addr := range listeners {
		listeners[addr] = listenUnix(t, addr)
	}
	tc, ws, _ := sandboxedPlugin(t, `{"network": true}`, nil)
	probe := withProbe(t, ws)
	for addr, l := range listeners {
		res := runIn(t, tc, probe+" unix "+addr)
		if !strings.Contains(res.Content, "probe failed") || sandboxtest.Connected(t, l) {
			t.Errorf("sandboxed, the connection to %s went through: %s", addr, res.Content)
		}
	}
	// Control: unsandboxed, both connect.
	reconfigure(t, tc, ws, `{"sandbox": "off"}`, nil)
	for addr, l := range listeners {
		res := runIn(t, tc, probe+" unix "+addr)
		if !strings.Contains(res.Content, "probe succeeded") || !sandboxtest.Connected(t, l) {
			t.Errorf("unsandboxed, the connection to %s failed: %s", addr, res.Content)
		}
	}
}

// TestSandboxSignals: a command cannot signal the plugin (the host's
// process tree) nor a sibling process outside its own tree.
func TestSandboxSignals(t *testing.T) {
	t.Parallel()
	siblingPid, end := sandboxtest.StartSibling(t)
	tc, _, pluginPid := sandboxedPlugin(t, `{}`, nil)

	for _, a := range []string{
		fmt.Sprintf("kill -KILL %d", siblingPid),
		fmt.Sprintf("kill -USR1 %d", pluginPid), // the Go runtime's default: die
		fmt.Sprintf("kill -CONT %d", os.Getpid()),
		"kill -KILL -1; echo after",
	} {
		res := runIn(t, tc, a)
		if strings.HasSuffix(res.Content, "exit code: 0") && !strings.Contains(res.Content, "after") {
			t.Errorf("%q succeeded: %s", a, res.Content)
		}
	}
	if sig := end(); sig != syscall.SIGTERM {
		t.Errorf("the sibling was ended by %v, not by the test's SIGTERM", sig)
	}
	// The plugin still answers.
	if res := runIn(t, tc, "echo alive"); !strings.Contains(res.Content, "alive") {
		t.Errorf("the plugin: %s", res.Content)
	}
}

// TestSandboxProcessesOutsideAreInvisible: a command cannot read the
// environment, memory, command line or file descriptors of the plugin or
// the host, and sees only its own processes in /proc.
func TestSandboxProcessesOutsideAreInvisible(t *testing.T) {
	t.Parallel()
	// The plugin has it; its commands' environment is scrubbed of it.
	const secret = "sandbox-canary-f00d"
	tc, _, pluginPid := sandboxedPlugin(t, `{}`, nil, "CANARY_API_KEY="+secret)
	for _, pid := range []int{pluginPid, os.Getpid(), os.Getppid()} {
		for _, f := range []string{"environ", "cmdline", "maps", "mem", "fd"} {
			res := runIn(t, tc, fmt.Sprintf("cat /proc/%d/%s; ls -l /proc/%d/%s", pid, f, pid, f))
			if strings.Contains(res.Content, secret) {
				t.Errorf("pid %d %s leaked: %s", pid, f, res.Content)
			}
		}
	}
	res := runIn(t, tc, "cat /proc/*/environ /proc/*/cmdline | tr '\\0' '\\n'; ls /proc | grep -c '^[0-9]' | sed 's/^/processes=/'")
	if strings.Contains(res.Content, secret) {
		t.Errorf("a process outside is visible: %s", res.Content)
	}
	// The helper, bash, ls, grep and sed: a handful, not the machine's. The
	// count is found by its line's prefix: cat's complaints about processes that
	// ended meanwhile may land anywhere in the output.
	i := strings.LastIndex(res.Content, "\nprocesses=")
	if i < 0 {
		t.Fatalf("no process count in the output:\n%s", res.Content)
	}
	count, _, _ := strings.Cut(res.Content[i+len("\nprocesses="):], "\n")
	if n, err := strconv.Atoi(strings.TrimSpace(count)); err != nil || n > 6 {
		t.Errorf("the command sees %q processes:\n%s", count, res.Content)
	}
}

// TestSandboxNetwork: without permissions.network a command reaches no
// listener on the host, not even on loopback; with it, it does.
func TestSandboxNetwork(t *testing.T) {
	t.Parallel()
	l, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	addr := l.Addr().(*net.TCPAddr)
	tc, ws, _ := sandboxedPlugin(t, `{}`, nil)
	probe := withProbe(t, ws)
	attempts := []string{
		fmt.Sprintf("echo hi > /dev/tcp/127.0.0.1/%d", addr.Port),
		fmt.Sprintf("%s tcp 127.0.0.1:%d", probe, addr.Port),
	}
	if _, err := exec.LookPath("curl"); err == nil {
		attempts = append(attempts, fmt.Sprintf("curl -sS -m 5 http://127.0.0.1:%d/", addr.Port))
	}
	for _, a := range attempts {
		res := runIn(t, tc, a)
		if strings.HasSuffix(res.Content, "exit code: 0") || sandboxtest.Connected(t, l) {
			t.Errorf("without network, %q connected: %s", a, res.Content)
		}
	}
	// Loopback inside the sandbox works.
	res := runIn(t, tc, "ip -br addr show lo 2>/dev/null || cat /sys/class/net/lo/operstate")
	if strings.Contains(res.Content, "DOWN") || strings.Contains(res.Content, "down") {
		t.Errorf("loopback in the sandbox: %s", res.Content)
	}

	reconfigure(t, tc, ws, `{"network": true}`, nil)
	res = runIn(t, tc, attempts[1])
	if !strings.Contains(res.Content, "probe succeeded") || !sandboxtest.Connected(t, l) {
		t.Errorf("with network = true, the connection failed: %s", res.Content)
	}
}

// TestSandboxTempIsPrivate: the command's /tmp is the plugin's own temp
// dir, kept between commands; the host's /tmp and what is in it are hidden.
func TestSandboxTempIsPrivate(t *testing.T) {
	t.Parallel()
	hostTmp, err := os.MkdirTemp("", "terminal-host-tmp-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(hostTmp) })
	tc, ws, _ := sandboxedPlugin(t, `{}`, nil)
	res := runIn(t, tc, fmt.Sprintf(`echo $TMPDIR; echo x > /tmp/kept; ls -d %s 2>&1; echo x > %s/planted`, hostTmp, hostTmp))
	// stdout and stderr interleave in any order: look for the lines.
	if !strings.Contains("\n"+res.Content, "\n/tmp\n") || !strings.Contains(res.Content, "No such file or directory") {
		t.Errorf("the host's temp dir is visible: %s", res.Content)
	}
	if _, err := os.Stat(filepath.Join(hostTmp, "planted")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file was planted in the host's temp dir: %v", err)
	}
	if res := runIn(t, tc, "cat /tmp/kept"); !strings.HasPrefix(res.Content, "x\n") {
		t.Errorf("the temp dir was not kept between commands: %s", res.Content)
	}
	// A workspace in the host's /tmp has its mount point in the private
	// /tmp: a symlink planted there does not redirect the next command.
	if rel, err := filepath.Rel("/tmp", ws); err == nil && !strings.HasPrefix(rel, "..") {
		first := filepath.Join("/tmp", strings.Split(rel, "/")[0])
		if res := runIn(t, tc, fmt.Sprintf("mv %s /tmp/moved && ln -s / %s && echo planted", first, first)); !strings.Contains(res.Content, "planted\n") {
			t.Fatalf("could not plant the symlink: %s", res.Content)
		}
		res := runIn(t, tc, "pwd && touch planted-check && echo inside")
		if !strings.Contains(res.Content, "inside\n") {
			t.Errorf("after a planted symlink: %s", res.Content)
		}
		if _, err := os.Stat(filepath.Join(ws, "planted-check")); err != nil {
			t.Errorf("the command did not run in the workspace: %v", err)
		}
	}
}

// TestSandboxNoCapabilities: the command holds no capability, so it cannot
// undo its mounts, and cannot use set-user-ID programs to regain any.
func TestSandboxNoCapabilities(t *testing.T) {
	t.Parallel()
	tc, ws, _ := sandboxedPlugin(t, `{}`, []string{})
	res := runIn(t, tc, "grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs|Seccomp):' /proc/self/status; "+
		"mount -o remount,rw / 2>&1; umount "+ws+" 2>&1; echo end")
	for _, want := range []string{"CapInh:\t0000000000000000", "CapPrm:\t0000000000000000", "CapEff:\t0000000000000000",
		"CapBnd:\t0000000000000000", "CapAmb:\t0000000000000000", "NoNewPrivs:\t1", "Seccomp:\t2"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("want %q in %s", want, res.Content)
		}
	}
	if !bytes.Contains([]byte(res.Content), []byte("end\nexit code: 0")) {
		t.Errorf("content: %s", res.Content)
	}
	if res := runIn(t, tc, "touch x && echo ok"); !strings.Contains(res.Content, "ok") {
		t.Errorf("the workspace mount is gone: %s", res.Content)
	}
}

// openPty opens a pseudo-terminal on the host, standing for the person's
// terminal, and returns its master (non-blocking) and its slave's path.
func openPty(t *testing.T) (int, string) {
	t.Helper()
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	return fd, "/dev/pts/" + strconv.Itoa(n)
}

// TestSandboxNoTerminal: a command can neither write to the person's
// terminal (escape sequences, a repainted prompt) nor type into it
// (TIOCSTI): it has no controlling terminal, and the host's ptys are not
// in its /dev/pts. It can still make pseudo-terminals of its own.
func TestSandboxNoTerminal(t *testing.T) {
	t.Parallel()
	master, slave := openPty(t)
	tc, _, _ := sandboxedPlugin(t, `{}`, nil)
	res := runIn(t, tc, fmt.Sprintf("printf 'evil\\033]52;c;ZXZpbA==\\a' > /dev/tty; printf evil > %s; ls /dev/pts; "+
		"script -qec 'tty' /dev/null 2>&1 || python3 -c 'import os; print(os.ttyname(os.openpty()[1]))'", slave))
	if !strings.Contains(res.Content, "/dev/tty: No such device or address") || !strings.Contains(res.Content, slave+": ") {
		t.Errorf("the command reached a terminal: %s", res.Content)
	}
	if !strings.Contains(res.Content, "/dev/pts/0") {
		t.Errorf("the command cannot make a pseudo-terminal of its own: %s", res.Content)
	}
	buf := make([]byte, 64)
	if n, err := unix.Read(master, buf); n > 0 || !errors.Is(err, unix.EAGAIN) {
		t.Errorf("the host's terminal got %q (%v)", buf[:max(n, 0)], err)
	}

	// Control: unsandboxed, the same write reaches it.
	reconfigure(t, tc, t.TempDir(), `{"sandbox": "off"}`, nil)
	runIn(t, tc, "printf evil > "+slave)
	if n, _ := unix.Read(master, buf); string(buf[:max(n, 0)]) != "evil" {
		t.Errorf("unsandboxed, the host's terminal got %q", buf[:max(n, 0)])
	}
}

// TestSandboxIPCAndKeys: a command reaches neither the System V IPC
// objects of processes outside (shared memory they could read) nor the
// kernel keyrings (the keys of your user).
func TestSandboxIPCAndKeys(t *testing.T) {
	t.Parallel()
	const key = 0x4852534e // an IPC key of this test's own
	shm, err := unix.SysvShmGet(key, 4096, unix.IPC_CREAT|0o600)
	if err != nil {
		t.Skipf("no System V shared memory here: %v", err)
	}
	t.Cleanup(func() { unix.SysvShmCtl(shm, unix.IPC_RMID, nil) })
	const secret = "s3cret-key-payload"
	keyID, err := unix.AddKey("user", "harness-sandbox-canary", []byte(secret), unix.KEY_SPEC_SESSION_KEYRING)
	if err != nil {
		t.Skipf("no session keyring here: %v", err)
	}
	t.Cleanup(func() { unix.KeyctlInt(unix.KEYCTL_UNLINK, keyID, unix.KEY_SPEC_SESSION_KEYRING, 0, 0) })
	// Readable by its owner's uid, not only by who possesses it.
	if err := unix.KeyctlSetperm(keyID, 0x3f3f0000); err != nil {
		t.Fatal(err)
	}
	tc, ws, _ := sandboxedPlugin(t, `{}`, nil)
	look := fmt.Sprintf("ipcs -m; %s readkey %d", withProbe(t, ws), keyID)
	res := runIn(t, tc, look)
	if strings.Contains(res.Content, fmt.Sprintf("0x%08x", key)) || strings.Contains(res.Content, secret) {
		t.Errorf("the command reaches what is outside: %s", res.Content)
	}
	// Control: unsandboxed, both are there.
	reconfigure(t, tc, ws, `{"sandbox": "off"}`, nil)
	res = runIn(t, tc, look)
	if !strings.Contains(res.Content, fmt.Sprintf("0x%08x", key)) || !strings.Contains(res.Content, secret) {
		t.Errorf("unsandboxed, the command does not reach them: %s", res.Content)
	}
}

// TestPrivateTempOfADeadPluginIsRemoved: a plugin killed before its
// shutdown leaves its private temp dir behind; the next plugin to make one
// removes it (and leaves those of live plugins alone).
func TestPrivateTempOfADeadPluginIsRemoved(t *testing.T) {
	t.Parallel()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	stale, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", privateTempPrefix, dead.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(stale) })
	if err := os.WriteFile(filepath.Join(stale, "left"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	live, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", privateTempPrefix, os.Getppid()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(live) })
	tc, _, _ := sandboxedPlugin(t, `{}`, nil)
	runIn(t, tc, "true")
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dead plugin's temp dir is still there: %v", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a live process's temp dir was removed: %v", err)
	}
}

// TestSandboxInheritsOnlyStdio: the shell gets stdin, stdout and stderr
// and no other descriptor of the helper (its control socket, the O_PATH
// and mount-tree descriptors of the sandbox's set-up, the Landlock
// ruleset, one the plugin inherited without close-on-exec), sandboxed or
// not; nor the helper's environment marker.
func TestSandboxInheritsOnlyStdio(t *testing.T) {
	// Not parallel: the plugins other tests start would inherit the
	// descriptor too.
	leak, err := unix.Open(os.DevNull, unix.O_RDONLY, 0) // no O_CLOEXEC
	if err != nil {
		t.Fatal(err)
	}
	tc, ws, _ := sandboxedPlugin(t, `{}`, nil)
	unix.Close(leak) // the plugin has its copy
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	// ls opens /proc/self/fd at the lowest free descriptor: 3 when the
	// shell inherited nothing beyond stdio.
	const command = "env | grep -c HARNESS_TERMINAL_HELPER; exec ls -1 /proc/self/fd"
	for _, cfg := range []string{`{}`, `{"sandbox": "off"}`} {
		reconfigure(t, tc, ws, cfg, []string{filepath.Join(ws, ".git")})
		res := runIn(t, tc, command)
		if !strings.HasPrefix(res.Content, "0\n0\n1\n2\n3\nexit code: 0") {
			t.Errorf("%s: the command inherited more than stdio, or the marker: %s", cfg, res.Content)
		}
	}
}
