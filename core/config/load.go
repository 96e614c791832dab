package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// Block types of the configuration.
const (
	blockProvider = "provider"
	blockModel    = "model"
	blockPlugin   = "plugin"
	blockHook     = "hook"
	blockMCP      = "mcp"
	blockAgent    = "agent"
)

var rootSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "workspace"}},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: blockProvider, LabelNames: []string{"name"}},
		{Type: blockModel, LabelNames: []string{"name"}},
		{Type: blockPlugin, LabelNames: []string{"name"}},
		{Type: blockHook, LabelNames: []string{"name"}},
		{Type: blockMCP, LabelNames: []string{"name"}},
		{Type: blockAgent, LabelNames: []string{"name"}},
		{Type: blockTelemetry},
		{Type: blockEngine, LabelNames: []string{"name"}},
	},
}

// Load parses a .hcl file, or every .hcl file of a directory (hidden files such as the lock
// file excepted), decodes DESIGN §4's schema, applies defaults and runs every check that
// needs no plugin. It returns the problems of all files together. The Config is never nil:
// when diags has errors it is partial, good for cfg.Files (diagnostic snippets) only.
//
// When a file does not parse, the syntax errors of every file are returned and nothing is
// decoded: half-parsed blocks would only add noise. Diagnostic filenames are the path as
// given joined with each file's name, so that messages read the way the user typed the
// path; Config's own paths are absolute.
//
// Load knows no built-in provider: their blocks keep Config nil. The harness loads with
// LoadWith and the built-ins' settings schemas.
func Load(path string) (*Config, hcl.Diagnostics) {
	return LoadWith(path, Options{})
}

// Options are what Load needs to know besides the files.
type Options struct {
	// ProviderSchemas returns the settings schema a built-in provider plugin reports
	// (sdk.ProviderDescriber), ok false when name is no built-in. Load decodes the
	// block of a provider on a built-in against it, with the same diagnostics as a
	// plugin's config block, into Provider.Config. The composition root knows the
	// built-ins; core/config does not. A built-in's schema is part of the
	// build, so it is compiled as valid JSON Schema without being checked
	// against the draft's metaschema, whose compilation would cost every run
	// about 2 ms (jsonschema.Compiler.AddTrustedResource); the built-ins'
	// tests check it (internal/integration TestBuiltinProviderSchemasValid).
	ProviderSchemas func(name string) (schema []byte, ok bool)
}

// LoadWith is Load with the built-in providers' schemas.
func LoadWith(path string, opts Options) (*Config, hcl.Diagnostics) {
	return load(path, os.Getenv, opts)
}

// source is one parsed configuration file and the functions its expressions see.
type source struct {
	file *hcl.File
	dir  string // absolute directory of the file
	ctx  *hcl.EvalContext
}

// item is one top-level block with the source it was written in.
type item struct {
	block *hcl.Block
	src   *source
}

func (it item) name() string { return it.block.Labels[0] }

type loader struct {
	cfg   *Config
	diags hcl.Diagnostics
	// declared holds, per block type, every name declared, so that references resolve
	// against what was written even when a block fails to decode.
	declared map[string][]string
	// keep marks the blocks that hold the first declaration of a valid name.
	keep map[*hcl.Block]bool
	opts Options
}

func load(path string, getenv func(string) string, opts Options) (*Config, hcl.Diagnostics) {
	cfg := &Config{Files: map[string]*hcl.File{}, Inputs: map[string][]byte{}}
	record := func(path string, data []byte) {
		if abs, err := filepath.Abs(path); err == nil {
			cfg.Inputs[filepath.Clean(abs)] = data
		}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return cfg, hcl.Diagnostics{loadError(path, err.Error())}
	}
	cfg.Path, cfg.Dir, cfg.Workspace = abs, filepath.Dir(abs), filepath.Dir(abs)
	names, isDir, diags := configFiles(path)
	if diags.HasErrors() {
		return cfg, diags
	}
	if isDir {
		cfg.Dir, cfg.Workspace = abs, abs
	}

	var sources []*source
	for _, name := range names {
		src, err := os.ReadFile(name)
		if err != nil {
			diags = append(diags, loadError(name, err.Error()))
			continue
		}
		f, d := hclsyntax.ParseConfig(src, name, hcl.InitialPos)
		diags = append(diags, d...)
		cfg.Files[name] = f
		absName, _ := filepath.Abs(name)
		sources = append(sources, &source{
			file: f,
			dir:  filepath.Dir(absName),
			ctx:  evalContext(filepath.Dir(absName), filepath.Dir(name), getenv, record),
		})
	}
	// Decoding a file that did not parse would only add noise to its syntax errors.
	if diags.HasErrors() {
		return cfg, diags
	}

	l := &loader{cfg: cfg, diags: diags, declared: map[string][]string{}, keep: map[*hcl.Block]bool{}, opts: opts}
	l.decode(sources)
	l.warnLiteralKeys()
	sortDiagnostics(l.diags)
	return cfg, l.diags
}

// configFiles lists the files to load: path itself, or the .hcl files of a directory.
func configFiles(path string) ([]string, bool, hcl.Diagnostics) {
	path = filepath.Clean(path)
	st, err := os.Stat(path)
	if err != nil {
		return nil, false, hcl.Diagnostics{loadError(path, unwrapPathError(err).Error())}
	}
	if !st.IsDir() {
		return []string{path}, false, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, true, hcl.Diagnostics{loadError(path, unwrapPathError(err).Error())}
	}
	var names []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".hcl") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		name := filepath.Join(path, e.Name())
		if st, err := os.Stat(name); err == nil && st.Mode().IsRegular() { // follows symlinks
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil, true, hcl.Diagnostics{loadError(path, "the directory has no .hcl files")}
	}
	return names, true, nil
}

func loadError(path, reason string) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Cannot read configuration",
		Detail:   fmt.Sprintf("%s: %s.", path, reason),
	}
}

func (l *loader) errorf(rng hcl.Range, summary, format string, args ...any) {
	l.diags = append(l.diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail:   fmt.Sprintf(format, args...),
		Subject:  rng.Ptr(),
	})
}

func (l *loader) attrs(src *source, m hcl.Attributes) *attrs {
	return &attrs{ctx: src.ctx, m: m, diags: &l.diags}
}

// content applies a block schema to a block body.
func (l *loader) content(body hcl.Body, schema *hcl.BodySchema) *hcl.BodyContent {
	c, d := body.Content(schema)
	l.diags = append(l.diags, d...)
	return c
}

func (l *loader) decode(sources []*source) {
	byType := map[string][]item{}
	var workspace *hcl.Attribute
	var workspaceSrc *source
	for _, src := range sources {
		c := l.content(src.file.Body, rootSchema)
		if ws, ok := c.Attributes["workspace"]; ok {
			if workspace != nil {
				l.errorf(ws.NameRange, "Duplicate workspace attribute",
					"workspace is already set at %s.", workspace.NameRange)
			} else {
				workspace, workspaceSrc = ws, src
			}
		}
		for _, b := range c.Blocks {
			byType[b.Type] = append(byType[b.Type], item{block: b, src: src})
		}
	}
	if workspace != nil {
		l.decodeWorkspace(workspace, workspaceSrc)
	}

	// Plugins and hooks share one namespace: the lock file's.
	l.declare(blockProvider, byType[blockProvider], nil)
	l.declare(blockPlugin, byType[blockPlugin], nil)
	l.declare(blockHook, byType[blockHook], byType[blockPlugin])
	l.declare(blockMCP, byType[blockMCP], nil)
	l.declare(blockModel, byType[blockModel], nil)
	l.declare(blockAgent, byType[blockAgent], nil)

	// Blocks whose name was taken are still decoded, for their own errors, but not kept.
	keep := func(it item) bool { return l.keep[it.block] }
	for _, it := range byType[blockProvider] {
		if p := l.decodeProvider(it); keep(it) {
			l.cfg.Providers = append(l.cfg.Providers, p)
		}
	}
	for _, it := range byType[blockPlugin] {
		if p := l.decodePlugin(it); keep(it) {
			l.cfg.Plugins = append(l.cfg.Plugins, p)
		}
	}
	for _, it := range byType[blockHook] {
		if h := l.decodeHook(it); keep(it) {
			l.cfg.Hooks = append(l.cfg.Hooks, h)
		}
	}
	for _, it := range byType[blockMCP] {
		if m := l.decodeMCP(it); keep(it) {
			l.cfg.MCPServers = append(l.cfg.MCPServers, m)
		}
	}
	for _, it := range byType[blockModel] {
		if m := l.decodeModel(it); keep(it) {
			l.cfg.Models = append(l.cfg.Models, m)
		}
	}
	for _, it := range byType[blockAgent] {
		if a := l.decodeAgent(it); keep(it) {
			l.cfg.Agents = append(l.cfg.Agents, a)
		}
	}
	l.decodeTelemetry(byType[blockTelemetry])
	l.decodeEngine(byType[blockEngine])
	if len(byType[blockAgent]) == 0 {
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagWarning,
			Summary:  "No agent declared",
			Detail:   "The configuration declares no agent block, so there is nothing to run.",
		})
	}
}

