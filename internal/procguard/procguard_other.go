//go:build !linux

package procguard

// Harden does nothing where there is no prctl: the security model (see
// docs/security.md) is Linux's.
func Harden() error { return nil }

// Dumpable is always true where processes cannot be marked otherwise.
func Dumpable() (bool, error) { return true, nil }

// WipeEnvironBlock does nothing where no /proc shows the environment block.
func WipeEnvironBlock() error { return nil }

// WhileDumpable runs start.
func WhileDumpable(start func() error) error { return start() }

// KeepProgramFDPrivate does nothing: plugins start by path here.
func KeepProgramFDPrivate() {}
