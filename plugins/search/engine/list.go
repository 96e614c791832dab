package engine

import (
	"context"
	"path/filepath"
	"slices"

	"github.com/harness-agent/harness/sdk"
)

// ListQuery describes one listing.
type ListQuery struct {
	Pattern string // doublestar glob on the path relative to the root; without '/' it matches the base name; "" lists everything
	Path    string // sub-folder relative to the root, "" for the root; must stay inside it
	Max     int    // cap on returned entries, 0 for DefaultMaxEntries
}

// Listing is the outcome of List.
type Listing struct {
	Entries []string // slash paths relative to the root, sorted; folders end in "/"
	Total   int      // entries that matched, shown or not
}

// DefaultMaxEntries caps a listing.
const DefaultMaxEntries = 1000

// List walks the folder q.Path of root with the rules of Search (ignore
// files, hidden names, .git and .harness skipped, symbolic links not
// followed) and returns the files and folders whose path matches
// q.Pattern, sorted. Errors are *sdk.Error values as Search's.
func List(ctx context.Context, root string, q ListQuery) (Listing, error) {
	if q.Max < 0 {
		return Listing{}, sdk.Errorf(sdk.KindInvalidArgs, "max_results is %d; it must be 0 (default %d) or more", q.Max, DefaultMaxEntries)
	}
	if q.Max == 0 {
		q.Max = DefaultMaxEntries
	}
	glob, err := compileGlob(q.Pattern)
	if err != nil {
		return Listing{}, err
	}
	root, from, err := realOrigin(root, q.Path)
	if err != nil {
		return Listing{}, err
	}
	if !from.isDir {
		return Listing{}, sdk.Errorf(sdk.KindInvalidArgs, "path %q is a file, not a folder: read it with read_file", q.Path)
	}
	var (
		out     Listing
		scratch []byte
		stack   = []dirInfo{{rel: from.rel, ignore: from.ignore}}
	)
	prefix := withSeparator(root)
	for len(stack) > 0 {
		if err := ctx.Err(); err != nil {
			return Listing{}, err
		}
		dir := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		h, entries, err := openDir(prefix+filepath.FromSlash(dir.rel), &scratch)
		if err != nil {
			continue // unreadable folders are skipped, as the search does
		}
		ign := dir.ignore
		for _, e := range entries {
			if e.name == ".gitignore" && e.kind == kindFile {
				if content, err := h.readFile(e.name, nil); err == nil {
					ign = chainIgnore(content, ign, dirBase(dir.rel))
				}
				break
			}
		}
		h.release()
		for _, e := range entries {
			isDir := e.kind == kindDir
			if !isDir && e.kind != kindFile || isDir && alwaysSkipped(e.name) {
				continue
			}
			rel := joinRel(dir.rel, e.name)
			if !visible(ign, rel, e.name, isDir) {
				continue
			}
			if isDir {
				stack = append(stack, dirInfo{rel: rel, ignore: ign})
			}
			if glob != nil && !glob.matches(rel, e.name) {
				continue
			}
			out.Total++
			if isDir {
				rel += "/"
			}
			out.Entries = append(out.Entries, rel)
			if len(out.Entries) >= 4*q.Max {
				out.Entries = firstSorted(out.Entries, q.Max) // memory stays bounded in a huge tree
			}
		}
	}
	out.Entries = firstSorted(out.Entries, q.Max)
	return out, nil
}

// firstSorted returns the n entries that sort first, sorted.
func firstSorted(entries []string, n int) []string {
	slices.SortFunc(entries, comparePaths)
	return entries[:min(n, len(entries))]
}