// declare records the names of a block type, reporting invalid and duplicate names.
// also lists blocks of another type that share the namespace.
func (l *loader) declare(kind string, items, also []item) {
	first := map[string]hcl.Range{}
	for _, it := range also {
		if _, ok := first[it.name()]; !ok {
			first[it.name()] = it.block.LabelRanges[0]
		}
	}
	for _, it := range items {
		name, rng := it.name(), it.block.LabelRanges[0]
		if prev, dup := first[name]; dup {
			l.errorf(rng, fmt.Sprintf("Duplicate %s %q", kind, name),
				"The name %q is already declared at %s; %s names must be unique.", name, prev, kind)
			continue
		}
		first[name] = rng
		l.declared[kind] = append(l.declared[kind], name)
		if !validName(name) {
			l.errorf(rng, fmt.Sprintf("Invalid %s name", kind),
				"%q is not a valid name: use letters, digits, '-', '_' and '.' only.", name)
			continue
		}
		l.keep[it.block] = true
	}
}

func (l *loader) isDeclared(kind, name string) bool {
	return slices.Contains(l.declared[kind], name)
}

// reference reports a reference to a block that is not declared.
func (l *loader) reference(kind, name string, rng hcl.Range, from string) bool {
	if l.isDeclared(kind, name) {
		return true
	}
	l.errorf(rng, fmt.Sprintf("Reference to undeclared %s", kind),
		"%s refers to %s %q, which is not declared.%s", from, kind, name, didYouMean(name, l.declared[kind]))
	return false
}

func (l *loader) decodeWorkspace(attr *hcl.Attribute, src *source) {
	a := l.attrs(src, hcl.Attributes{"workspace": attr})
	var written string
	if !a.nonEmptyStr("workspace", &written) {
		return
	}
	ws := written
	if !filepath.IsAbs(ws) {
		ws = filepath.Join(l.cfg.Dir, ws)
	}
	ws = filepath.Clean(ws)
	st, err := os.Stat(ws)
	switch {
	case err != nil:
		l.errorf(attr.Expr.Range(), "Workspace not found",
			"workspace %q: %s; a relative workspace starts at the configuration's directory.",
			written, unwrapPathError(err))
	case !st.IsDir():
		l.errorf(attr.Expr.Range(), "Workspace not found", "workspace %q is not a directory.", written)
	default:
		l.cfg.Workspace = ws
	}
}

// validName accepts the names of blocks: no spaces, no control or quoting characters.
func validName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("-_.", r)) {
			return false
		}
	}
	return true
}

// resolveFile resolves a plugin or hook path against its file's directory and reports
// when it is not a file.
func (l *loader) resolveFile(a *attrs, src *source, kind, name string) string {
	var p string
	if !a.nonEmptyStr("path", &p) {
		return ""
	}
	full := p
	if !filepath.IsAbs(p) {
		full = filepath.Join(src.dir, p)
	}
	full = filepath.Clean(full)
	st, err := os.Stat(full)
	switch {
	case err != nil:
		l.errorf(a.rangeOf("path"), fmt.Sprintf("%s file not found", upperFirst(kind)),
			"%s %q: %s: %s; relative paths start at the directory of the file that declares it.",
			kind, name, p, unwrapPathError(err))
	case st.IsDir():
		l.errorf(a.rangeOf("path"), fmt.Sprintf("%s file not found", upperFirst(kind)),
			"%s %q: %s is a directory, not an executable.", kind, name, p)
	}
	return full
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
