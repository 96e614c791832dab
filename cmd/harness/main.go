// Command harness runs LLM agents declared in HCL. Every tool and every LLM
// provider runs as a plugin process; the built-in ones are compiled into
// this binary and served by re-executing it (`harness plugin serve NAME`).
package main

import (
	"os"
)

func main() {
	os.Exit(execute(os.Args[1:]))
}
