// Package catalog knows which plugins a configuration has and what they
// offer. It registers the built-in plugins and the configuration's plugin
// and hook blocks with a plugin host (with the checksum of each block or of
// the lock file), asks tool plugins to describe themselves, and answers
// which plugin owns a tool and which config schema a plugin reports.
//
// Nothing starts when the catalog is made. Describe starts every tool
// plugin (and third-party provider plugin) at once, for validate and
// plugins list; DescribeFor starts only those an agent's tools need, for a
// run. The built-ins' tool names are known before anything starts.
//
// It implements config.Catalog, config.ProviderCatalog and
// config.ProviderSettingsCatalog, so `harness validate` can check tool
// whitelists, plugin config blocks and provider settings against what the
// plugins really report. It does not decide what a tool may do (approvals)
// nor run anything itself.
package catalog
