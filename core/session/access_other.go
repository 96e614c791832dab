//go:build !unix

package session

// readOnlyStore says whether the store may not be written; elsewhere the
// open finds out.
func readOnlyStore(string) bool { return false }
