package archtest

import (
	"strings"
	"testing"
)

// helperPkg is the terminal plugin's command supervisor. It runs from its
// package init in a copy of the hosting binary for every command, so each
// package it depends on is initialized once per command: it may depend
// only on the standard library and golang.org/x/sys/unix, and not on the
// standard packages that the order of package initialization reaches late
// (path/filepath and what imports it, os/exec). See its package comment.
const helperPkg = module + "/plugins/terminal/internal/helper"

var helperLate = []string{"path/filepath", "os/exec"}

func TestHelperImportsStayLow(t *testing.T) {
	for _, goos := range []string{"linux", "darwin"} {
		t.Run(goos, func(t *testing.T) {
			t.Setenv("GOOS", goos)
			deps := strings.Fields(string(goList(t, "-deps", "-f", "{{.ImportPath}} {{.Standard}}", helperPkg)))
			if len(deps) < 2 {
				t.Fatalf("go list -deps %s listed nothing", helperPkg)
			}
			for i := 0; i+1 < len(deps); i += 2 {
				pkg, std := deps[i], deps[i+1] == "true"
				switch {
				case pkg == helperPkg, pkg == "golang.org/x/sys/unix":
				case !std:
					t.Errorf("%s depends on %s: the helper may depend on the standard library and golang.org/x/sys/unix only", helperPkg, pkg)
				}
				for _, late := range helperLate {
					if pkg == late {
						t.Errorf("%s depends on %s, which is initialized late: every command would wait for most of the binary's package init", helperPkg, pkg)
					}
				}
			}
		})
	}
}
