// Package search is the search_workspace tool plugin: literal and regex
// search over the workspace, .gitignore aware, through the fast engine in
// ./engine. This package only adapts the engine to the plugin protocol:
// arguments, the text the model reads, and the search presentation.
package search
