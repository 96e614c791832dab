package main

import (
	anthropic "github.com/harness-agent/harness/plugins/provider-anthropic"
	"github.com/harness-agent/harness/sdk"
)

func main() { sdk.ServeProvider(anthropic.New()) }
