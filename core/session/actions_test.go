package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestActionLifecycle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachStore(t, func(t *testing.T, s *Store) {
		info := newSession(t, s)

		proposed, err := s.ProposeAction(ctx, Action{
			ID: "ignored", Status: "executed", DecidedBy: "ignored",
			Session: info.ID, CallID: "call_1", Tool: "terminal", Kind: "terminal",
			Summary: "go test ./...", Arguments: json.RawMessage(`{"command":"go test ./..."}`),
		})
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`^a-[0-9a-f]{8}$`).MatchString(proposed.ID) {
			t.Errorf("action id %q", proposed.ID)
		}
		if proposed.Status != "pending" || proposed.DecidedBy != "" || proposed.CreatedAt.IsZero() {
			t.Errorf("proposed = %+v", proposed)
		}
		got, err := s.Action(ctx, proposed.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !equalAction(got, proposed) {
			t.Errorf("Action() = %+v\nwant %+v", got, proposed)
		}

		if err := s.DecideAction(ctx, proposed.ID, "approved", "user", "always for this session"); err != nil {
			t.Fatal(err)
		}
		got, _ = s.Action(ctx, proposed.ID)
		if got.Status != "approved" || got.DecidedBy != "user" || got.Rule != "always for this session" || got.DecidedAt.Before(got.CreatedAt) {
			t.Errorf("after approve: %+v", got)
		}

		result := json.RawMessage(`{"ok":true,"content":"PASS"}`)
		if err := s.SetActionResult(ctx, proposed.ID, result); err != nil {
			t.Fatal(err)
		}
		got, _ = s.Action(ctx, proposed.ID)
		if got.Status != "executed" || string(got.Result) != string(result) || got.DecidedBy != "user" {
			t.Errorf("after result: %+v", got)
		}

		denied, err := s.ProposeAction(ctx, Action{Session: info.ID, CallID: "call_2", Tool: "write_file", Kind: "write_file", Summary: "write /etc/x"})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.DecideAction(ctx, denied.ID, "denied", "policy", "deny_commands: rm *"); err != nil {
			t.Fatal(err)
		}
		got, _ = s.Action(ctx, denied.ID)
		if got.Status != "denied" || got.Arguments != nil || got.Result != nil {
			t.Errorf("denied = %+v", got)
		}
	})
}

func TestActionTransitions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachStore(t, func(t *testing.T, s *Store) {
		info := newSession(t, s)
		inStatus := func(t *testing.T, status string) string {
			a, err := s.ProposeAction(ctx, Action{Session: info.ID, CallID: "c", Tool: "terminal", Kind: "terminal"})
			if err != nil {
				t.Fatal(err)
			}
			if status == "approved" || status == "denied" || status == "executed" {
				decision := status
				if status == "executed" {
					decision = "approved"
				}
				if err := s.DecideAction(ctx, a.ID, decision, "flag", "--yes"); err != nil {
					t.Fatal(err)
				}
			}
			if status == "executed" {
				if err := s.SetActionResult(ctx, a.ID, json.RawMessage(`{}`)); err != nil {
					t.Fatal(err)
				}
			}
			return a.ID
		}
		decide := func(status string) func(string) error {
			return func(id string) error { return s.DecideAction(ctx, id, status, "user", "") }
		}
		setResult := func(id string) error { return s.SetActionResult(ctx, id, json.RawMessage(`{"ok":true}`)) }

		tests := []struct {
			name, from string
			op         func(id string) error
			want       string // "" = allowed
		}{
			{"approve pending", "pending", decide("approved"), ""},
			{"deny pending", "pending", decide("denied"), ""},
			{"approve approved", "approved", decide("approved"), "action is approved: only a pending action can be decided"},
			{"approve denied", "denied", decide("approved"), "action is denied: only a pending action can be decided"},
			{"deny executed", "executed", decide("denied"), "action is executed: only a pending action can be decided"},
			{"defer is not a status", "pending", decide("deferred"), `approved or denied, not "deferred"`},
			{"result of approved", "approved", setResult, ""},
			{"result of pending", "pending", setResult, "action is pending: only a approved action can be executed"},
			{"result of denied", "denied", setResult, "action is denied"},
			{"result twice", "executed", setResult, "action is executed"},
			{"invalid result", "approved", func(id string) error { return s.SetActionResult(ctx, id, json.RawMessage(`{`)) }, "not valid JSON"},
			{"decision without actor", "pending", func(id string) error { return s.DecideAction(ctx, id, "approved", "", "") }, "needs the actor"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				id := inStatus(t, tt.from)
				err := tt.op(id)
				switch {
				case tt.want == "" && err != nil:
					t.Errorf("error = %v, want none", err)
				case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), id)):
					t.Errorf("error = %v, want one naming %s and saying %q", err, id, tt.want)
				}
			})
		}

		for name, op := range map[string]func() error{
			"decide": func() error { return s.DecideAction(ctx, "a-nope", "approved", "user", "") },
			"result": func() error { return s.SetActionResult(ctx, "a-nope", json.RawMessage(`{}`)) },
			"read":   func() error { _, err := s.Action(ctx, "a-nope"); return err },
		} {
			if err := op(); !errors.Is(err, ErrNotFound) {
				t.Errorf("%s of an unknown action: %v, want ErrNotFound", name, err)
			}
		}
	})
}

func TestProposeActionErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachStore(t, func(t *testing.T, s *Store) {
		info := newSession(t, s)
		tests := []struct {
			name     string
			a        Action
			notFound bool
			want     string
		}{
			{"unknown kind", Action{Session: info.ID, Kind: "shell"}, false, `unknown action kind "shell"`},
			{"invalid arguments", Action{Session: info.ID, Kind: "tool", Arguments: json.RawMessage(`{"a"`)}, false, "arguments are not valid JSON"},
			{"unknown session", Action{Session: "s-nope", Kind: "mcp", CallID: "c9"}, true, "propose mcp action for call c9 of session s-nope: session not found"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, err := s.ProposeAction(ctx, tt.a)
				if err == nil || errors.Is(err, ErrNotFound) != tt.notFound || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("error = %v; want %q (not-found %v)", err, tt.want, tt.notFound)
				}
			})
		}
	})
}

func TestActionsFilterAndPrefix(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachStore(t, func(t *testing.T, s *Store) {
		one, two := newSession(t, s), newSession(t, s)
		base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		propose := func(session string, minute int) Action {
			a, err := s.ProposeAction(ctx, Action{Session: session, CallID: "c", Tool: "terminal", Kind: "terminal",
				CreatedAt: base.Add(time.Duration(minute) * time.Minute)})
			if err != nil {
				t.Fatal(err)
			}
			return a
		}
		a1, a2, b1 := propose(one.ID, 2), propose(one.ID, 1), propose(two.ID, 3)
		if err := s.DecideAction(ctx, a1.ID, "denied", "unattended", "unattended = deny"); err != nil {
			t.Fatal(err)
		}

		tests := []struct {
			session, status string
			want            []string
		}{
			{"", "", []string{a2.ID, a1.ID, b1.ID}},
			{one.ID, "", []string{a2.ID, a1.ID}},
			{"", "pending", []string{a2.ID, b1.ID}},
			{one.ID, "denied", []string{a1.ID}},
			{two.ID, "executed", nil},
			{"s-nope", "", nil},
		}
		for _, tt := range tests {
			list, err := s.Actions(ctx, tt.session, tt.status)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range list {
				got = append(got, a.ID)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("Actions(%q, %q) = %v, want %v", tt.session, tt.status, got, tt.want)
			}
		}
		if _, err := s.Actions(ctx, "", "deferred"); err == nil || !strings.Contains(err.Error(), `unknown action status "deferred"`) {
			t.Errorf("Actions with an unknown status: %v", err)
		}

		prefix := uniquePrefix(b1.ID, a1.ID, a2.ID)
		if got, err := s.Action(ctx, prefix); err != nil || got.ID != b1.ID {
			t.Errorf("Action(%q) = %s, %v; want %s", prefix, got.ID, err, b1.ID)
		}
		if _, err := s.Action(ctx, "a-"); !errors.Is(err, ErrAmbiguous) {
			t.Errorf(`Action("a-") error = %v, want ErrAmbiguous`, err)
		}
	})
}

func equalAction(a, b Action) bool {
	return a.ID == b.ID && a.Session == b.Session && a.CallID == b.CallID && a.Tool == b.Tool &&
		a.Kind == b.Kind && a.Summary == b.Summary && string(a.Arguments) == string(b.Arguments) &&
		a.Status == b.Status && a.DecidedBy == b.DecidedBy && a.Rule == b.Rule &&
		string(a.Result) == string(b.Result) && a.CreatedAt.Equal(b.CreatedAt) && a.DecidedAt.Equal(b.DecidedAt)
}

// Approvers on several processes (two stores stand in for two machines)
// decide one action at once: exactly one wins, every other is told who did.
func TestDecideOnceConcurrently(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, a *Store) {
		ctx := context.Background()
		b, err := Open(a.Path())
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		info := newSession(t, a)
		act, err := a.ProposeAction(ctx, Action{Session: info.ID, CallID: "c1", Tool: "terminal", Kind: "terminal", Summary: "ls"})
		if err != nil {
			t.Fatal(err)
		}
		const approvers = 8
		errs := make(chan error, approvers)
		var wg sync.WaitGroup
		for i := range approvers {
			wg.Go(func() {
				s := []*Store{a, b}[i%2]
				errs <- s.DecideAction(ctx, act.ID, "approved", "user", fmt.Sprintf("approver %d", i))
			})
		}
		wg.Wait()
		close(errs)
		won := 0
		for err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, ErrAlreadyDecided) || !strings.Contains(err.Error(), "already decided by user (approver "):
				t.Errorf("a losing approver got %v, want an already-decided error naming the winner", err)
			}
		}
		if won != 1 {
			t.Errorf("%d approvers won, want exactly 1", won)
		}
		got, err := b.Action(ctx, act.ID)
		if err != nil || got.Status != "approved" {
			t.Errorf("action after the race: %+v, %v", got, err)
		}
	})
}
