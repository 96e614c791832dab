package deepseek

import (
	"syscall"
	"time"
)

// ProcessCPU is the CPU time (user and system) this process has used; it
// is exported for the external benchmarks. It counts every goroutine of
// the path — fake server, HTTP, SSE, translation, gRPC — and, unlike wall
// time, it does not grow when other processes compete for the machine.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
