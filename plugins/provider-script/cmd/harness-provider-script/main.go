// Command harness-provider-script serves the offline script provider as a
// standalone plugin executable.
package main

import (
	"github.com/harness-agent/harness/sdk"

	script "github.com/harness-agent/harness/plugins/provider-script"
)

func main() {
	sdk.ServeProvider(script.New())
}
