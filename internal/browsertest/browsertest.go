// Package browsertest runs test pages in a real headless Chromium, driven
// through the DevTools protocol (chromedp).
//
// Chromium comes from the OS packages (scripts/test.sh installs it when it
// is missing); HARNESS_CHROMIUM names another binary. A test that finds
// none is skipped with the reason printed. Each browser gets a fresh
// profile and runs with networking features off, so a page under test can
// reach nothing but what it carries.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Find returns the Chromium binary to use, or why there is none.
func Find() (path, reason string) {
	if p := os.Getenv("HARNESS_CHROMIUM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", "HARNESS_CHROMIUM=" + p + ": " + err.Error()
		}
		return p, ""
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, ""
		}
	}
	return "", "no Chromium on PATH (apt-get install chromium, or set HARNESS_CHROMIUM; scripts/test.sh installs it)"
}

// New starts a headless Chromium for t and returns a browser tab's context,
// bounded by timeout. The browser is gone when t ends. It skips t when
// there is no Chromium, or fails it when HARNESS_TEST_BROWSER=required
// (scripts/test.sh sets it after installing Chromium).
func New(t testing.TB, timeout time.Duration) context.Context {
	t.Helper()
	path, reason := Find()
	if path == "" && os.Getenv("HARNESS_TEST_BROWSER") == "required" {
		t.Fatal("HARNESS_TEST_BROWSER=required: " + reason)
	}
	if path == "" {
		t.Skip("browser test skipped: " + reason)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	ctx, cancelTimeout := context.WithTimeout(context.Background(), timeout)
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	tab, cancelTab := chromedp.NewContext(alloc)
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
		cancelTimeout()
	})
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	return tab
}

// FileURL is the file:// address of a local file.
func FileURL(t testing.TB, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return "file://" + filepath.ToSlash(abs)
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// ArtifactDir is where t keeps files worth looking at after the run
// (screenshots): $HARNESS_TEST_ARTIFACTS/<test name> when that is set,
// else the test's artifact directory (go test -artifacts -outputdir DIR
// keeps it).
func ArtifactDir(t testing.TB) string {
	t.Helper()
	base := os.Getenv("HARNESS_TEST_ARTIFACTS")
	if base == "" {
		return t.ArtifactDir()
	}
	dir := filepath.Join(base, unsafeName.ReplaceAllString(t.Name(), "_"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Screenshot saves a full-page PNG of the current tab as name in t's
// artifact directory and returns its path.
func Screenshot(t testing.TB, tab context.Context, name string) string {
	t.Helper()
	png, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	path := filepath.Join(ArtifactDir(t), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
	return path
}
