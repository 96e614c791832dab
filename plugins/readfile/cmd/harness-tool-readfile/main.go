// Command harness-tool-readfile serves the read_file tool as a standalone
// harness plugin.
package main

import (
	"github.com/harness-agent/harness/plugins/readfile"
	"github.com/harness-agent/harness/sdk"
)

func main() {
	sdk.ServeTool(readfile.New())
}
