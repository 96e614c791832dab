package main

import "os/exec"

func openBrowser(path string) error { return exec.Command("open", path).Start() }
