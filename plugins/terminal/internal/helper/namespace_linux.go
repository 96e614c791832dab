package helper

import (
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// The namespaced sandbox. The plugin starts the helper in new user, mount,
// PID, IPC (no System V shared memory, semaphores or message queues of
// processes outside) and (unless the agent allows the network) network
// namespaces; the
// helper, PID 1 there, rebuilds its view of the file system before it
// starts the shell:
//
//	/                    every mount read-only (mount_setattr, recursively)
//	workspace            the real directory, writable (a clone of its mount
//	                     tree taken before / turned read-only)
//	protected paths      in the workspace: read-only bind mounts; each of
//	                     their ancestors below the workspace is a mount
//	                     point of its own, so it cannot be renamed away
//	/tmp                 the plugin's private temp dir (the host's /tmp and
//	                     the daemon sockets in it are hidden)
//	/dev/shm             a fresh tmpfs
//	/dev/pts, /dev/ptmx  a devpts instance of its own (the host's ptys,
//	                     the person's terminal among them, are hidden)
//	/proc                a fresh procfs: only the sandbox's own processes
//
// A read-only mount refuses every change to files beneath it, metadata
// included (chmod, chown, utimes, setxattr), which Landlock does not
// govern. The helper then drops every capability, so the command cannot
// undo any of it.

// enterNamespaces builds the sandbox's file system view and network (see
// above). It runs in the helper, PID 1 of the new namespaces.
func enterNamespaces(opts helperOptions) error {
	if os.Getpid() != 1 {
		return errors.New("the helper is not the first process of a PID namespace of its own")
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make the mounts private: %w", err)
	}
	// The workspace's real path, resolved while the host's /tmp is in view.
	wsPath := RealPath(opts.workspace)
	// Clones of the writable trees, taken while they are still writable.
	ws, err := cloneTree(wsPath)
	if err != nil {
		return err
	}
	defer unix.Close(ws)
	tmp, err := cloneTree(opts.tmp)
	if err != nil {
		return err
	}
	defer unix.Close(tmp)

	if err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE,
		&unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID}); err != nil {
		return fmt.Errorf("make / read-only: %w", err)
	}
	if err := attach(tmp, "/tmp"); err != nil {
		return err
	}
	if isDir("/dev/shm") {
		if err := unix.Mount("tmpfs", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777"); err != nil {
			return fmt.Errorf("mount a tmpfs on /dev/shm: %w", err)
		}
	}
	if err := privatePtys(); err != nil {
		return err
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount a procfs of the sandbox's own on /proc: %w", err)
	}
	// A workspace in /tmp lies in the temp dir just mounted: it needs a
	// mount point there.
	if err := mountPoint(wsPath); err != nil {
		return fmt.Errorf("mount point for the workspace: %w", err)
	}
	if err := attach(ws, wsPath); err != nil {
		return err
	}
	if err := protect(wsPath, opts.protect); err != nil {
		return err
	}
	if !opts.network {
		if err := loopbackUp(); err != nil {
			return err
		}
	}
	// Nothing in the sandbox may read the helper's memory: it holds
	// capabilities in the namespaces on its other threads.
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("make the helper non-dumpable: %w", err)
	}
	return nil
}

// privatePtys mounts a devpts instance of the sandbox's own on /dev/pts
// (and its ptmx on /dev/ptmx): the command can open pseudo-terminals, but
// not the host's — the person's terminal among them.
func privatePtys() error {
	if !isDir("/dev/pts") {
		return nil
	}
	if err := unix.Mount("devpts", "/dev/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620"); err != nil {
		return fmt.Errorf("mount a devpts of the sandbox's own on /dev/pts: %w", err)
	}
	if fi, err := os.Lstat("/dev/ptmx"); err != nil || fi.Mode()&os.ModeSymlink != 0 {
		return nil // missing, or a link to pts/ptmx already
	}
	ptmx, err := cloneTree("/dev/pts/ptmx")
	if err != nil {
		return err
	}
	defer unix.Close(ptmx)
	return attach(ptmx, "/dev/ptmx")
}

// mountPoint makes sure the directory path exists, for a mount on it.
// Under /tmp (the sandbox's own temp dir, which earlier commands wrote)
// whatever is not a directory on the way — a symlink planted to redirect
// the mount — is removed first.
func mountPoint(dir string) error {
	cur := "/"
	for _, part := range strings.Split(strings.TrimPrefix(path.Clean(dir), "/"), "/") {
		if part == "" {
			continue
		}
		cur = path.Join(cur, part)
		fi, err := os.Lstat(cur)
		switch {
		case err == nil && fi.IsDir():
			continue
		case err == nil && !strings.HasPrefix(cur, "/tmp/"):
			continue // the host's own symlink: followed, as the host does
		case err == nil:
			if err := os.RemoveAll(cur); err != nil {
				return err
			}
		case !errors.Is(err, os.ErrNotExist):
			return err
		}
		if err := os.Mkdir(cur, 0o700); err != nil {
			return err
		}
	}
	return nil
}

