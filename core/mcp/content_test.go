package mcp

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harness-agent/harness/sdk"
)

func TestToResult(t *testing.T) {
	t.Parallel()
	size := int64(12)
	tests := []struct {
		name    string
		res     *mcp.CallToolResult
		content string
		errKind sdk.ErrorKind
		errHas  string
	}{
		{"text", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Echo: hi"}}}, "Echo: hi", "", ""},
		{"several blocks", &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "first"}, &mcp.TextContent{Text: "second"},
		}}, "first\nsecond", "", ""},
		{"image", &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "A tiny image:"}, &mcp.ImageContent{MIMEType: "image/png", Data: make([]byte, 1234)},
		}}, "A tiny image:\n[image: image/png, 1234 bytes]", "", ""},
		{"audio without type", &mcp.CallToolResult{Content: []mcp.Content{&mcp.AudioContent{Data: []byte{1, 2}}}},
			"[audio: unknown type, 2 bytes]", "", ""},
		{"resource link", &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.ResourceLink{URI: "demo://resource/1", Name: "Resource 1", MIMEType: "text/plain", Size: &size},
		}}, "[resource link: demo://resource/1, Resource 1, text/plain]", "", ""},
		{"embedded text resource", &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///a.txt", MIMEType: "text/plain", Text: "hello"}},
		}}, "[resource: file:///a.txt, text/plain]\nhello", "", ""},
		{"embedded blob resource", &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "demo://b", Blob: []byte("abc")}},
		}}, "[resource: demo://b, 3 bytes]", "", ""},
		{"structured only", &mcp.CallToolResult{StructuredContent: map[string]any{"temp": 21}}, `{"temp":21}`, "", ""},
		{"empty", &mcp.CallToolResult{}, "", "", ""},
		{"isError", &mcp.CallToolResult{IsError: true, Content: []mcp.Content{
			&mcp.TextContent{Text: "Access denied - path outside allowed directories\ndetails"},
		}}, "Access denied - path outside allowed directories\ndetails", sdk.KindInternal,
			"fs__read_file failed on the MCP server: Access denied - path outside allowed directories"},
		{"isError without text", &mcp.CallToolResult{IsError: true}, "", sdk.KindInternal, "it gave no reason"},
		{"isError long", &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("é", 400)}}},
			strings.Repeat("é", 400), sdk.KindInternal, "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := toResult("fs__read_file", tt.res)
			if got.Content != tt.content {
				t.Errorf("content %q, want %q", got.Content, tt.content)
			}
			if v, ok := got.Presentation.(sdk.TextView); !ok || v.Text != tt.content {
				t.Errorf("presentation %#v, want a text view of the content", got.Presentation)
			}
			switch {
			case tt.errKind == "" && got.Err != nil:
				t.Errorf("unexpected error %v", got.Err)
			case tt.errKind != "" && (got.Err == nil || got.Err.Kind != tt.errKind || !strings.Contains(got.Err.Message, tt.errHas)):
				t.Errorf("error %v, want kind %s saying %q", got.Err, tt.errKind, tt.errHas)
			}
			if got.Err != nil && len(got.Err.Message) > maxErrorSummary+100 {
				t.Errorf("error message of %d bytes: the text belongs in the content", len(got.Err.Message))
			}
		})
	}
}
