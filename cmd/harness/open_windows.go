package main

import "os/exec"

func openBrowser(path string) error {
	return exec.Command("rundll32", "url.dll,FileProtocolHandler", path).Start()
}
