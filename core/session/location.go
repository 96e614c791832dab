package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Where the store lives: one store per user, outside every workspace, so
// that nothing a model can write to (the workspace) holds the record of
// what it did or the actions that wait for a person.
const (
	// StateDirName is the store's folder under $XDG_STATE_HOME.
	StateDirName = "harness"
	// StoreFile is the database file inside the state folder.
	StoreFile = "harness.db"
	// LegacyDir is the folder, under a workspace, where harness kept its
	// store before it moved to the state folder. Such stores are still read
	// (imported, see ImportLegacy).
	LegacyDir = ".harness"

	// EnvStore selects the store directly: a path, sqlite://PATH or a
	// postgres:// URL.
	EnvStore = "HARNESS_STORE"
	// EnvStateDir overrides the state folder.
	EnvStateDir = "HARNESS_STATE_DIR"
)

// Locator is what says where the store is: the --store and --state-dir
// flags, and the environment.
type Locator struct {
	Store    string // --store PATH | sqlite://PATH
	StateDir string // --state-dir DIR
	// Getenv reads the environment; nil is os.Getenv.
	Getenv func(string) string
}

// ErrUnsupportedStore says a --store URL names a kind of store this build
// cannot open yet.
var ErrUnsupportedStore = errors.New("store not supported yet")

// StorePath returns the absolute path of the store's database file, or the
// postgres:// URL of a PostgreSQL store (pass it to Open; print it only
// through Redact: it may hold a password). The
// first of these that is set wins: --store, --state-dir, $HARNESS_STORE,
// $HARNESS_STATE_DIR, $XDG_STATE_HOME/harness, ~/.local/state/harness. A
// flag beats the environment; a store named directly beats a folder.
func (l Locator) StorePath() (string, error) {
	getenv := l.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	switch {
	case l.Store != "":
		return storeFile("--store", l.Store)
	case l.StateDir != "":
		return stateFile("--state-dir", l.StateDir)
	case getenv(EnvStore) != "":
		return storeFile(EnvStore, getenv(EnvStore))
	case getenv(EnvStateDir) != "":
		return stateFile(EnvStateDir, getenv(EnvStateDir))
	}
	// The XDG base directory spec: a relative $XDG_STATE_HOME is invalid
	// and ignored.
	if x := getenv("XDG_STATE_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, StateDirName, StoreFile), nil
	}
	home := getenv("HOME")
	if !filepath.IsAbs(home) {
		return "", fmt.Errorf("session store: neither $XDG_STATE_HOME nor $HOME is an absolute path, so there is no default state folder: pass --state-dir DIR or set %s", EnvStateDir)
	}
	return filepath.Join(home, ".local", "state", StateDirName, StoreFile), nil
}

// StateFolder is the folder that holds nothing but the store, when the
// store's place comes from a state folder (not from --store or
// $HARNESS_STORE, which may name a file in any folder); else "".
func (l Locator) StateFolder() string {
	getenv := l.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if l.Store != "" || (l.StateDir == "" && getenv(EnvStore) != "") {
		return ""
	}
	p, err := l.StorePath()
	if err != nil {
		return ""
	}
	return filepath.Dir(p)
}

// storeFile parses a --store value: a path, sqlite://PATH, or a URL of a
// store this build does not have.
func storeFile(from, v string) (string, error) {
	p := v
	if scheme, rest, ok := strings.Cut(v, "://"); ok {
		switch strings.ToLower(scheme) {
		case "sqlite", "file":
			p = rest
		case "postgres", "postgresql":
			// Opened as it is (Open); checked when opened.
			if rest == "" {
				return "", fmt.Errorf("%s %q names no database; use postgres://USER:PASSWORD@HOST:PORT/DATABASE", from, v)
			}
			return v, nil
		default:
			return "", fmt.Errorf("%s %q: unknown store scheme %q; use a path, sqlite://PATH or postgres://…: %w", from, redact(v), scheme, ErrUnsupportedStore)
		}
	}
	if p == "" {
		return "", fmt.Errorf("%s %q names no file; use a path or sqlite://PATH", from, v)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("%s %q: %w", from, v, err)
	}
	return abs, nil
}

func stateFile(from, dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("%s %q: %w", from, dir, err)
	}
	return filepath.Join(abs, StoreFile), nil
}

// Redact hides the passwords of a store URL, in its user info and in a
// password= parameter: a database URL may carry one, and messages are
// printed.
func Redact(v string) string { return redact(v) }

func redact(v string) string {
	scheme, rest, ok := strings.Cut(v, "://")
	if !ok {
		return v
	}
	if i := strings.Index(strings.ToLower(rest), "password="); i >= 0 {
		j := i + len("password=")
		end := strings.IndexAny(rest[j:], "& ")
		tail := ""
		if end >= 0 {
			tail = rest[j+end:]
		}
		rest = rest[:j] + "xxxxx" + tail
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return scheme + "://" + rest
	}
	user, _, hasPass := strings.Cut(rest[:at], ":")
	if !hasPass {
		return scheme + "://" + rest
	}
	return scheme + "://" + user + ":xxxxx" + rest[at:]
}

// LegacyPath is the store a workspace held before the store moved to the
// state folder.
func LegacyPath(workspace string) string {
	return filepath.Join(workspace, LegacyDir, StoreFile)
}

// FindLegacy returns the legacy stores (.harness/harness.db) of dir and
// its parents, nearest first.
func FindLegacy(dir string) []string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	var out []string
	for d := abs; ; {
		if st, err := os.Stat(LegacyPath(d)); err == nil && st.Mode().IsRegular() {
			out = append(out, LegacyPath(d))
		}
		parent := filepath.Dir(d)
		if parent == d {
			return out
		}
		d = parent
	}
}

// NearestWorkspace returns the recorded workspace that holds dir (dir
// itself or its nearest parent among workspaces), or "" when none does.
// Paths are compared after resolving symlinks where they exist.
func NearestWorkspace(dir string, workspaces []string) string {
	real := realDir(dir)
	best := ""
	for _, ws := range workspaces {
		if !within(real, realDir(ws)) {
			continue
		}
		if len(ws) > len(best) || best == "" {
			best = ws
		}
	}
	return best
}

// Within reports whether path is dir or inside it, after resolving
// symlinks where the paths exist.
func Within(path, dir string) bool { return within(realDir(path), realDir(dir)) }

func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func realDir(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}
