//go:build !linux

package terminal

import (
	"context"
	"errors"
	"runtime"

	"github.com/harness-agent/harness/sdk"
)

// The terminal tool depends on Linux: process groups with parent-death
// signals, child subreapers and Landlock. Elsewhere it builds, describes
// itself and refuses to run commands.

func execute(context.Context, runSpec) (outcome, error) {
	return outcome{}, sdk.Errorf(sdk.KindInternal, "terminal: commands run on Linux only, not on %s", runtime.GOOS)
}

type sandboxSpec struct{}

func (*sandboxSpec) tmpDir() string { return "" }

type missingPath struct{}

func missingProtected(string, []string) []missingPath { return nil }

func removeCreated(string, []missingPath) []string { return nil }

func planSandbox(config) (*sandboxSpec, string, error) {
	return nil, "", errors.New("terminal: the sandbox exists on Linux only")
}

func shutdown() {}
