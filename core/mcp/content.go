package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harness-agent/harness/sdk"
)

// maxErrorSummary bounds the part of a failed call's text that goes into
// its error message; the whole text stays in the result's content.
const maxErrorSummary = 300

// toResult maps what tools/call returned onto a tool result: the content
// blocks as text for the model, the same text as the view for people, and
// a server-reported failure (isError) as an error of kind internal whose
// message quotes the server, since the server alone knows what went wrong.
func toResult(tool string, res *mcp.CallToolResult) sdk.Result {
	text := contentText(res.Content, res.StructuredContent)
	out := sdk.Result{Content: text, Presentation: sdk.TextView{Text: text}}
	if res.IsError {
		summary := "it gave no reason"
		if s := strings.TrimSpace(text); s != "" {
			summary = clip(firstLine(s), maxErrorSummary)
		}
		out.Err = sdk.Errorf(sdk.KindInternal, "%s failed on the MCP server: %s", tool, summary)
	}
	return out
}

// contentText renders content blocks one after another: text as it is;
// images and audio as a note of their type and size (a model reading text
// cannot use their bytes); resource links and embedded resources as a line
// naming the URI, followed by an embedded resource's text. A result with
// structured content only is shown as its JSON.
func contentText(blocks []mcp.Content, structured any) string {
	if len(blocks) == 0 && structured != nil {
		if b, err := json.Marshal(structured); err == nil {
			return string(b)
		}
	}
	parts := make([]string, 0, len(blocks))
	for _, c := range blocks {
		parts = append(parts, blockText(c))
	}
	return strings.Join(parts, "\n")
}

func blockText(c mcp.Content) string {
	switch c := c.(type) {
	case *mcp.TextContent:
		return c.Text
	case *mcp.ImageContent:
		return fmt.Sprintf("[image: %s, %d bytes]", orUnknown(c.MIMEType), len(c.Data))
	case *mcp.AudioContent:
		return fmt.Sprintf("[audio: %s, %d bytes]", orUnknown(c.MIMEType), len(c.Data))
	case *mcp.ResourceLink:
		return "[resource link: " + c.URI + describe(c.Name, c.MIMEType) + "]"
	case *mcp.EmbeddedResource:
		r := c.Resource
		if r == nil {
			return "[resource: none]"
		}
		if r.Text != "" {
			return "[resource: " + r.URI + describe(r.MIMEType) + "]\n" + r.Text
		}
		return fmt.Sprintf("[resource: %s%s, %d bytes]", r.URI, describe(r.MIMEType), len(r.Blob))
	default:
		return fmt.Sprintf("[unsupported content: %T]", c)
	}
}

// describe is ", a, b" of the non-empty values, or "".
func describe(values ...string) string {
	var b strings.Builder
	for _, v := range values {
		if v != "" {
			b.WriteString(", ")
			b.WriteString(v)
		}
	}
	return b.String()
}

func orUnknown(mime string) string {
	if mime == "" {
		return "unknown type"
	}
	return mime
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// clip cuts s to at most n bytes, on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
