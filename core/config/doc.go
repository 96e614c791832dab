// Package config owns the representation and the static validation of a
// harness configuration: the HCL files of DESIGN §4 (workspace, provider,
// model, plugin, hook, mcp and agent blocks), the lock file
// .harness.lock.hcl that pins plugin checksums, the canonical formatting of
// HCL sources, and the rendering of HCL diagnostics as text or JSON.
//
// Load reads a file or a directory of .hcl files, decodes every block into
// plain Go values with their defaults applied, and reports every problem that
// can be found without running anything: unknown attributes, wrong types,
// enum values, thresholds, durations, duplicate names, references to blocks
// that are not declared, files that file() cannot read, plugin and hook files
// that do not exist, and budgets that cannot be priced. All problems of all
// files are returned together, each pointing at the smallest source range.
//
// Check adds the checks that need answers from running plugins (which tools
// exist, what configuration a plugin accepts) through the small Catalog
// interface, which core/catalog implements. CheckIntegrity compares plugin
// and hook files against the checksums of their blocks or of the lock file.
//
// The package does not start plugins, talk to MCP servers or providers, or
// evaluate anything at run time: a Config is the configuration as written,
// resolved only as far as defaults, functions and paths. A plugin's config
// block stays an hcl.Body until DecodePluginConfig decodes it against the
// schema the plugin reports.
//
// # Choices where DESIGN §4 is silent
//
//   - A model's id defaults to the block's name; context_window and max_output 0 mean
//     "as the provider reports". In pricing, input_cache_miss and output are required and
//     input_cache_hit defaults to input_cache_miss (no cache discount).
//   - An agent without a tools attribute has an empty whitelist; a tool listed twice is a warning.
//     Tool names must be what providers accept (sdk.ValidToolName), or "NAME__*"; toolnames.go
//     is the one definition of that syntax, which core/tools and core/mcp match with.
//   - mcp names may not contain "__" (it separates server and tool) and env is only for a
//     command; an mcp block's url must be http(s).
//   - Durations are Go durations ("90s", "2m") and must be positive; terminal_timeout may
//     not exceed terminal_max_timeout. permissions.write globs are doublestar patterns
//     relative to the workspace: no leading "/" and no "..".
//   - sha256 attributes are 64 hex digits, stored in lower case. Plugins and hooks share
//     one namespace, the lock file's.
//   - The workspace must be an existing directory. A configuration without an agent block
//     loads with a warning (there is nothing to run, but plugins can still be locked).
//   - A plugin config block is decoded by its JSON Schema's property types, as HCL
//     converts values (5 becomes "5" for a string property); attributes the schema does
//     not declare are errors unless it sets additionalProperties.
package config
