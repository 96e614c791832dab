// Command harness runs LLM agents declared in HCL. Every tool and every LLM
// provider runs as a plugin process; the built-in ones are compiled into
// this binary and served by re-executing it (`harness plugin serve NAME`).
package main

import (
	"os"

	"github.com/harness-agent/harness/plugins/terminal"
)

func main() {
	// The terminal plugin re-executes this binary to apply its Landlock
	// sandbox in the child before the shell starts; that must come first.
	terminal.MaybeRunSandboxHelper()
	os.Exit(execute(os.Args[1:]))
}
