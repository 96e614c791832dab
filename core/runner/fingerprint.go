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
	// Unknown: the session recorded no fingerprint (it was imported from
	// an older .harness store), so nobody can tell what changed.
	Unknown bool
}

func (e *ConfigChangedError) Error() string {
	if e.Unknown {
		return fmt.Sprintf("session %s: will not %s: the session was recorded by an older harness without a fingerprint of its "+
			"configuration, so whether %s changed since cannot be told. Review %s; if it is as you want it, pass "+
			"--accept-config-change to %s under the configuration as it is now",
			e.Session, e.Doing, e.Config, e.Config, e.Doing)
	}
	return fmt.Sprintf("session %s: will not %s: its configuration changed since the session ran (%s in %s). "+
		"Review the change (a model may have made it). If it is yours: start a new session, or pass "+
		"--accept-config-change to %s under the configuration as it is now",
		e.Session, e.Doing, strings.Join(e.Changes, ", "), e.Config, e.Doing)
}

// CheckConfig returns a *ConfigChangedError when cfg is not the
// configuration the session recorded. A session recorded before harness
// kept fingerprints passes unless requireFingerprint (running a deferred
// action, which an old workspace store may have held forged).
func CheckConfig(info session.SessionInfo, cfg *config.Config, doing string, requireFingerprint bool) error {
	if info.ConfigHash == "" {
		if requireFingerprint {
			return &ConfigChangedError{Session: info.ID, Config: cfg.Path, Doing: doing, Unknown: true}
		}
		return nil
	}
	changes := config.FingerprintChanges(info.ConfigHash, cfg.Fingerprint())
	if len(changes) == 0 {
		return nil
	}
	return &ConfigChangedError{Session: info.ID, Config: cfg.Path, Changes: changes, Doing: doing}
}
