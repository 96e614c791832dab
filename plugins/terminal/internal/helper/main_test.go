package helper

import (
	"testing"

	"github.com/harness-agent/harness/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }
