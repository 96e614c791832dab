// Package scaffold writes the module of a new plugin (`harness plugins
// new`): a main.go, a test using sdk/sdktest, a go.mod and an agent.hcl
// that runs the plugin offline. The templates are embedded; the output
// builds outside this repository.
package scaffold

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"text/template"

	"github.com/hashicorp/hcl/v2/hclwrite"
)

//go:embed templates
var templates embed.FS

// Module is the import path of the harness SDK's module.
const Module = "github.com/harness-agent/harness"

// Kinds of plugin the scaffold writes.
const (
	KindTool     = "tool"
	KindProvider = "provider"
)

// validName is compiled on first use: its bounded repetition makes a large
// program that every process (each plugin included) would pay at init.
var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9-]{0,39}$`) })

// Options say what to write.
type Options struct {
	Name string // lower case letters, digits and dashes: "wordcount"
	Kind string // KindTool or KindProvider
	Dir  string // where to write; must not exist or be empty
	// Replace is the local checkout of the harness module the go.mod's
	// replace directive points at ("" writes "../harness").
	Replace string
}

type data struct {
	Name, Kind, Ident, Tool, Binary, Module, Replace string
}

// Write writes the plugin module and returns the paths written, relative
// to Dir.
func Write(o Options) ([]string, error) {
	if !validName().MatchString(o.Name) {
		return nil, fmt.Errorf("plugin name %q: use lower-case letters, digits and dashes, starting with a letter (at most 40)", o.Name)
	}
	if o.Kind != KindTool && o.Kind != KindProvider {
		return nil, fmt.Errorf("plugin kind %q: use %q or %q", o.Kind, KindTool, KindProvider)
	}
	if entries, err := os.ReadDir(o.Dir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%s is not empty: choose a new directory for the plugin %q", o.Dir, o.Name)
	}
	replace := o.Replace
	if replace == "" {
		replace = "../harness"
	}
	d := data{
		Name: o.Name, Kind: o.Kind, Ident: strings.ReplaceAll(o.Name, "-", "_"),
		Tool: strings.ReplaceAll(o.Name, "-", "_"), Binary: "harness-" + o.Kind + "-" + o.Name,
		Module: Module, Replace: filepath.ToSlash(replace),
	}
	root := path.Join("templates", o.Kind)
	var written []string
	err := fs.WalkDir(templates, root, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		src, err := templates.ReadFile(p)
		if err != nil {
			return err
		}
		t, err := template.New(p).Delims("[[", "]]").Parse(string(src))
		if err != nil {
			return err
		}
		var out bytes.Buffer
		if err := t.Execute(&out, d); err != nil {
			return err
		}
		rel := strings.TrimSuffix(strings.TrimPrefix(p, root+"/"), ".tmpl")
		body := out.Bytes()
		if strings.HasSuffix(rel, ".hcl") {
			// The alignment of = and comments depends on the name filled
			// in: format as `harness fmt` does, so `fmt --check` passes.
			body = hclwrite.Format(body)
		}
		dst := filepath.Join(o.Dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, body, 0o644); err != nil {
			return err
		}
		written = append(written, rel)
		return nil
	})
	return written, err
}
