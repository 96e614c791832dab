//go:build !unix

package approval

// openNonblock is zero where named pipes do not block an open.
const openNonblock = 0
