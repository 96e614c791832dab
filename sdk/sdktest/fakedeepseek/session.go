package fakedeepseek

import (
	"fmt"
	"strings"
)

// readTools are the file-reading tools ReadSession knows, with the name of
// their path argument: harness's read_file and Crush's view.
var readTools = []struct{ name, arg string }{{"read_file", "path"}, {"view", "file_path"}}

// ReadSession is a script for [Server.Script] that any OpenAI-compatible
// agent can run: a request that offers a file-reading tool (read_file or
// view) gets a call of it until the request carries turns-1 tool results,
// and then an answer; a request without such a tool (a title, a summary)
// gets an answer. The k-th read (from 1) is of fmt.Sprintf(file, k) when
// file holds a %d verb, else of file.
//
// It decides from each request alone (how many "tool" messages it holds),
// so sessions of different clients run one after another, and a client's
// extra requests, need no state.
func ReadSession(turns int, file string) func(Request) Response {
	return func(r Request) Response {
		tool, arg := readTool(r.Body)
		done := toolResults(r.Body)
		if tool == "" || done >= turns-1 {
			return Scripted(Turn{Text: "The notes list two open TODOs: the parser and the docs."})
		}
		path := file
		if strings.Contains(file, "%d") {
			path = fmt.Sprintf(file, done+1)
		}
		return Scripted(Turn{Text: "Let me read the notes.",
			ToolCalls: []ToolCall{{Name: tool, Arguments: fmt.Sprintf(`{%q: %q}`, arg, path)}}})
	}
}

// ToolResults counts the "tool" messages of a request's body: the turns a
// client has completed in a ReadSession.
func ToolResults(r Request) int { return toolResults(r.Body) }

// readTool is the first file-reading tool the request offers.
func readTool(body map[string]any) (name, arg string) {
	tools, _ := body["tools"].([]any)
	offered := map[string]bool{}
	for _, t := range tools {
		tm, _ := t.(map[string]any)
		fn, _ := tm["function"].(map[string]any)
		if n, ok := fn["name"].(string); ok {
			offered[n] = true
		}
	}
	for _, t := range readTools {
		if offered[t.name] {
			return t.name, t.arg
		}
	}
	return "", ""
}

func toolResults(body map[string]any) int {
	msgs, _ := body["messages"].([]any)
	n := 0
	for _, m := range msgs {
		if mm, _ := m.(map[string]any); mm["role"] == "tool" {
			n++
		}
	}
	return n
}
