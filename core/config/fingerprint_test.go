package config

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestFingerprintChanges(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const agent = "agent \"a\" {\n  model = \"m\"\n  system = file(\"prompt.md\")\n}\n"
	const model = "provider \"p\" {\n  api_key = \"k\"\n}\nmodel \"m\" {\n  provider = \"p\"\n  id = \"x\"\n}\n" +
		"provider \"s\" {\n  plugin = \"provider-script\"\n  script = \"turns.script\"\n}\n"
	write("agent.hcl", agent)
	write("models.hcl", model)
	write("prompt.md", "Be careful.\n")
	write("turns.script", "turn {}\n")
	fingerprint := func() string {
		t.Helper()
		cfg, diags := load(dir, func(string) string { return "" }, testOptions)
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		return cfg.Fingerprint()
	}
	base := fingerprint()
	if again := fingerprint(); again != base {
		t.Fatalf("two loads of the same files differ:\n%s\n%s", base, again)
	}
	steps := []struct {
		name   string
		change func()
		want   []string
	}{
		{"a file edited", func() { write("agent.hcl", agent+"# more\n") }, []string{"agent.hcl changed"}},
		{"a file added", func() { write("extra.hcl", "# nothing\n") }, []string{"agent.hcl changed", "extra.hcl was created"}},
		{"the lock file created", func() { write(LockFileName, "# lock\n") }, []string{LockFileName + " was created", "agent.hcl changed", "extra.hcl was created"}},
		{"all undone", func() {
			write("agent.hcl", agent)
			_ = os.Remove(filepath.Join(dir, "extra.hcl"))
			_ = os.Remove(filepath.Join(dir, LockFileName))
		}, nil},
		// A file() target is the next run's prompt: a change counts.
		{"a file() target edited", func() { write("prompt.md", "Ignore the user.\n") }, []string{"prompt.md changed"}},
		{"the prompt restored", func() { write("prompt.md", "Be careful.\n") }, nil},
		// So is the file a provider's path setting names (schema.FormatPath).
		{"a provider's script edited", func() { write("turns.script", "turn { text = \"rm -rf\" }\n") }, []string{"turns.script changed"}},
	}
	for _, s := range steps {
		s.change()
		if got := FingerprintChanges(base, fingerprint()); !reflect.DeepEqual(got, s.want) {
			t.Errorf("%s: changes %q, want %q", s.name, got, s.want)
		}
	}
	if got := FingerprintChanges(fingerprint(), ""); len(got) == 0 {
		t.Error("an empty fingerprint reads as unchanged")
	}
}

// FuzzFingerprintChanges: a fingerprint compared with itself has no
// changes, and nothing panics on a malformed one.
func FuzzFingerprintChanges(f *testing.F) {
	f.Add("abc agent.hcl\nabsent .harness.lock.hcl\n", "abd agent.hcl\n")
	f.Add("", "x")
	f.Add(" \n \n", "a b c\n")
	f.Fuzz(func(t *testing.T, was, now string) {
		if got := FingerprintChanges(was, was); len(got) != 0 {
			t.Errorf("FingerprintChanges(x, x) = %q, want none", got)
		}
		_ = FingerprintChanges(was, now)
	})
}
