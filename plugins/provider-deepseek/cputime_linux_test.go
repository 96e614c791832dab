package deepseek

import (
	"syscall"
	"time"
)

// ProcessCPU (exported for the external benchmarks) is the CPU time this process has used (user and system). In
// the benchmarks it counts every goroutine of the path — fake server,
// HTTP, SSE, translation, gRPC — and, unlike wall time, it does not grow
// when other processes compete for the machine.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
