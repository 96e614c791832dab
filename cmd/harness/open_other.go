//go:build !darwin && !windows

package main

import "os/exec"

// openBrowser asks the desktop to open the page (xdg-utils).
func openBrowser(path string) error { return exec.Command("xdg-open", path).Start() }
