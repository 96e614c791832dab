// Package textedit applies exact-string edits to the text of a file: the
// logic of the edit_file tool, shared by the write plugin, which applies
// them, and the host's approval pipeline, which shows people the diff an
// edit will make before they approve it. Both sides must compute the same
// result, so they use this one implementation.
//
// An edit replaces an exact old string by a new one. It is refused when the
// old string is absent (the error lists the nearest candidates with their
// line numbers) or occurs more than once without ReplaceAll (the error lists
// where). Several edits apply in order, each to the result of the previous
// one, all or nothing. In a file whose line endings are all CRLF, an edit
// written with bare LF line endings (neither string holds a CR) is matched
// and written with CRLF, so the file keeps its line endings. Nothing outside
// the matched text changes: the final newline, or its absence, stays.
package textedit
