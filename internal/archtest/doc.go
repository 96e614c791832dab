// Package archtest checks the import rules of docs/architecture.md:
// cmd → core → sdk ← plugins. Its only content is a test.
package archtest
