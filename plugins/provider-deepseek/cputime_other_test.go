//go:build !linux

package deepseek

import "time"

// ProcessCPU is not measured off Linux: the cpu-ns/chunk metrics read 0.
func ProcessCPU() time.Duration { return 0 }
