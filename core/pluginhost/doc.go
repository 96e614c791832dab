// Package pluginhost starts, supervises and stops the plugin processes of a
// harness run.
//
// Every tool, provider and hook plugin runs outside the host's process,
// spoken to over gRPC through hashicorp/go-plugin. Built-in plugins are
// compiled into the harness binary and started by re-executing it
// (`harness plugin serve NAME`); those registered with Spec.Shared (the
// built-ins that hold no secret) all run in one shared process (`harness
// plugin serve --shared`), where each has its own client and configuration
// and every call names its plugin (process.go). Third-party plugins are
// executables named by path in HCL and are verified by sha256 before they
// start, then connected with AutoMTLS.
//
// What starts is what was verified: a third-party plugin is read once, its
// bytes hashed as they are copied into a sealed memfd, and every start and
// restart runs that copy (program.go, integrity.go). Built-in plugins run the
// host's own image, /proc/self/exe, not the path it was started by. A file
// replaced or rewritten after the check never runs in this host.
//
// The host keeps one long-lived client per plugin, started lazily on first
// use (or concurrently with Warm), with an explicit environment: a plugin
// never inherits the host's variables, so a provider's API key, sent in its
// Configure call, reaches that provider plugin only. Plugins are started in
// their own process group with a parent-death signal, and Close kills them
// under a timeout on every exit path. A plugin that crashes mid-call turns
// into an *sdk.Error of kind process_exit carrying the tail of its stderr,
// and the next call starts a fresh process and replays its configuration.
//
// The package does not decide which plugins a run needs (the caller asks
// for them by name) nor what their tools may do (that is the tool registry's
// business).
package pluginhost
