package procguard

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// Harden marks the process non-dumpable. The flag is inherited by threads
// and forks and reset by execve, so the programs a plugin starts are not
// affected.
func Harden() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("mark the process non-dumpable: %w", err)
	}
	return nil
}

// Dumpable reports the process's dumpable flag.
func Dumpable() (bool, error) {
	v, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	return v != 0, err
}

// WipeEnvironBlock zeroes the environment block of the process, the bytes
// between env_start and env_end of /proc/self/stat, through /proc/self/mem.
func WipeEnvironBlock() error {
	start, end, err := environBlock()
	if err != nil {
		return err
	}
	if end <= start {
		return nil
	}
	mem, err := os.OpenFile("/proc/self/mem", os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("wipe the environment block: %w", err)
	}
	defer mem.Close()
	if _, err := mem.WriteAt(make([]byte, end-start), int64(start)); err != nil {
		return fmt.Errorf("wipe the environment block: %w", err)
	}
	return nil
}

// environBlock reads env_start and env_end, fields 50 and 51 of
// /proc/self/stat (Linux 3.5 and later).
func environBlock() (start, end uint64, err error) {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, 0, fmt.Errorf("find the environment block: %w", err)
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(stat, ')')
	fields := bytes.Fields(stat[i+1:]) // from field 3 on
	const envStart, envEnd = 50 - 3, 51 - 3
	if i < 0 || len(fields) <= envEnd {
		return 0, 0, fmt.Errorf("find the environment block: /proc/self/stat has %d fields, want at least 51", len(fields)+2)
	}
	if start, err = strconv.ParseUint(string(fields[envStart]), 10, 64); err == nil {
		end, err = strconv.ParseUint(string(fields[envEnd]), 10, 64)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("find the environment block: %w", err)
	}
	return start, end, nil
}

// dumpableMu serializes WhileDumpable: the flag belongs to the whole
// process.
var dumpableMu sync.Mutex

// WhileDumpable runs start with the process dumpable again, then restores
// the flag. A plain user's process that starts a child in a new user
// namespace writes the child's uid_map before the child runs its program,
// and the kernel refuses that write while the child, which inherits the
// flag, is non-dumpable.
func WhileDumpable(start func() error) error {
	dumpableMu.Lock()
	defer dumpableMu.Unlock()
	was, err := Dumpable()
	if err != nil || was {
		return start()
	}
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 1, 0, 0, 0); err != nil {
		return start()
	}
	defer func() { _ = Harden() }()
	return start()
}

// programFD is where the plugin host hands a plugin the file it runs.
const programFD = 3

// KeepProgramFDPrivate marks descriptor 3 close-on-exec when it is the
// file this process runs: the plugin host starts a verified plugin from it
// (/proc/self/fd/3), and the programs the plugin starts need not inherit it.
func KeepProgramFDPrivate() {
	var fd, self unix.Stat_t
	if unix.Fstat(programFD, &fd) != nil || unix.Stat("/proc/self/exe", &self) != nil {
		return
	}
	if fd.Dev == self.Dev && fd.Ino == self.Ino {
		unix.CloseOnExec(programFD)
	}
}
