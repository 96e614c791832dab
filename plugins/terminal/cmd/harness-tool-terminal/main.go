// Command harness-tool-terminal serves the terminal tool as a standalone
// harness plugin. Its per-command helper, a copy of this binary, runs from
// the init of plugins/terminal/internal/helper and never reaches main.
package main

import (
	"github.com/harness-agent/harness/plugins/terminal"
	"github.com/harness-agent/harness/sdk"
)

func main() {
	sdk.ServeTool(terminal.New())
}
