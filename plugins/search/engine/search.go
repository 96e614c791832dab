package engine

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/harness-agent/harness/sdk"
)

// Query describes one search.
type Query struct {
	Pattern      string
	Regex        bool   // false: Pattern is literal text
	Path         string // sub-folder (or file) relative to the root, "" for the root; must stay inside it
	Glob         string // doublestar glob on the slash path relative to the root ("**/*.go"); without '/' it matches the base name ("*.go"), like rg -g
	MaxResults   int    // cap on returned hits, 0 for DefaultMaxResults; Result.Total still counts every matching line
	ContextLines int    // lines of context before and after each hit, 0..MaxContextLines
	IgnoreCase   bool
}

// Hit is one matching line.
type Hit struct {
	Path   string // slash-separated, relative to the root
	Line   int    // 1-based
	Text   string // the line without its line ending, valid UTF-8, long lines cut (see MaxLineBytes)
	Before []string
	After  []string
}

// Result is the outcome of a search.
type Result struct {
	Total     int      // matching lines in all files
	Files     int      // files with at least one matching line
	Hits      []Hit    // sorted by path (segment by segment) then line; the first MaxResults
	Truncated bool     // Total > len(Hits)
	Skipped   []string // files over MaxFileBytes, not searched, sorted
}

// Limits of a query.
const (
	DefaultMaxResults = 200
	MaxContextLines   = 10
)

// Search searches the files under root (or under root/q.Path) for lines
// matching q. It skips what a developer would not want searched, the way
// ripgrep does by default; see the package documentation for the rules and
// the known differences from ripgrep.
//
// Errors are *sdk.Error values: KindInvalidArgs for a bad pattern, glob or
// limit, or a path that does not exist; KindPathEscape for a path that
// leaves the root. A canceled ctx returns ctx.Err().
func Search(ctx context.Context, root string, q Query) (Result, error) {
	if err := checkLimits(&q); err != nil {
		return Result{}, err
	}
	newMatcher, err := compileMatcher(q)
	if err != nil {
		return Result{}, err
	}
	glob, err := compileGlob(q.Glob)
	if err != nil {
		return Result{}, err
	}
	root, from, err := realOrigin(root, q.Path)
	if err != nil {
		return Result{}, err
	}
	s := &search{
		ctx:          ctx,
		rootPrefix:   withSeparator(root),
		glob:         glob,
		newMatcher:   newMatcher,
		contextLines: q.ContextLines,
		coll:         newCollector(q.MaxResults),
	}
	if err := s.run(from); err != nil {
		return Result{}, err
	}
	return s.coll.result(), nil
}

// checkLimits validates the numeric fields of q and applies the default cap.
func checkLimits(q *Query) error {
	if q.MaxResults < 0 {
		return sdk.Errorf(sdk.KindInvalidArgs, "max_results is %d; it must be 0 (default %d) or more", q.MaxResults, DefaultMaxResults)
	}
	if q.ContextLines < 0 || q.ContextLines > MaxContextLines {
		return sdk.Errorf(sdk.KindInvalidArgs, "context_lines is %d; it must be between 0 and %d", q.ContextLines, MaxContextLines)
	}
	if q.MaxResults == 0 {
		q.MaxResults = DefaultMaxResults
	}
	return nil
}

// globFilter selects files by Query.Glob.
type globFilter struct {
	pattern  string
	basename bool   // no '/' in the pattern: match the file name only
	folder   string // the pattern's literal leading folders ("src/app/" for "src/app/**/*.go")
}

func compileGlob(glob string) (*globFilter, error) {
	if glob == "" {
		return nil, nil
	}
	g := &globFilter{pattern: strings.TrimPrefix(glob, "/"), basename: !strings.Contains(glob, "/")}
	if !doublestar.ValidatePattern(g.pattern) {
		return nil, sdk.Errorf(sdk.KindInvalidArgs, "glob %q is not a valid pattern (doublestar syntax: *, **, ?, [a-z], {a,b})", glob)
	}
	if !g.basename {
		literal := g.pattern
		if i := strings.IndexAny(literal, "*?[{\\"); i >= 0 {
			literal = literal[:i]
		}
		g.folder = literal[:strings.LastIndexByte(literal, '/')+1]
	}
	return g, nil
}

func (g *globFilter) matches(rel, name string) bool {
	if g.basename {
		return doublestar.MatchUnvalidated(g.pattern, name)
	}
	return doublestar.MatchUnvalidated(g.pattern, rel)
}

// mayContain reports whether files under the folder rel can match: the
// folder must lie on the way to the glob's literal folders or below them.
func (g *globFilter) mayContain(rel string) bool {
	dir := rel + "/"
	return strings.HasPrefix(dir, g.folder) || strings.HasPrefix(g.folder, dir)
}

// origin is where the walk begins: the root or the folder or file q.Path
// names, with the ignore files of the folders above it.
type origin struct {
	rel    string // slash path relative to the root, "" for the root
	isDir  bool
	ignore *ignoreFile
}

