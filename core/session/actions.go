package session

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Action is a tool call that went through the action pipeline (DESIGN §6).
// It is proposed pending, decided once (approved or denied; a deferred
// decision leaves it pending), and an approved action is executed once, its
// result recorded.
type Action struct {
	ID        string
	Session   string
	CallID    string
	Tool      string
	Kind      string // terminal, write_file, mcp or tool
	Summary   string
	Arguments json.RawMessage
	Status    string // pending, approved, denied or executed
	DecidedBy string // policy, hook, user, flag or unattended
	Rule      string // the rule or actor that decided, for people to read
	Result    json.RawMessage
	CreatedAt time.Time
	DecidedAt time.Time // zero while pending
}

// Action kinds: what an action does (core/approval proposes them).
const (
	ActionKindTerminal  = "terminal"
	ActionKindWriteFile = "write_file"
	ActionKindMCP       = "mcp"
	ActionKindTool      = "tool"
)

// Action statuses: pending → approved → executed, or pending → denied.
const (
	ActionStatusPending  = "pending"
	ActionStatusApproved = "approved"
	ActionStatusDenied   = "denied"
	ActionStatusExecuted = "executed"
)

var actionKinds = map[string]bool{ActionKindTerminal: true, ActionKindWriteFile: true, ActionKindMCP: true, ActionKindTool: true}

var actionStatuses = map[string]bool{ActionStatusPending: true, ActionStatusApproved: true, ActionStatusDenied: true, ActionStatusExecuted: true}

// ProposeAction records a pending action of a.Session (the full id). The
// store sets ID, Status and the decision fields; CreatedAt is now unless
// given.
func (s *Store) ProposeAction(ctx context.Context, a Action) (Action, error) {
	op := fmt.Sprintf("propose %s action for call %s of session %s", a.Kind, a.CallID, a.Session)
	if !actionKinds[a.Kind] {
		return Action{}, s.fail(op, fmt.Errorf("unknown action kind %q (want terminal, write_file, mcp or tool)", a.Kind))
	}
	if len(a.Arguments) > 0 && !json.Valid(a.Arguments) {
		return Action{}, s.fail(op, errors.New("arguments are not valid JSON"))
	}
	if a.CreatedAt.IsZero() {
		a.CreatedAt = time.Now()
	}
	a.CreatedAt = a.CreatedAt.UTC()
	a.Status, a.DecidedBy, a.Rule, a.Result, a.DecidedAt = ActionStatusPending, "", "", nil, time.Time{}
	err := s.write(ctx, op, func(tx *sql.Tx) error {
		// Checked first: an insert of no row below means a taken id.
		if err := s.sessionExists(ctx, tx, a.Session); err != nil {
			return err
		}
		for range idAttempts {
			a.ID = newActionID()
			res, err := tx.ExecContext(ctx, s.q(`INSERT INTO actions
				(id, session, call_id, tool, kind, summary, arguments, status, created_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`),
				a.ID, a.Session, a.CallID, a.Tool, a.Kind, a.Summary, nullJSON(a.Arguments),
				a.Status, a.CreatedAt.UnixNano())
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil || n == 1 {
				return err
			}
		}
		return fmt.Errorf("no free action id after %d attempts", idAttempts)
	})
	if err != nil {
		return Action{}, err
	}
	return a, nil
}

// DecideAction decides the pending action id (the full id): status is
// approved or denied, by the actor (policy, hook, user, flag, unattended)
// and rule what decided it. Deciding an action that is not pending is an
// error naming its current status, so of two deciders only one wins.
func (s *Store) DecideAction(ctx context.Context, id, status, by, rule string) error {
	op := fmt.Sprintf("decide action %s (%s by %s)", id, status, by)
	if status != ActionStatusApproved && status != ActionStatusDenied {
		return s.fail(op, fmt.Errorf("a decision is approved or denied, not %q", status))
	}
	if by == "" {
		return s.fail(op, errors.New("a decision needs the actor that made it"))
	}
	return s.write(ctx, op, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.q(`UPDATE actions SET status = ?, decided_by = ?, rule = ?, decided_at = ?
			WHERE id = ? AND status = 'pending'`), status, by, rule, time.Now().UnixNano(), id)
		if err != nil {
			return err
		}
		return s.expectTransition(ctx, tx, res, id, ActionStatusPending, "decided")
	})
}

