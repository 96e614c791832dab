// Command harness-tool-search serves the search_workspace tool as a
// standalone plugin binary (the harness binary serves it built in too).
package main

import (
	"github.com/harness-agent/harness/plugins/search"
	"github.com/harness-agent/harness/sdk"
)

func main() {
	sdk.ServeTool(search.New())
}
