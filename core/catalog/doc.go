// Package catalog knows which plugins a configuration has and what they
// offer. It registers the built-in plugins and the configuration's plugin
// and hook blocks with a plugin host (with the checksum of each block or of
// the lock file), asks tool plugins to describe themselves, and answers
// which plugin owns a tool and which config schema a plugin reports.
//
// It implements config.Catalog and config.ProviderCatalog, so `harness
// validate` can check tool whitelists and plugin config blocks against what
// the plugins really report. It does not decide what a tool may do
// (approvals) nor run anything itself.
package catalog
