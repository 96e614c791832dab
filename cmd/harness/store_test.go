package main_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness-agent/harness/core/session"
)

// The store lives in the state folder, never in the workspace, and every
// sessions/actions command finds it from any folder: where `harness run
// CONFIG` was typed, inside the workspace, or anywhere else with the id.
func TestStoreOutsideTheWorkspace(t *testing.T) {
	t.Parallel()
	dir := quickstart(t)
	r := harness(t, dir, nil, "run", "--json", "--no-input", "agent.hcl", "Summarize the open TODOs")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	id := parseEvents(t, r.stdout)[0].Session
	if _, err := os.Stat(storeFile(t)); err != nil {
		t.Fatalf("no store in the state folder: %v", err)
	}
	for _, d := range []string{dir, filepath.Join(dir, "workspace")} {
		if _, err := os.Stat(filepath.Join(d, ".harness")); !os.IsNotExist(err) {
			t.Errorf("%s/.harness exists (%v): the store must stay out of the workspace", d, err)
		}
	}

	// A second workspace's session, to see the filtering.
	other := quickstart(t)
	if r := harness(t, other, nil, "run", "--json", "--no-input", "agent.hcl", "Summarize"); r.code != 0 {
		t.Fatalf("second run: exit %d\n%s", r.code, r.stderr)
	}
	nested := filepath.Join(dir, "workspace", "deep", "er")
	if err := os.MkdirAll(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	tests := []struct {
		name, cwd string
		args      []string
		want      []string
		not       []string
	}{
		{"where run CONFIG was typed", dir, []string{"sessions", "list"}, []string{id}, nil},
		{"in the workspace", filepath.Join(dir, "workspace"), []string{"sessions", "list"}, []string{id, "completed"}, []string{"WORKSPACE"}},
		{"below the workspace", nested, []string{"sessions", "list"}, []string{id}, nil},
		{"another workspace's folder", elsewhere, []string{"sessions", "list"}, []string{"no sessions of workspaces in", "2 sessions of 2 workspaces", "--all"}, []string{id}},
		{"--all", elsewhere, []string{"sessions", "list", "--all"}, []string{id, "WORKSPACE", filepath.Join(other, "workspace")}, nil},
		{"--workspace", elsewhere, []string{"sessions", "list", "--workspace", filepath.Join(dir, "workspace")}, []string{id}, nil},
		{"show by id from anywhere", elsewhere, []string{"sessions", "show", id}, []string{"session " + id}, nil},
		{"events by prefix from anywhere", elsewhere, []string{"sessions", "events", id[:len(id)-2]}, []string{"session.started"}, nil},
		{"actions list", filepath.Join(dir, "workspace"), []string{"actions", "list"}, []string{id, "terminal"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := harness(t, tt.cwd, nil, tt.args...)
			if r.code != 0 {
				t.Fatalf("%v: exit %d\n%s", tt.args, r.code, r.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("%v lacks %q:\n%s", tt.args, w, r.stdout)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(r.stdout, w) {
					t.Errorf("%v holds %q:\n%s", tt.args, w, r.stdout)
				}
			}
		})
	}

	t.Run("--state-dir elsewhere has none of them", func(t *testing.T) {
		r := harness(t, dir, nil, "--state-dir", t.TempDir(), "sessions", "show", id)
		if r.code != 2 || !strings.Contains(r.stderr, "not found") {
			t.Errorf("exit %d, stderr %q; want 2 and not found", r.code, r.stderr)
		}
	})
}

func TestStoreFlagsAndEnvironment(t *testing.T) {
	t.Parallel()
	dir := quickstart(t)
	alt := filepath.Join(t.TempDir(), "alt.db")
	tests := []struct {
		name string
		env  []string
		args []string
		file string // where the session must be
		code int
		err  string
	}{
		{name: "--store sqlite URL", args: []string{"--store", "sqlite://" + alt}, file: alt},
		{name: "HARNESS_STORE", env: []string{"HARNESS_STORE=" + alt + "2"}, file: alt + "2"},
		{name: "XDG_STATE_HOME", env: []string{"HARNESS_STATE_DIR=", "XDG_STATE_HOME=" + filepath.Dir(alt)}, file: filepath.Join(filepath.Dir(alt), "harness", "harness.db")},
		{name: "unreachable postgres", args: []string{"--store", "postgres://u:secret@127.0.0.1:1/h?connect_timeout=5"}, code: 1, err: "postgres://u:xxxxx@127.0.0.1:1/h"},
		{name: "unknown scheme", args: []string{"--store", "mysql://db/h"}, code: 2, err: "not supported yet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(tt.args, "run", "--json", "--no-input", "agent.hcl", "Summarize")
			r := harness(t, dir, tt.env, args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.err) {
				t.Fatalf("exit %d, want %d with %q\n%s", r.code, tt.code, tt.err, r.stderr)
			}
			if strings.Contains(r.stderr, "secret") {
				t.Errorf("the password of the store URL is printed:\n%s", r.stderr)
			}
			if tt.file == "" {
				return
			}
			id := parseEvents(t, r.stdout)[0].Session
			s, err := session.OpenFile(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, err := s.Session(context.Background(), id); err != nil {
				t.Errorf("session %s is not in %s: %v", id, tt.file, err)
			}
		})
	}
}

// A store an older harness kept in the workspace (.harness/harness.db) is
// still read: its sessions are listed, shown and resumed, and the file is
// not changed.
func TestLegacyWorkspaceStore(t *testing.T) {
	t.Parallel()
	dir := quickstart(t)
	ws := filepath.Join(dir, "workspace")
	legacyState := filepath.Join(ws, ".harness")
	r := harness(t, dir, []string{"HARNESS_STATE_DIR=" + legacyState}, "run", "--json", "--no-input", "agent.hcl", "Summarize")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	id := parseEvents(t, r.stdout)[0].Session
	before, err := os.ReadFile(filepath.Join(legacyState, "harness.db"))
	if err != nil {
		t.Fatal(err)
	}
	if l := harness(t, ws, nil, "sessions", "list"); l.code != 0 || !strings.Contains(l.stdout, id) {
		t.Errorf("legacy session not listed (exit %d):\n%s%s", l.code, l.stdout, l.stderr)
	}
	if s := harness(t, t.TempDir(), nil, "sessions", "show", id); s.code != 0 {
		t.Errorf("legacy session not shown after import (exit %d): %s", s.code, s.stderr)
	}
	if res := harness(t, dir, nil, "run", "--json", "--no-input", "--resume", id, "agent.hcl", "and again"); res.code != 0 {
		t.Errorf("legacy session not resumed (exit %d): %s", res.code, res.stderr)
	}
	after, err := os.ReadFile(filepath.Join(legacyState, "harness.db"))
	if err != nil || string(after) != string(before) {
		t.Errorf("the legacy store was changed (%v)", err)
	}
}
