package helper

import (
	"bytes"
	"os"
	"strconv"
)

// Proc is what /proc/PID/stat says about a process that matters to a
// teardown.
type Proc struct {
	PID, PPID, PGID int
	State           byte // R, S, D, Z, T…
}

// Zombie says whether the process has exited and waits to be reaped.
func (p Proc) Zombie() bool { return p.State == 'Z' || p.State == 'X' }

// ListProcs reads every process of the system from /proc. Processes that
// exit while it reads are skipped.
func ListProcs() ([]Proc, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	out := make([]Proc, 0, len(names))
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if p, ok := readProc(pid); ok {
			out = append(out, p)
		}
	}
	return out, nil
}

// readProc parses /proc/PID/stat: "pid (comm) state ppid pgrp …". The
// command name may hold spaces and parentheses, so fields are counted from
// the last ')'.
func readProc(pid int) (Proc, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Proc{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return Proc{}, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return Proc{}, false
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	pgid, err2 := strconv.Atoi(string(f[2]))
	if err1 != nil || err2 != nil {
		return Proc{}, false
	}
	return Proc{PID: pid, PPID: ppid, PGID: pgid, State: f[0][0]}, true
}
