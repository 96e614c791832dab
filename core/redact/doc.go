// Package redact removes known secret values — provider API keys and the
// settings a plugin's schema marks secret — from text before it reaches a
// person, a log, the session store, another plugin or the model.
//
// One Secrets set serves a whole process: the configuration adds the keys
// it reads, the runner adds a third-party provider's secret settings once
// it has decoded them, and everything that writes text a plugin may have
// produced redacts through it: the plugin host (errors and the stderr tail
// of a crashed plugin), the CLI's stderr and log writer (which carries the
// plugins' own log lines), the recorder of events and the tool executor.
//
// Redaction is by exact match (and the value's JSON- and Go-quoted forms):
// it cannot see a secret that a program transformed (encoded, split,
// reversed). Values shorter than MinLen are not redacted: replacing a short
// string everywhere would garble ordinary text and protect nothing.
package redact