// SetActionResult records the result of executing the approved action id
// (the full id) and marks it executed. result must be JSON.
func (s *Store) SetActionResult(ctx context.Context, id string, result json.RawMessage) error {
	op := "record result of action " + id
	if !json.Valid(result) {
		return s.fail(op, errors.New("result is not valid JSON"))
	}
	return s.write(ctx, op, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.q(`UPDATE actions SET status = 'executed', result = ?
			WHERE id = ? AND status = 'approved'`), string(result), id)
		if err != nil {
			return err
		}
		return s.expectTransition(ctx, tx, res, id, ActionStatusApproved, ActionStatusExecuted)
	})
}

// expectTransition explains an update of an action that changed no row:
// the action is missing, or not in the status from which it may move.
func (s *Store) expectTransition(ctx context.Context, tx *sql.Tx, res sql.Result, id, from, verb string) error {
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return err
	}
	current, err := s.currentStatus(ctx, tx, "actions", id)
	if err != nil {
		return err
	}
	if from != ActionStatusPending || current == ActionStatusPending {
		return fmt.Errorf("action is %s: only a %s action can be %s", current, from, verb)
	}
	// Another approver (another process, another machine) was first.
	var (
		by, rule string
		at       sql.NullInt64
	)
	if err := tx.QueryRowContext(ctx, s.q(`SELECT decided_by, rule, decided_at FROM actions WHERE id = ?`), id).Scan(&by, &rule, &at); err != nil {
		return err
	}
	who := by
	if rule != "" {
		who += " (" + rule + ")"
	}
	when := ""
	if at.Valid {
		when = " at " + fromNanos(at.Int64).Format(time.RFC3339)
	}
	return fmt.Errorf("action is %s: only a %s action can be %s: %w by %s%s", current, from, verb, ErrAlreadyDecided, who, when)
}

// ErrAlreadyDecided says a decision came too late: the action was decided
// before, by the actor the error names.
var ErrAlreadyDecided = errors.New("already decided")

const actionColumns = `id, session, call_id, tool, kind, summary, arguments, status,
	decided_by, rule, result, created_at, decided_at FROM actions`

// Action returns the action whose id is id or, failing that, the only one
// whose id starts with id (errors wrap ErrNotFound or ErrAmbiguous).
func (s *Store) Action(ctx context.Context, id string) (Action, error) {
	full, err := s.resolveID(ctx, "actions", "action", id)
	if err != nil {
		return Action{}, err
	}
	a, err := scanAction(s.db.QueryRowContext(ctx, s.q(`SELECT `+actionColumns+` WHERE id = ?`), full))
	if err != nil {
		return Action{}, s.fail("read action "+full, err)
	}
	return a, nil
}

// Actions lists actions oldest first: of session (the full id) or of every
// session when it is "", with status or any status when it is "".
func (s *Store) Actions(ctx context.Context, session, status string) ([]Action, error) {
	op := "list actions"
	if status != "" && !actionStatuses[status] {
		return nil, s.fail(op, fmt.Errorf("unknown action status %q (want pending, approved, denied or executed)", status))
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+actionColumns+`
		WHERE (CAST(?1 AS TEXT) = '' OR session = ?1) AND (CAST(?2 AS TEXT) = '' OR status = ?2)
		ORDER BY created_at, id`), session, status)
	if err != nil {
		return nil, s.fail(op, err)
	}
	defer rows.Close()
	var out []Action
	for rows.Next() {
		a, err := scanAction(rows)
		if err != nil {
			return nil, s.fail(op, err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail(op, err)
	}
	return out, nil
}

func scanAction(r scanner) (Action, error) {
	var (
		a            Action
		args, result sql.NullString
		created      int64
		decided      sql.NullInt64
	)
	err := r.Scan(&a.ID, &a.Session, &a.CallID, &a.Tool, &a.Kind, &a.Summary, &args, &a.Status,
		&a.DecidedBy, &a.Rule, &result, &created, &decided)
	if err != nil {
		return Action{}, err
	}
	if args.Valid {
		a.Arguments = json.RawMessage(args.String)
	}
	if result.Valid {
		a.Result = json.RawMessage(result.String)
	}
	a.CreatedAt = fromNanos(created)
	if decided.Valid {
		a.DecidedAt = fromNanos(decided.Int64)
	}
	return a, nil
}

// nullJSON stores absent JSON as NULL, so it reads back as nil.
func nullJSON(b json.RawMessage) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}
