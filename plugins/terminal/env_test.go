package terminal

import (
	"slices"
	"testing"

	"github.com/harness-agent/harness/sdk"
)

func TestCommandEnv(t *testing.T) {
	t.Parallel()
	in := []string{
		"PATH=/usr/bin", "HOME=/home/u", "LANG=C.UTF-8", "TMPDIR=/tmp/x", "GOFLAGS=-mod=mod",
		"FOO_API_KEY=1", "github_token=2", "AWS_SECRET_ACCESS_KEY=3", "DB_PASSWORD=4", "MYSQL_PASSWD=5",
		"GOOGLE_APPLICATION_CREDENTIALS=6", "SSH_PRIVATE_KEY=7",
		"HARNESS_LOG=debug", "PLUGIN_PROTOCOL_VERSIONS=1", "PLUGIN_MIN_PORT=1",
		sdk.Handshake.MagicCookieKey + "=x", "=weird", "EMPTY=",
	}
	want := []string{"PATH=/usr/bin", "HOME=/home/u", "LANG=C.UTF-8", "TMPDIR=/tmp/x", "GOFLAGS=-mod=mod", "EMPTY="}
	if got := commandEnv(in); !slices.Equal(got, want) {
		t.Errorf("commandEnv = %q, want %q", got, want)
	}
}
