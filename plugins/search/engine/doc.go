// Package engine is the search behind the search_workspace tool: given a
// workspace root and a [Query], it returns the matching lines, counted and
// sorted, as ripgrep's default invocation would find them.
//
// It owns which files a search looks at, how a pattern is matched against
// their lines, and how hits are ordered, capped and shaped (line text,
// context lines). It does not own the tool: the argument schema, the JSON
// decoding, the text the model reads, the presentation for people and the
// plugin process belong to the search plugin that wraps this package. It
// reads files and never writes.
//
// # Which files
//
// The walk starts at the root, or at Query.Path (a folder or a file
// relative to the root; ".." and absolute paths are refused, and so is a
// symbolic link that leads outside the root). Like ripgrep by default it
//
//   - honours .gitignore files in the root and in every folder below it,
//     each relative to its own folder, with git's rules: last match wins,
//     "!" negates, a trailing "/" matches folders only, a leading or inner
//     "/" anchors, "**" spans folders, "\" escapes; a deeper file decides
//     before its parents; .git/info/exclude applies below all of them; the
//     .gitignore files of the folders above Query.Path apply to it;
//   - skips hidden files and folders (names starting with '.'), unless a
//     negated pattern names them ("!.env");
//   - does not follow symbolic links at any step: the root is resolved
//     once, then every folder and file is opened with no link allowed in
//     any component (openat2 RESOLVE_NO_SYMLINKS, else openat with
//     O_NOFOLLOW per component), so a folder swapped for a link while the
//     walk runs is skipped, never followed; and searches only regular
//     files, checked on the opened file (a FIFO swapped in is not read);
//   - skips binary files: a file containing a NUL byte is not searched.
//
// It always skips folders named .git (git's data) and .harness (the
// harness's state), and refuses a Query.Path inside one. Query.Path itself
// is searched even when ignored or hidden, as ripgrep searches a path given
// on its command line. Query.Glob narrows the files searched; a glob
// without '/' is matched against the file name, one with '/' against the
// path relative to the root (doublestar syntax), and its literal leading
// folders ("src/app/" in "src/app/**/*.go") keep the walk out of the
// others.
//
// # How lines match
//
// A line is the text between two '\n'. A trailing '\r' is part of the line
// while matching (so "x$" does not match "x\r\n", as in ripgrep without
// --crlf) and is removed from Hit.Text. A UTF-8 byte order mark at the start
// of a file is not part of its first line. A literal query is searched in
// the whole file at once, and lines are delimited only around a match; a
// regexp query is first narrowed to the lines that contain a literal every
// match must contain (found with the regexp/syntax tree) and only those
// lines run the regexp. Regexps use Go's RE2 syntax; ^, $, \A and \z
// anchor to the line, as in ripgrep.
//
// # Results
//
// Result.Total and Result.Files count every matching line and file;
// Result.Hits holds the first Query.MaxResults hits in path order (segment
// by segment, like rg --sort path) then line order, whatever the order the
// parallel workers finished in. Hit.Text is valid UTF-8 (invalid bytes
// become U+FFFD) and at most about MaxLineBytes long: a longer line is cut
// to an excerpt around the match, marked with "…" and its full length.
//
// # Known differences from ripgrep 13
//
//   - .gitignore files apply whether or not the root is a git repository
//     (rg needs a .git folder or --no-require-git). .ignore and .rgignore
//     files, the global core.excludesFile and ignore files above the root
//     are not read. Nested repositories get no special treatment.
//   - A path below the root gets all the root's ignore rules, as git and
//     "cd path && rg" do; rg 13 applies only some of them to a path
//     argument (BurntSushi/ripgrep#1757).
//   - Ignore patterns follow git's wildmatch byte for byte: "{a,b}" is
//     literal and "?" matches one byte. ripgrep's globs take braces as
//     alternatives and "?" as one character.
//   - rg -g re-includes ignored and hidden files that match the glob; here
//     the glob only narrows what the ignore rules let through. One glob,
//     without "!" negation.
//   - A file with a NUL byte anywhere is skipped. rg checks buffer by
//     buffer, so it still prints the matches of a large file that come
//     before a NUL found past its first buffer (with a warning; rg -c then
//     counts nothing, like this engine).
//   - rg transcodes UTF-16 files that start with a byte order mark; here
//     they contain NUL bytes and are skipped as binary.
//   - Regexp syntax is RE2 as implemented by Go, not Rust's regex crate:
//     \w, \d, \s and \b are ASCII-only (Unicode-aware in rg; use
//     \p{L}, \p{Nd} for Unicode); no class set operations ([a-z&&[^aeiou]])
//     and no (?x) verbose mode; invalid UTF-8 in a file matches as U+FFFD
//     rather than as raw bytes.
//     Case-insensitive matching uses Unicode simple case folding in both
//     (so "k" also matches the Kelvin sign). A line feed in the pattern is
//     an error in both.
//   - rg prints whole lines; Hit.Text is capped. Each hit carries its own
//     context lines, so overlapping contexts repeat lines where rg merges
//     them.
//   - Unreadable files and folders are skipped silently (rg warns).
//   - rg streams each file through a 64 KiB buffer; here a file is read
//     whole, so files over MaxFileBytes (32 MiB) are not searched at all
//     but listed in Result.Skipped: memory stays within one such buffer
//     per worker.
//   - Hidden means a name starting with '.', on every platform (rg on
//     Windows also honours the hidden attribute).
//
// # Performance
//
// One worker per GOMAXPROCS shares a LIFO of directories to list and of
// batches of a directory's files to search. On Linux a directory is listed
// with getdents (entry types come with the names: no stat per entry) and
// its files are opened relative to it with openat, so the kernel does not
// walk the full path for every file; the directory stays open until the
// last batch of its files is searched. Each file is read whole with bare
// read calls into the worker's buffer, reused across files and searches.
// .gitignore files are compiled once per folder. A literal is found by
// looking for its rarest byte with the vectorized bytes.IndexByte (a byte
// frequency table picks it), confirming with a second byte, then comparing;
// lines are delimited and numbered only around the hits that are kept, the
// NUL check runs only on files with a match, and nothing is allocated per
// line. Elsewhere, directories are listed with os.ReadDir and files opened
// by path.
package engine
