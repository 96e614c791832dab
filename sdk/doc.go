// Package sdk is the public surface for writing harness plugins in Go.
//
// A plugin is a separate program that the harness starts and talks to over
// gRPC (hashicorp/go-plugin). This package hides go-plugin: a tool plugin
// implements [ToolPlugin] (or lists [Tool] values in a [ToolSet]) and calls
// [ServeTool] from main; a provider plugin implements [Provider] and calls
// [ServeProvider]; a hook plugin implements [Hook] and calls [ServeHook].
//
// Serve fixes the handshake (a magic cookie that never changes and
// protocol version [ProtocolVersion]), allows gRPC only, raises message size
// limits, encodes messages with a codec that does not clear the buffers it
// fills (the same bytes as gRPC's proto codec; [GRPCDialOptions] sets it on
// the host side too), logs JSON through hclog to stderr (stdout belongs to
// go-plugin), and watches for the death of the host so that no plugin
// outlives it.
//
// The same package holds the host side of the protocol ([ToolClient],
// [ProviderClient], [HookClient]) so that the harness core and the test kit in
// sdk/sdktest use exactly the conversion code a plugin author's program does.
// The generated protobuf code lives under sdk/proto and never appears in this
// package's API.
package sdk
