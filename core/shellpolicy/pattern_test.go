package shellpolicy

import "testing"

func TestMatch(t *testing.T) {
	t.Parallel()
	static := func(s string) subject {
		var sub subject
		sub.add(s, fixed)
		return sub
	}
	withKinds := func(program string, args []word, tail bool) subject { return newSubject(program, args, tail) }
	dyn := func(s string) word { return word{text: s, dynamic: true} }
	lit := func(s string) word { return word{text: s} }
	tests := []struct {
		glob string
		s    subject
		want bool
	}{
		{"rm *", static("rm -fr x"), true},
		{"rm *", static("rmdir x"), false},
		{"rm", static("rm"), true},
		{"git push *", static("git push origin main"), true},
		{"git push *", static("git pull"), false},
		{"*", static(""), true},
		{"*", static("a b/c"), true},
		{"a?c", static("abc"), true},
		{"a?c", static("ac"), false},
		{"go test ./...", static("go test ./..."), true},
		{"*.go", static("a/b.go"), true},
		{"a*b*c", static("aXbYbZc"), true},
		{"a*b*c", static("aXbYbZ"), false},
		{"ls *", withKinds("ls", []word{dyn("$X")}, false), true},
		{"ls ??", withKinds("ls", []word{dyn("$X")}, false), false},
		{"ls $X", withKinds("ls", []word{dyn("$X")}, false), true},
		{"ls *", withKinds("ls", nil, true), true},
		{"ls", withKinds("ls", nil, true), false},
		{"ls ?", withKinds("ls", nil, true), false},
		{"ls …", withKinds("ls", nil, true), false},
		{"echo a*", withKinds("echo", []word{lit("a"), dyn("$B")}, false), true},
	}
	for _, tt := range tests {
		if got := match([]rune(tt.glob), tt.s); got != tt.want {
			t.Errorf("match(%q, %q) = %v, want %v", tt.glob, string(tt.s.text), got, tt.want)
		}
	}
}

func TestOverlaps(t *testing.T) {
	t.Parallel()
	dyn := func(s string) word { return word{text: s, dynamic: true} }
	lit := func(s string) word { return word{text: s} }
	tests := []struct {
		glob    string
		program string
		args    []word
		tail    bool
		want    bool
	}{
		{"git push *", "git", []word{dyn("$X"), lit("origin")}, false, true},
		{"git push *", "git", []word{lit("pull"), dyn("$X")}, false, false},
		{"git push", "git", []word{dyn("$X"), lit("push")}, false, true},
		{"git push", "git", nil, true, true},
		{"git push", "git", nil, false, false},
		{"rm *", "ls", []word{dyn("$X")}, false, false},
		{"ls ?", "ls", []word{dyn("$X")}, false, true},
		// A hole stands for any string, its space included: more than the
		// shell can produce, which only ever errs towards asking.
		{"ls a?c", "ls", []word{lit("a"), dyn("$X")}, false, true},
		{"ls a?c", "ls", []word{lit("b"), dyn("$X")}, false, false},
		{"ls ab*", "ls", []word{dyn("$X")}, false, true},
		{"*", "", nil, false, true},
	}
	for _, tt := range tests {
		if got := overlaps([]rune(tt.glob), holes(tt.program, tt.args, tt.tail)); got != tt.want {
			t.Errorf("overlaps(%q, %q %v tail=%v) = %v, want %v", tt.glob, tt.program, tt.args, tt.tail, got, tt.want)
		}
	}
}

func TestCompilePatterns(t *testing.T) {
	t.Parallel()
	ps := compilePatterns([]string{"  rm   * ", "", "git status"})
	if len(ps) != 2 {
		t.Fatalf("compilePatterns kept %d patterns, want 2", len(ps))
	}
	if got := string(ps[0].forms[0]); got != "rm *" || len(ps[0].forms) != 2 || string(ps[0].forms[1]) != "rm" {
		t.Errorf("forms of %q = %q", ps[0].source, ps[0].forms)
	}
	if ps[0].source != "  rm   * " {
		t.Errorf("source = %q, want it as configured", ps[0].source)
	}
	if len(ps[1].forms) != 1 {
		t.Errorf("forms of %q = %q, want one", ps[1].source, ps[1].forms)
	}
}
