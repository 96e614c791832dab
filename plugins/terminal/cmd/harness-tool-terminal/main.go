// Command harness-tool-terminal serves the terminal tool as a standalone
// harness plugin.
package main

import (
	"github.com/harness-agent/harness/plugins/terminal"
	"github.com/harness-agent/harness/sdk"
)

func main() {
	terminal.MaybeRunSandboxHelper()
	sdk.ServeTool(terminal.New())
}
