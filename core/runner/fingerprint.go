package runner

import (
	"fmt"
	"strings"

	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/core/session"
)

// ConfigChangedError says a session's configuration changed since it ran:
// resuming it, or running one of its deferred actions, would do so under
// rules nobody approved them under (a model may have rewritten them).
type ConfigChangedError struct {
	Session string
	Config  string   // the configuration's path
	Changes []string // "agent.hcl changed", ...
	// Doing is what was refused: "resume", "run action a-…".
	Doing string
}

func (e *ConfigChangedError) Error() string {
	return fmt.Sprintf("session %s: will not %s: its configuration changed since the session ran (%s in %s). "+
		"Review the change (a model may have made it). If it is yours: start a new session, or pass "+
		"--accept-config-change to %s under the configuration as it is now",
		e.Session, e.Doing, strings.Join(e.Changes, ", "), e.Config, e.Doing)
}

// CheckConfig returns a *ConfigChangedError when cfg is not the
// configuration the session recorded. A session recorded before harness
// kept fingerprints passes.
func CheckConfig(info session.SessionInfo, cfg *config.Config, doing string) error {
	if info.ConfigHash == "" {
		return nil
	}
	changes := config.FingerprintChanges(info.ConfigHash, cfg.Fingerprint())
	if len(changes) == 0 {
		return nil
	}
	return &ConfigChangedError{Session: info.ID, Config: cfg.Path, Changes: changes, Doing: doing}
}
