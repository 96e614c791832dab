package archtest

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/harness-agent/harness"

// rule: no package reachable from the packages of from (their tests
// included) imports a package under one of forbidden.
type rule struct {
	from      string
	except    string // a folder under from that the rule does not cover
	forbidden []string
	why       string
}

var rules = []rule{
	{"core", "", []string{"plugins", "cmd", "internal/integration"}, "the core talks to plugins only over the plugin protocol (sdk)"},
	{"sdk", "", []string{"core", "plugins", "cmd", "internal/integration"}, "the SDK is the public contract plugins build on; it cannot depend on the host"},
	{"plugins", "", []string{"core", "cmd", "internal/integration"}, "a plugin is built on the SDK alone, like a third party's; a test that needs the core goes in internal/integration"},
	{"internal", "internal/integration", []string{"core", "plugins", "cmd"}, "internal helpers are shared by the core, the SDK and the plugins"},
}

// TestImportRules fails when a forbidden edge appears, naming the package
// that imports what.
func TestImportRules(t *testing.T) {
	for _, r := range rules {
		t.Run(r.from, func(t *testing.T) {
			edges := importEdges(t, packages(t, r.from, r.except)...)
			checked := 0
			for pkg, imports := range edges {
				checked++
				for _, imp := range imports {
					for _, f := range r.forbidden {
						if under(imp, f) && !under(pkg, f) { // the edge that crosses
							t.Errorf("%s imports %s: %s must not depend on %s (%s)", pkg, imp, r.from, f, r.why)
						}
					}
				}
			}
			if checked == 0 {
				t.Fatalf("go list found no packages under %s", r.from)
			}
		})
	}
}

// under reports whether import path p is the module's dir or below it.
func under(p, dir string) bool {
	full := module + "/" + dir
	return p == full || strings.HasPrefix(p, full+"/")
}

// packages lists the module's packages under dir, but not under except.
func packages(t *testing.T, dir, except string) []string {
	t.Helper()
	var out []string
	for _, p := range strings.Fields(string(goList(t, module+"/"+dir+"/..."))) {
		if except == "" || !under(p, except) {
			out = append(out, p)
		}
	}
	return out
}

func goList(t *testing.T, args ...string) []byte {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	return out
}

// importEdges lists every package reachable from pkgs, tests included,
// with its direct imports.
func importEdges(t *testing.T, pkgs ...string) map[string][]string {
	t.Helper()
	out := goList(t, append([]string{"-deps", "-test", "-f", `{{.ImportPath}} {{join .Imports " "}}`}, pkgs...)...)
	edges := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		// A test variant is "pkg [pkg.test]"; its imports follow.
		name, rest, _ := strings.Cut(line, " ")
		if strings.HasPrefix(rest, "[") {
			_, rest, _ = strings.Cut(rest, "] ")
		}
		name = strings.TrimSuffix(strings.TrimSuffix(name, ".test"), "_test")
		if !strings.HasPrefix(name, module+"/") {
			continue
		}
		for _, imp := range strings.Fields(rest) {
			if strings.HasPrefix(imp, "[") {
				continue // the variant an import is, "p [q.test]": p is the edge
			}
			edges[name] = append(edges[name], imp)
		}
	}
	return edges
}
