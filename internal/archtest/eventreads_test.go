package archtest

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gopackages "golang.org/x/tools/go/packages"
)

// rawEventReaders are the only places outside core/event and core/session
// that may read a session.Event's Data other than by handing it to
// core/event: each passes the stored bytes on as they are, reading no
// field of them.
var rawEventReaders = map[string]string{
	module + "/cmd/harness.compactJSON": "sessions events prints the stored JSON of each event, cut to a line",
}

// TestEventsAreReadTyped enforces docs/architecture.md's event contract:
// outside core/event (which decodes) and core/session (which stores), the
// Data of a session.Event is read only as an argument to a core/event
// function (event.Decode takes the whole event; event.DecodeData its type
// and data) or by one of rawEventReaders. So no code decodes an event into
// a map and reads it by string keys, where a renamed field would show as
// blank with no error: it reads the event's Go type, and the compiler
// catches a rename.
func TestEventsAreReadTyped(t *testing.T) {
	pkgs := loadPackages(t, ".", module+"/...")
	used := map[string]bool{}
	for _, v := range untypedEventReads(pkgs, used) {
		t.Errorf("%s: reads the Data of a session.Event %s; decode it with event.Decode or event.As and read its Go type (docs/architecture.md, An event)", v.pos, v.how)
	}
	for fn := range rawEventReaders {
		if !used[fn] {
			t.Errorf("rawEventReaders lists %s, which reads no event data (any more): remove it", fn)
		}
	}
}

// TestUntypedEventReadsAreCaught runs the check over a fixture that reads
// event data around core/event in the ways it must catch (the lines marked
// "want") and the ways it must allow.
func TestUntypedEventReadsAreCaught(t *testing.T) {
	dir := filepath.Join("testdata", "eventreads")
	pkgs := loadPackages(t, ".", "./"+filepath.ToSlash(dir))
	var got []int
	for _, v := range untypedEventReads(pkgs, map[string]bool{}) {
		got = append(got, v.pos.Line)
	}
	src, err := os.ReadFile(filepath.Join(dir, "eventreads.go"))
	if err != nil {
		t.Fatal(err)
	}
	var want []int
	for i, line := range strings.Split(string(src), "\n") {
		if strings.HasSuffix(line, "// want") {
			want = append(want, i+1)
		}
	}
	if len(want) == 0 {
		t.Fatal("the fixture marks no line")
	}
	if !slices.Equal(got, want) {
		t.Errorf("flagged lines %v, want %v", got, want)
	}
}

type violation struct {
	pos token.Position
	how string
}

func loadPackages(t *testing.T, dir string, patterns ...string) []*gopackages.Package {
	t.Helper()
	cfg := &gopackages.Config{Dir: dir, Mode: gopackages.NeedName | gopackages.NeedFiles | gopackages.NeedSyntax | gopackages.NeedTypes | gopackages.NeedTypesInfo}
	pkgs, err := gopackages.Load(cfg, patterns...)
	if err != nil {
		t.Fatalf("load %v: %v", patterns, err)
	}
	var errs []string
	gopackages.Visit(pkgs, nil, func(p *gopackages.Package) {
		for _, e := range p.Errors {
			errs = append(errs, e.Error())
		}
	})
	if len(errs) > 0 {
		t.Fatalf("load %v:\n%s", patterns, strings.Join(errs, "\n"))
	}
	if len(pkgs) == 0 {
		t.Fatalf("load %v: no packages", patterns)
	}
	return pkgs
}

const (
	eventPkg   = module + "/core/event"
	sessionPkg = module + "/core/session"
)

// untypedEventReads finds the reads of session.Event's Data in pkgs that
// TestEventsAreReadTyped forbids; used collects the rawEventReaders seen.
func untypedEventReads(pkgs []*gopackages.Package, used map[string]bool) []violation {
	var out []violation
	for _, p := range pkgs {
		if p.PkgPath == eventPkg || p.PkgPath == sessionPkg {
			continue
		}
		for _, f := range p.Syntax {
			var stack []ast.Node
			ast.Inspect(f, func(n ast.Node) bool {
				if n == nil {
					stack = stack[:len(stack)-1]
					return true
				}
				stack = append(stack, n)
				sel, ok := n.(*ast.SelectorExpr)
				if !ok || !isEventData(p.TypesInfo, sel) {
					return true
				}
				if how := forbiddenRead(p, stack, used); how != "" {
					out = append(out, violation{pos: p.Fset.Position(sel.Pos()), how: how})
				}
				return true
			})
		}
	}
	slices.SortFunc(out, func(a, b violation) int {
		return strings.Compare(fmt.Sprintf("%s:%06d", a.pos.Filename, a.pos.Line), fmt.Sprintf("%s:%06d", b.pos.Filename, b.pos.Line))
	})
	return out
}

// isEventData reports whether sel selects the Data field of
// core/session's Event, directly or through an embedding.
func isEventData(info *types.Info, sel *ast.SelectorExpr) bool {
	s, ok := info.Selections[sel]
	if !ok || s.Kind() != types.FieldVal {
		return false
	}
	field, ok := s.Obj().(*types.Var)
	if !ok || field.Name() != "Data" || field.Pkg() == nil || field.Pkg().Path() != sessionPkg {
		return false
	}
	ev, ok := field.Pkg().Scope().Lookup("Event").(*types.TypeName)
	if !ok {
		return false
	}
	st, ok := ev.Type().Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for i := range st.NumFields() {
		if st.Field(i) == field {
			return true
		}
	}
	return false
}

// forbiddenRead says how the selector at the top of stack reads event
// data, or "" when the read is allowed: an argument to a core/event
// function or to one of rawEventReaders (recorded in used), or the target
// of an assignment.
func forbiddenRead(p *gopackages.Package, stack []ast.Node, used map[string]bool) string {
	sel := stack[len(stack)-1].(*ast.SelectorExpr)
	switch x := stack[len(stack)-2].(type) {
	case *ast.CallExpr:
		if !slices.Contains(x.Args, ast.Expr(sel)) {
			break
		}
		fn := callee(p.TypesInfo, x)
		switch {
		case fn == nil:
			return "in a conversion or a call of a function value"
		case fn.Pkg() != nil && fn.Pkg().Path() == eventPkg:
			return ""
		case rawEventReaders[fn.FullName()] != "":
			used[fn.FullName()] = true
			return ""
		}
		return "as an argument to " + fn.FullName()
	case *ast.AssignStmt:
		if slices.Contains(x.Lhs, ast.Expr(sel)) {
			return "" // a write
		}
	}
	return fmt.Sprintf("in a %s", nodeKind(stack[len(stack)-2]))
}

func callee(info *types.Info, call *ast.CallExpr) *types.Func {
	var id *ast.Ident
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	default:
		return nil
	}
	fn, _ := info.Uses[id].(*types.Func)
	return fn
}

func nodeKind(n ast.Node) string {
	return strings.ToLower(strings.TrimPrefix(fmt.Sprintf("%T", n), "*ast."))
}
