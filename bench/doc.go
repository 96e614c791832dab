// Package bench holds the benchmarks that measure harness against outside
// references side by side: ripgrep for search_workspace, a bare go-plugin
// client for plugin start and tool calls, a bare gRPC stream for the
// provider hop, and Crush for whole sessions against the same fake
// DeepSeek server (BenchmarkSession, when CRUSH_BIN names it). Every benchmark runs real plugin processes (the harness
// binary serving its built-in plugins) and alternates the measured path
// with its reference in one loop, so a noisy machine slows both alike; each
// reports medians (p50) as custom metrics.
//
// bench/run.sh builds the binaries (and Crush, once), runs these
// benchmarks and the interleaved quickstart loop, and prints the table
// that docs/benchmarks.md records. The package has no
// tests; the correctness of what is measured is tested where the code
// lives.
package bench
