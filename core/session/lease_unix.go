//go:build unix

package session

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"syscall"
)

// processAlive says whether pid is a process of this host (EPERM: it is,
// owned by another user).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	// A killed process nobody has reaped yet is a zombie: gone all the same.
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if i := bytes.LastIndexByte(stat, ')'); err == nil && i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z' && stat[i+2] != 'X'
	}
	return true
}
