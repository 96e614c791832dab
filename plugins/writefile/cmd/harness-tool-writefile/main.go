// Command harness-tool-writefile serves the write_file tool as a standalone
// harness plugin.
package main

import (
	"github.com/harness-agent/harness/plugins/writefile"
	"github.com/harness-agent/harness/sdk"
)

func main() {
	sdk.ServeTool(writefile.New())
}
