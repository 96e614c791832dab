//go:build !unix

package session

import "os"

// processAlive says whether pid is a process of this host.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}
