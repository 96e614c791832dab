// Command harness runs LLM agents declared in HCL. Every tool and every LLM
// provider runs as a plugin process; the built-in ones are compiled into
// this binary and served by re-executing it (`harness plugin serve NAME`).
package main

import (
	"fmt"
	"os"

	"github.com/harness-agent/harness/internal/gcstart"
	"github.com/harness-agent/harness/internal/procguard"
)

func main() {
	// The terminal plugin's per-command helper, a copy of this binary,
	// never gets here: it runs from the init of
	// plugins/terminal/internal/helper, before most packages are
	// initialized.
	//
	// Every process of a run (this one, each plugin process) would
	// otherwise collect right after package init, before doing any work.
	gcstart.Delay(gcstart.Limit)
	// Nothing the model runs may read what this process holds: the API keys
	// of the config's env() calls sit in its environment block and memory.
	// Built-in plugins, which are this binary too, get the same.
	if err := procguard.WipeEnvironBlock(); err != nil {
		fmt.Fprintln(os.Stderr, "harness: warning:", err)
	}
	if err := procguard.Harden(); err != nil {
		fmt.Fprintln(os.Stderr, "harness: warning:", err)
	}
	os.Exit(execute(os.Args[1:]))
}
