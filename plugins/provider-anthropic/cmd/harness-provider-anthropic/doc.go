// Command harness-provider-anthropic is the Anthropic Messages provider
// plugin as a standalone executable. The harness binary serves the same
// provider itself (the hidden "harness plugin serve provider-anthropic");
// this program exists for hosts that start provider plugins by path. It
// speaks the harness plugin protocol on stdin/stdout through go-plugin and
// logs JSON to stderr; it is not meant to be run by hand.
package main
