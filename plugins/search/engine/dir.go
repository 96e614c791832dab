package engine

// dirEntry is one entry of a directory listing.
type dirEntry struct {
	name string
	kind entryKind
}

type entryKind uint8

const (
	kindOther   entryKind = iota // symbolic link, device, socket, FIFO: never searched
	kindFile                     // regular file
	kindDir                      // directory
	kindUnknown                  // the listing did not say; resolved before use
)
