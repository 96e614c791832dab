package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionNamesTheModuleVersionAndRevision(t *testing.T) {
	t.Parallel()
	bi := &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2026-12-01T20:00:00Z"}, {Key: "vcs.modified", Value: "true"},
	}}
	if got := formatVersion("", bi); !strings.HasPrefix(got, "harness v1.4.0 0123456789ab+dirty 2026-12-01T20:00:00Z (plugin protocol v") {
		t.Errorf("version %q", got)
	}
	if got := formatVersion("v2.0.0", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}); !strings.HasPrefix(got, "harness v2.0.0 (plugin") {
		t.Errorf("-X main.version wins: %q", got)
	}
	if got := formatVersion("", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}); !strings.Contains(got, "no VCS revision") {
		t.Errorf("a build without VCS stamps should say so: %q", got)
	}
}
