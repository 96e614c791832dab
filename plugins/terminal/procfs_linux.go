package terminal

import (
	"bytes"
	"os"
	"strconv"
)

// procInfo is what /proc/PID/stat says about a process that matters here.
type procInfo struct {
	pid, ppid, pgid int
	state           byte // R, S, D, Z, T…
}

func (p procInfo) zombie() bool { return p.state == 'Z' || p.state == 'X' }

// listProcs reads every process of the system from /proc. Processes that
// exit while it reads are skipped.
func listProcs() ([]procInfo, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	out := make([]procInfo, 0, len(names))
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
func readProc(pid int) (procInfo, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procInfo{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procInfo{}, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return procInfo{}, false
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	pgid, err2 := strconv.Atoi(string(f[2]))
	if err1 != nil || err2 != nil {
		return procInfo{}, false
	}
	return procInfo{pid: pid, ppid: ppid, pgid: pgid, state: f[0][0]}, true
}
