package pluginhost_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/harness-agent/harness/core/pluginhost"
	"github.com/harness-agent/harness/internal/testkit"
	"github.com/harness-agent/harness/sdk"
)

// TestReplacedBinaryIsNotWhatRestarts starts a plugin, kills it and swaps
// its file for a script that creates a canary (by rename, and by rewriting
// it in place, which the kernel allows once nothing runs it): the host
// restarts it from the sealed copy it made of what it verified (third-party)
// or opened (built-in) at first, so the next call is answered and the canary
// never appears.
func TestReplacedBinaryIsNotWhatRestarts(t *testing.T) {
	t.Parallel()
	for _, builtin := range []bool{true, false} {
		for _, how := range []string{"rename", "rewrite"} {
			name := "third_party_" + how
			if builtin {
				name = "builtin_" + how
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				bin := filepath.Join(dir, "plugin")
				testkit.CopyExecutable(t, testPlugin, bin)
				canary := filepath.Join(dir, "canary")
				spec := pluginhost.Spec{Name: "tp", Kind: sdk.PluginTool, Builtin: builtin}
				opts := pluginhost.Options{}
				if builtin {
					opts.SelfExe = bin
				} else {
					spec.Path, spec.SHA256 = bin, sha(t, bin)
				}
				h, err := pluginhost.New(opts)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(h.Close)
				if err := h.Register(spec); err != nil {
					t.Fatal(err)
				}
				if res, err := call(t, h, "tp", "noop"); err != nil || res.Content != "ok" {
					t.Fatalf("first start: %+v %v", res, err)
				}
				first := h.PID("tp")

				// The plugin dies, then its file changes: the restart is
				// the moment a swapped file would run.
				if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				script := "#!/bin/sh\ntouch " + canary + "\n"
				switch how {
				case "rename":
					tmp := filepath.Join(dir, "evil")
					if err := os.WriteFile(tmp, []byte(script), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.Rename(tmp, bin); err != nil {
						t.Fatal(err)
					}
				case "rewrite":
					if err := rewrite(bin, script); err != nil {
						t.Fatal(err)
					}
				}
				// The first call after the kill may meet the dead process.
				res, err := call(t, h, "tp", "noop")
				if err != nil {
					res, err = call(t, h, "tp", "noop")
				}
				if err != nil || res.Content != "ok" {
					t.Fatalf("after the swap: %+v %v", res, err)
				}
				if second := h.PID("tp"); second == first || second == 0 {
					t.Fatalf("the plugin was not restarted (pid %d, then %d)", first, second)
				}
				if _, err := os.Stat(canary); err == nil {
					t.Error("the replaced file ran")
				}
				exe, _ := os.Readlink("/proc/" + strconv.Itoa(h.PID("tp")) + "/exe")
				if !strings.HasPrefix(exe, "/memfd:") {
					t.Errorf("the restarted plugin runs %s, want the sealed copy (/memfd:…)", exe)
				}
				checkProgramFDPrivate(t, h.PID("tp"))
			})
		}
	}
}

// rewrite writes body over the file at path in place, keeping its inode.
func rewrite(path, body string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// checkProgramFDPrivate: the plugin marked descriptor 3, the file it runs,
// close-on-exec, so that the programs it starts do not inherit it. Its
// fdinfo is readable by root only (the plugin is non-dumpable).
func checkProgramFDPrivate(t *testing.T, pid int) {
	t.Helper()
	info, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/fdinfo/3")
	if err != nil {
		t.Logf("cannot read the plugin's fdinfo (%v): close-on-exec not checked", err)
		return
	}
	for _, line := range strings.Split(string(info), "\n") {
		if v, ok := strings.CutPrefix(line, "flags:"); ok {
			flags, err := strconv.ParseUint(strings.TrimSpace(v), 8, 64)
			if err != nil || flags&syscall.O_CLOEXEC == 0 {
				t.Errorf("descriptor 3 of the plugin is not close-on-exec: flags %s", strings.TrimSpace(v))
			}
			return
		}
	}
	t.Errorf("no flags in fdinfo: %q", info)
}
