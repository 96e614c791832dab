package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/harness-agent/harness/core/session"
)

// storePath is where the session store is, from --store, --state-dir and
// the environment (see session.Locator).
func (c *cli) storePath() (string, error) {
	p, err := c.locator.StorePath()
	if err != nil {
		return "", exitf(exitUsage, "%v", err)
	}
	return p, nil
}

// openStore opens the session store and imports the legacy .harness stores
// of workspace (when given), of the current folder and of its parents, so
// that their sessions can be listed, shown and resumed.
func (c *cli) openStore(ctx context.Context, workspace string) (*session.Store, error) {
	path, err := c.storePath()
	if err != nil {
		return nil, err
	}
	s, err := session.Open(path)
	if err != nil {
		return nil, err
	}
	legacy := []string{}
	if workspace != "" {
		legacy = append(legacy, session.LegacyPath(workspace))
	}
	if cwd, err := os.Getwd(); err == nil {
		legacy = append(legacy, session.FindLegacy(cwd)...)
	}
	for _, p := range legacy {
		if _, err := s.ImportLegacy(ctx, p); err != nil {
			fmt.Fprintf(c.stderr, "harness: %v (its sessions are not listed)\n", err)
		}
	}
	return s, nil
}

// scope is the set of workspaces a listing covers.
type scope struct {
	all        bool
	workspace  string // the workspace that holds the current folder, or --workspace
	under      string // else: workspaces inside this folder (the current one)
	workspaces int    // how many workspaces the store knows
}

// listScope says which sessions `sessions list` and `actions list` show:
// every workspace's (--all), the one of --workspace, else the recorded
// workspace nearest around the current folder, else every workspace inside
// the current folder (where `harness run path/to/agent.hcl` was typed).
func listScope(all bool, workspace string, sessions []session.SessionInfo) (scope, error) {
	known := map[string]bool{}
	var list []string
	for _, s := range sessions {
		if !known[s.Workspace] {
			known[s.Workspace] = true
			list = append(list, s.Workspace)
		}
	}
	sc := scope{all: all, workspaces: len(list)}
	if all {
		return sc, nil
	}
	if workspace != "" {
		abs, err := filepath.Abs(workspace)
		if err != nil {
			return sc, exitf(exitUsage, "--workspace %q: %v", workspace, err)
		}
		sc.workspace = abs
		if w := session.NearestWorkspace(abs, list); w != "" && session.Within(w, abs) {
			sc.workspace = w
		}
		return sc, nil
	}
	cwd, err := os.Getwd()
	if err != nil {
		return sc, err
	}
	if sc.workspace = session.NearestWorkspace(cwd, list); sc.workspace == "" {
		sc.under = cwd
	}
	return sc, nil
}

func (sc scope) covers(workspace string) bool {
	switch {
	case sc.all:
		return true
	case sc.workspace != "":
		return session.Within(workspace, sc.workspace) && session.Within(sc.workspace, workspace)
	}
	return session.Within(workspace, sc.under)
}

// describe says what a listing left out, for a note under an empty table.
func (sc scope) describe() string {
	switch {
	case sc.all:
		return "every workspace"
	case sc.workspace != "":
		return "workspace " + sc.workspace
	}
	return "workspaces in " + sc.under
}

// sessionByID finds a session by id or prefix in the whole store: an id
// is valid from any folder.
func sessionByID(ctx context.Context, s *session.Store, id string) (session.SessionInfo, error) {
	info, err := s.Session(ctx, id)
	if errors.Is(err, session.ErrNotFound) || errors.Is(err, session.ErrAmbiguous) {
		return info, exitf(exitUsage, "%v (store %s; `harness sessions list --all` lists every session)", err, s.Name())
	}
	return info, err
}

// countNoun is "1 session", "2 sessions".
func countNoun(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// actionByID finds an action by id or prefix in the whole store.
func actionByID(ctx context.Context, s *session.Store, id string) (session.Action, error) {
	a, err := s.Action(ctx, id)
	if errors.Is(err, session.ErrNotFound) || errors.Is(err, session.ErrAmbiguous) {
		return a, exitf(exitUsage, "%v (store %s; `harness actions list --all` lists every action)", err, s.Name())
	}
	return a, err
}
