package helper

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// MinLandlockABI is the oldest Landlock ABI the sandbox accepts: ABI 3
// (Linux 6.2) is the first that also governs truncate(2); with an older one
// a sandboxed command could still truncate files outside the workspace.
const MinLandlockABI = 3

// writeAccess are the Landlock rights that change the file system. Only
// they are handled by the ruleset, so reading and executing stay allowed
// everywhere and writing is allowed only beneath the rule paths.
const writeAccess = unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
	unix.LANDLOCK_ACCESS_FS_REMOVE_DIR |
	unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
	unix.LANDLOCK_ACCESS_FS_MAKE_CHAR |
	unix.LANDLOCK_ACCESS_FS_MAKE_DIR |
	unix.LANDLOCK_ACCESS_FS_MAKE_REG |
	unix.LANDLOCK_ACCESS_FS_MAKE_SOCK |
	unix.LANDLOCK_ACCESS_FS_MAKE_FIFO |
	unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
	unix.LANDLOCK_ACCESS_FS_MAKE_SYM |
	unix.LANDLOCK_ACCESS_FS_REFER | // ABI 2: renames and links across directories
	unix.LANDLOCK_ACCESS_FS_TRUNCATE // ABI 3

// fileWriteAccess are the rights of writeAccess that apply to a file (the
// others are about directory entries).
const fileWriteAccess = unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE

// LandlockABI asks the kernel for its Landlock ABI version; 0 means none
// (not built in, or disabled at boot).
func LandlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// LandlockUsable says why a kernel with Landlock ABI abi cannot enforce
// workspace-write, or nil.
func LandlockUsable(abi int) error {
	switch {
	case abi == 0:
		return fmt.Errorf("this kernel offers no Landlock (it needs Linux 6.2 or newer with Landlock enabled)")
	case abi < MinLandlockABI:
		return fmt.Errorf("this kernel offers Landlock ABI %d; the sandbox needs ABI %d (Linux 6.2) or newer", abi, MinLandlockABI)
	}
	return nil
}

// ScopeABI is the first Landlock ABI (Linux 6.12) with scopes: a scoped
// process cannot signal processes outside its Landlock domain nor connect
// to abstract UNIX sockets created outside it.
const ScopeABI = 6

// rulesetAttr is struct landlock_ruleset_attr up to scoped (ABI 6); older
// kernels get the part they know, up to handled_access_fs.
type rulesetAttr struct {
	handledAccessFS  uint64
	handledAccessNet uint64
	scoped           uint64
}

// restrictWrites confines the calling thread, and every process it forks
// afterwards, to writing beneath paths (directories) or to paths (files).
// Landlock domains and no_new_privs belong to a thread: the caller must
// hold runtime.LockOSThread and fork from the same thread.
func restrictWrites(paths []string) error {
	abi := LandlockABI()
	if err := LandlockUsable(abi); err != nil {
		return err
	}
	attr := rulesetAttr{handledAccessFS: writeAccess}
	size := unsafe.Sizeof(attr.handledAccessFS)
	if abi >= ScopeABI {
		attr.scoped = unix.LANDLOCK_SCOPE_SIGNAL | unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
		size = unsafe.Sizeof(attr)
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return fmt.Errorf("landlock: create ruleset: %w", errno)
	}
	ruleset := int(fd)
	defer unix.Close(ruleset)

	for _, p := range paths {
		if err := allowWrites(ruleset, p); err != nil {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("landlock: set no_new_privs: %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(ruleset), 0, 0); errno != 0 {
		return fmt.Errorf("landlock: restrict: %w", errno)
	}
	return nil
}

func allowWrites(ruleset int, path string) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("landlock: writable path %s: %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("landlock: writable path %s: %w", path, err)
	}
	access := uint64(writeAccess)
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access = fileWriteAccess
	}
	rule := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(fd)}
	if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&rule)), 0, 0, 0); errno != 0 {
		return fmt.Errorf("landlock: allow writes to %s: %w", path, errno)
	}
	return nil
}
