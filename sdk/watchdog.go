package sdk

import (
	"os"
	"time"
)

// watchParent calls onDeath once the process that started the plugin is
// gone (the plugin is re-parented). It backs up the parent-death signal the
// host asks the kernel for, which Linux ties to the thread that forked.
func watchParent(onDeath func()) {
	parent := os.Getppid()
	if parent <= 1 {
		return
	}
	go func() {
		for range time.Tick(250 * time.Millisecond) {
			if os.Getppid() != parent {
				onDeath()
				return
			}
		}
	}()
}
