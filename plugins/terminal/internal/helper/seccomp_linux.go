package helper

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The seccomp filter of a sandboxed command closes what neither the mounts
// nor Landlock close: connecting to the UNIX sockets of daemons outside
// (tmux, docker, ssh-agent, D-Bus…). A read-only mount does not stop
// connect(2) on a socket file, and Landlock's scope covers abstract
// sockets only, so the filter refuses socket(AF_UNIX, …) with EACCES.
// socketpair(2) stays allowed: it connects nothing outside. io_uring is
// refused too (ENOSYS, so programs fall back to plain system calls): its
// requests can create sockets without the socket(2) system call the
// filter sees. The kernel's keyrings are refused (EPERM), as Docker's
// default profile does: they are not namespaced, and the keys of your
// user (a Kerberos ticket, an ecryptfs key) are not the command's. System calls of another architecture (32-bit x86 programs
// on amd64, or the x32 ABI) are not allowed at all, since their socket
// calls have other numbers: such a process is killed.

// seccompArch is the audit architecture of this build, 0 where the filter
// is not built (see SeccompBuilt).
var seccompArch = map[string]uint32{
	"amd64": unix.AUDIT_ARCH_X86_64,
	"arm64": unix.AUDIT_ARCH_AARCH64,
}[runtime.GOARCH]

// SeccompBuilt says whether the seccomp filter is built for this
// architecture.
func SeccompBuilt() bool { return seccompArch != 0 }

// x32Bit marks x32 system call numbers on amd64.
const x32Bit = 0x40000000

// Offsets in struct seccomp_data.
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16 // low 32 bits on little-endian machines (amd64, arm64)
)

func stmt(code uint16, k uint32) unix.SockFilter { return unix.SockFilter{Code: code, K: k} }
func jump(code uint16, k uint32, jt, jf uint8) unix.SockFilter {
	return unix.SockFilter{Code: code, Jt: jt, Jf: jf, K: k}
}

// seccompProgram is the filter as BPF.
func seccompProgram() []unix.SockFilter {
	const (
		ld    = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge   = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		ret   = unix.BPF_RET | unix.BPF_K
		allow = unix.SECCOMP_RET_ALLOW
	)
	eacces := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES))
	kill := uint32(unix.SECCOMP_RET_KILL_PROCESS)
	enosys := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS))
	eperm := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	x32 := uint32(0xffffffff) // no system call number reaches it
	if runtime.GOARCH == "amd64" {
		x32 = x32Bit
	}
	return []unix.SockFilter{
		/* 0 */ stmt(ld, offArch),
		/* 1 */ jump(jeq, seccompArch, 1, 0),
		/* 2 */ stmt(ret, kill), // another architecture
		/* 3 */ stmt(ld, offNr),
		/* 4 */ jump(jge, x32, 0, 1),
		/* 5 */ stmt(ret, kill), // x32
		/* 6 */ jump(jeq, unix.SYS_IO_URING_SETUP, 0, 1),
		/* 7 */ stmt(ret, enosys),
		/* 8 */ jump(jeq, unix.SYS_KEYCTL, 2, 0),
		/* 9 */ jump(jeq, unix.SYS_ADD_KEY, 1, 0),
		/* 10 */ jump(jeq, unix.SYS_REQUEST_KEY, 0, 1),
		/* 11 */ stmt(ret, eperm),
		/* 12 */ jump(jeq, unix.SYS_SOCKET, 1, 0),
		/* 13 */ stmt(ret, allow),
		/* 14 */ stmt(ld, offArg0),
		/* 15 */ jump(jeq, unix.AF_UNIX, 0, 1),
		/* 16 */ stmt(ret, eacces),
		/* 17 */ stmt(ret, allow),
	}
}

// installSeccomp applies the filter to the calling thread and what it
// forks afterwards. The caller holds runtime.LockOSThread and has set
// no_new_privs.
func installSeccomp() error {
	if seccompArch == 0 {
		return fmt.Errorf("the seccomp filter is not built for %s", runtime.GOARCH)
	}
	prog := seccompProgram()
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)), 0, 0); err != nil {
		return fmt.Errorf("seccomp: install the filter: %w", err)
	}
	return nil
}
