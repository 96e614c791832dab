// Package integration holds tests that put parts of the core and plugins
// together in one process. It is the one place besides cmd where both
// may be imported (see docs/architecture.md); nothing imports it.
package integration
