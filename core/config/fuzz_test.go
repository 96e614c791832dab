package config

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad feeds arbitrary sources to Load (with the test stand-ins for the built-in
// providers' schemas): whatever the input, Load, Check and the diagnostic renderers must
// return, not panic. Seeds: testdata/fuzz/FuzzLoad, the valid fixtures and the built-in
// providers' invalid settings.
func FuzzLoad(f *testing.F) {
	for _, name := range []string{"valid/full.hcl", "valid/minimal.hcl", "valid/functions.hcl", "invalid/providers.hcl"} {
		src, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "fuzz.hcl")
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, diags := loadTest(path)
		if cfg == nil || cfg.Files == nil {
			t.Fatal("Load returned no Config")
		}
		if !diags.HasErrors() {
			diags = append(diags, Check(cfg, newFakeCatalog())...)
		}
		if err := WriteDiagnostics(io.Discard, cfg.Files, diags, 80, false); err != nil {
			t.Fatal(err)
		}
		if _, err := DiagnosticsJSON(cfg.Files, diags); err != nil {
			t.Fatal(err)
		}
	})
}