// cloneTree returns a detached copy of the mount tree at path.
func cloneTree(path string) (int, error) {
	fd, err := unix.OpenTree(unix.AT_FDCWD, path, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
	if err != nil {
		return -1, fmt.Errorf("clone the mount of %s: %w", path, err)
	}
	return fd, nil
}

// attach mounts the detached tree fd on path.
func attach(fd int, path string) error {
	if err := unix.MoveMount(fd, "", unix.AT_FDCWD, path, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("mount on %s: %w", path, err)
	}
	return nil
}

// bindSelf mounts path on itself, read-only if asked.
func bindSelf(path string, readOnly bool) error {
	fd, err := cloneTree(path)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if readOnly {
		if err := unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE,
			&unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
			return fmt.Errorf("make %s read-only: %w", path, err)
		}
	}
	return attach(fd, path)
}

// protect makes the protected paths in the workspace read-only. Paths
// outside it are read-only with the rest of /. The directories between the
// workspace and a protected path become mount points too: a mount point
// cannot be renamed or removed, so the command cannot move a protected
// path's parent away and put a forgery in its place. A path that does not
// exist cannot be a mount point: its existing directories are pinned the
// same way, and the plugin removes what the command creates there
// (removeCreated).
func protect(workspace string, paths []string) error {
	// Compared as real paths: the host may send them resolved or not.
	workspace = RealPath(workspace)
	var readOnly, pinned []string
	for _, p := range paths {
		if real, err := resolve(p); err == nil {
			if _, ok := RelInside(workspace, real); ok {
				readOnly = append(readOnly, real)
			}
			continue
		}
		// Missing: the plugin removes it should the command create it;
		// its directories, down to the first missing one, must stay put.
		rel, ok := RelInside(workspace, p)
		if !ok {
			continue
		}
		dir := workspace
		for _, part := range strings.Split(path.Dir(rel), "/") {
			if part == "." {
				break
			}
			dir = path.Join(dir, part)
			if !isDir(dir) {
				break
			}
			pinned = append(pinned, dir)
		}
	}
	// Shallow paths first: a protected directory is read-only before the
	// paths beneath it are handled.
	byDepth := func(a, b string) int { return strings.Count(a, "/") - strings.Count(b, "/") }
	slices.SortFunc(readOnly, byDepth)
	done := map[string]bool{}
	pin := func(dir string) error {
		if done[dir] {
			return nil
		}
		done[dir] = true
		return bindSelf(dir, false)
	}
	for _, p := range readOnly {
		if done[p] {
			continue
		}
		rel, _ := RelInside(workspace, p)
		if rel != "." {
			dir := workspace
			parts := strings.Split(rel, "/")
			for _, part := range parts[:len(parts)-1] {
				dir = path.Join(dir, part)
				if err := pin(dir); err != nil {
					return fmt.Errorf("protect %s: %w", p, err)
				}
			}
		}
		if err := bindSelf(p, true); err != nil {
			return fmt.Errorf("protect %s: %w", p, err)
		}
		done[p] = true
	}
	slices.SortFunc(pinned, byDepth)
	for _, dir := range pinned {
		if err := pin(dir); err != nil {
			return fmt.Errorf("protect %s: %w", dir, err)
		}
	}
	return nil
}

// loopbackUp brings up lo, the only interface of a new network namespace.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback: get flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback: bring up: %w", err)
	}
	return nil
}

// dropCapabilities leaves the calling thread, and the shell it forks,
// without any capability, now or after an exec (even of a set-user-ID or
// file-capability program, which no_new_privs already disarms).
func dropCapabilities() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clear the ambient capabilities: %w", err)
	}
	for c := 0; ; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			if errors.Is(err, unix.EINVAL) && c > unix.CAP_SETPCAP {
				break // past the last capability the kernel knows
			}
			return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("drop the capabilities: %w", err)
	}
	return nil
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// RelInside is p relative to workspace, if it lies inside it (compared
// both as given and with the workspace's symlinks resolved). Both are
// absolute paths.
func RelInside(workspace, p string) (string, bool) {
	for _, ws := range []string{workspace, RealPath(workspace)} {
		if rel, ok := relBeneath(ws, p); ok {
			return rel, true
		}
	}
	return "", false
}

// relBeneath is filepath.Rel(base, p) where that does not climb out of
// base (neither ".." nor "../…"), lexically, as filepath.Rel is. The
// helper does without path/filepath: see the package comment.
func relBeneath(base, p string) (string, bool) {
	base, p = path.Clean(base), path.Clean(p)
	switch {
	case path.IsAbs(base) != path.IsAbs(p):
		return "", false
	case base == p:
		return ".", true
	case base == "/":
		return p[1:], true
	case base == "." && climbs(p):
		return "", false
	case base == ".":
		return p, true
	}
	if rel, ok := strings.CutPrefix(p, base+"/"); ok && !climbs(rel) {
		return rel, true
	}
	return "", false
}

// climbs says whether the clean relative path rel leads out of its base.
func climbs(rel string) bool { return rel == ".." || strings.HasPrefix(rel, "../") }

// RealPath is the absolute path p with its symlinks resolved, or p where
// that fails.
func RealPath(p string) string {
	if real, err := resolve(p); err == nil {
		return real
	}
	return p
}

// resolve is filepath.EvalSymlinks for an absolute path that exists, as
// the kernel resolves it: the path of an O_PATH descriptor of p.
func resolve(p string) (string, error) {
	fd, err := unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", &os.PathError{Op: "open", Path: p, Err: err}
	}
	defer unix.Close(fd)
	return os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
}
