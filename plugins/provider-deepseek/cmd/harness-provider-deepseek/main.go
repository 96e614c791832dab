// Command harness-provider-deepseek is the DeepSeek provider plugin as a
// standalone executable. The harness binary serves the same provider
// itself (harness plugin serve provider-deepseek); this program exists for
// hosts that start plugins by path.
package main

import (
	deepseek "github.com/harness-agent/harness/plugins/provider-deepseek"
	"github.com/harness-agent/harness/sdk"
)

func main() {
	sdk.ServeProvider(deepseek.New())
}
