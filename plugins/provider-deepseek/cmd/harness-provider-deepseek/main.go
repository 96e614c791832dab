package main

import (
	deepseek "github.com/harness-agent/harness/plugins/provider-deepseek"
	"github.com/harness-agent/harness/sdk"
)

func main() {
	sdk.ServeProvider(deepseek.New())
}