// resolveOrigin validates q.Path and loads the ignore rules that apply to it:
// .git/info/exclude and the .gitignore files of the root and of every folder
// on the way down, as ripgrep reads the ignore files of a path's parents.
func resolveOrigin(root, path string) (origin, error) {
	info, err := os.Stat(root)
	if err != nil {
		return origin{}, sdk.Errorf(sdk.KindInvalidArgs, "workspace %s cannot be searched: %v", root, err)
	}
	if !info.IsDir() {
		return origin{}, sdk.Errorf(sdk.KindInvalidArgs, "workspace %s is not a folder", root)
	}
	rel, err := cleanRel(root, path)
	if err != nil {
		return origin{}, err
	}
	ign := loadIgnore(filepath.Join(root, ".git", "info", "exclude"), nil, "")
	o := origin{rel: rel, isDir: true}
	if rel != "" {
		abs := filepath.Join(root, filepath.FromSlash(rel))
		if err := checkInside(root, abs, path); err != nil {
			return origin{}, err
		}
		info, err := os.Stat(abs)
		if err != nil {
			return origin{}, sdk.Errorf(sdk.KindInvalidArgs, "path %q does not exist in the workspace %s", path, root)
		}
		if !info.IsDir() && !info.Mode().IsRegular() {
			return origin{}, sdk.Errorf(sdk.KindInvalidArgs, "path %q is neither a folder nor a regular file", path)
		}
		o.isDir = info.IsDir()
		// The ignore files above the start folder; its own is read by the walk.
		dir := ""
		for _, seg := range strings.Split(rel, "/") {
			ign = loadIgnore(filepath.Join(root, filepath.FromSlash(dir), ".gitignore"), ign, dir)
			dir += seg + "/"
		}
	}
	o.ignore = ign
	return o, nil
}

// realOrigin resolves the root and the origin to their real paths: the
// walk then opens every folder and file refusing a symbolic link at any
// component, so a folder swapped for a link while the search runs shows
// nothing outside (it is skipped).
func realOrigin(root, path string) (string, origin, error) {
	root = filepath.Clean(root)
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", origin{}, sdk.Errorf(sdk.KindInvalidArgs, "workspace %s cannot be searched: %v", root, err)
	}
	from, err := resolveOrigin(realRoot, path)
	if err != nil {
		return "", origin{}, err
	}
	if from.rel != "" {
		real, err := filepath.EvalSymlinks(filepath.Join(realRoot, filepath.FromSlash(from.rel)))
		if err != nil {
			return "", origin{}, sdk.Errorf(sdk.KindInvalidArgs, "path %q cannot be searched: %v", path, err)
		}
		rel, err := filepath.Rel(realRoot, real)
		if err != nil || !filepath.IsLocal(rel) && rel != "." {
			return "", origin{}, sdk.Errorf(sdk.KindPathEscape, "path %q leads outside the workspace %s through a symbolic link", path, root)
		}
		from.rel = filepath.ToSlash(rel)
		if from.rel == "." {
			from.rel = ""
		}
	}
	return realRoot, from, nil
}

// cleanRel validates a query path and returns it cleaned and slash-separated.
func cleanRel(root, path string) (string, error) {
	if path == "" || path == "." {
		return "", nil
	}
	native := filepath.FromSlash(path)
	if strings.ContainsRune(path, 0) || filepath.IsAbs(native) || strings.HasPrefix(path, "/") || !filepath.IsLocal(native) {
		return "", sdk.Errorf(sdk.KindPathEscape, "path %q is outside the workspace %s; give a folder relative to it", path, root)
	}
	rel := filepath.ToSlash(filepath.Clean(native))
	for _, seg := range strings.Split(rel, "/") {
		if alwaysSkipped(seg) {
			return "", sdk.Errorf(sdk.KindInvalidArgs, "path %q is inside %s, which search never looks into", path, seg)
		}
	}
	return rel, nil
}

// checkInside refuses a path that leaves the root through a symbolic link.
func checkInside(root, abs, path string) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return sdk.Errorf(sdk.KindInvalidArgs, "workspace %s cannot be searched: %v", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return sdk.Errorf(sdk.KindInvalidArgs, "path %q does not exist in the workspace %s", path, root)
	}
	if err != nil {
		return sdk.Errorf(sdk.KindInvalidArgs, "path %q cannot be searched: %v", path, err)
	}
	if rel, err := filepath.Rel(realRoot, real); err != nil || !filepath.IsLocal(rel) && rel != "." {
		return sdk.Errorf(sdk.KindPathEscape, "path %q leads outside the workspace %s through a symbolic link", path, root)
	}
	return nil
}

// loadIgnore reads an ignore file and chains it below parent; a missing or
// unreadable file leaves the chain as it is.
func loadIgnore(file string, parent *ignoreFile, base string) *ignoreFile {
	content, err := readNoSymlinks(file, nil)
	if err != nil {
		return parent
	}
	return chainIgnore(content, parent, base)
}

// chainIgnore compiles the content of the ignore file of the folder base
// and chains it below parent (unless it has no pattern).
func chainIgnore(content []byte, parent *ignoreFile, base string) *ignoreFile {
	patterns := parseIgnore(content)
	if len(patterns) == 0 {
		return parent
	}
	return &ignoreFile{parent: parent, base: base, patterns: patterns}
}

// alwaysSkipped names the folders no search enters: git's own data and the
// harness's state.
func alwaysSkipped(name string) bool {
	return name == ".git" || name == ".harness"
}

func withSeparator(dir string) string {
	if strings.HasSuffix(dir, string(filepath.Separator)) {
		return dir
	}
	return dir + string(filepath.Separator)
}
