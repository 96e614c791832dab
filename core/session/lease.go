package session

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"time"
)

// A Lease is a runner's hold on a session: one session, one runner. The
// holder refreshes Heartbeat every HeartbeatEvery while it runs; a lease
// whose holder is gone (its pid is dead on this host, or its heartbeat is
// older than StaleAfter) holds nothing, and its running session shows as
// abandoned.
type Lease struct {
	Owner     string // a random token, one per process and session
	PID       int
	Host      string
	Heartbeat time.Time
}

const (
	// HeartbeatEvery is how often a runner refreshes its lease.
	HeartbeatEvery = 5 * time.Second
	// StaleAfter is how old a heartbeat may be before its holder is taken
	// for gone (six missed heartbeats: a loaded machine is slow, not dead).
	StaleAfter = 30 * time.Second

	// StatusAbandoned is the status shown for a session that is recorded
	// running but whose runner is gone. It is never stored: it is computed
	// from the lease when the session is read.
	StatusAbandoned = "abandoned"
)

// NewLease returns a lease for this process, not yet held.
func NewLease() Lease {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	host := Hostname()
	return Lease{Owner: hex.EncodeToString(b), PID: os.Getpid(), Host: host}
}

// Live says whether the lease's holder is still there at now.
func (l Lease) Live(now time.Time) bool {
	if l.Owner == "" || now.Sub(l.Heartbeat) > StaleAfter {
		return false
	}
	if l.Host != Hostname() {
		return true // another machine's process: only its heartbeat tells
	}
	return processAlive(l.PID)
}

// HeldError refuses a session that a live runner holds.
type HeldError struct {
	Session string
	Lease   Lease
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("session %s is being run by another harness (pid %d on %s, heartbeat %s ago): wait for that run to end, or stop it (kill -INT %d); two runs of one session would fork its conversation",
		e.Session, e.Lease.PID, e.Lease.Host, time.Since(e.Lease.Heartbeat).Round(time.Second), e.Lease.PID)
}

// ErrLeaseLost says the lease was taken over by another runner (this one's
// heartbeat had gone stale) or released.
var ErrLeaseLost = errors.New("the session's lease was taken over by another run")

// readLease reads the lease of session id inside a transaction.
func (s *Store) readLease(ctx context.Context, q queryer, id string) (Lease, error) {
	var (
		l  Lease
		hb int64
	)
	err := q.QueryRowContext(ctx, s.q(`SELECT lease_owner, lease_pid, lease_host, lease_heartbeat FROM sessions WHERE id = ?`), id).
		Scan(&l.Owner, &l.PID, &l.Host, &hb)
	if err == sql.ErrNoRows {
		return Lease{}, notFound("session")
	}
	if err != nil {
		return Lease{}, err
	}
	if hb != 0 {
		l.Heartbeat = fromNanos(hb)
	}
	return l, nil
}

// take writes lease as the holder of session id unless a live runner
// other than lease's holder has it.
func (s *Store) take(ctx context.Context, tx *sql.Tx, id string, lease Lease) error {
	cur, err := s.readLease(ctx, tx, id)
	if err != nil {
		return err
	}
	if cur.Owner != lease.Owner && cur.Live(time.Now()) {
		return &HeldError{Session: id, Lease: cur}
	}
	_, err = tx.ExecContext(ctx, s.q(`UPDATE sessions SET lease_owner = ?, lease_pid = ?, lease_host = ?, lease_heartbeat = ? WHERE id = ?`),
		lease.Owner, lease.PID, lease.Host, time.Now().UnixNano(), id)
	return err
}

// Hold takes the lease of session id (the full id) for lease's holder
// without changing its status: `harness actions approve` holds a session
// while it runs an approved action. A session held by a live runner is
// refused with a *HeldError.
func (s *Store) Hold(ctx context.Context, id string, lease Lease) error {
	return s.write(ctx, "hold session "+id, func(tx *sql.Tx) error { return s.take(ctx, tx, id, lease) })
}

const (
	heartbeatSQL = `UPDATE sessions SET lease_heartbeat = ? WHERE id = ? AND lease_owner = ?`
	releaseSQL   = `UPDATE sessions SET lease_owner = '', lease_pid = 0, lease_host = '', lease_heartbeat = 0
		WHERE id = ? AND lease_owner = ?`
)

// Heartbeat refreshes the lease of session id held by owner. It fails with
// ErrLeaseLost when owner no longer holds it.
func (s *Store) Heartbeat(ctx context.Context, id, owner string) error {
	return s.writeWith(ctx, "heartbeat of session "+id, []string{heartbeatSQL}, func(tx *sql.Tx) error {
		res, err := s.txExec(ctx, tx, heartbeatSQL, time.Now().UnixNano(), id, owner)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 1 {
			return err
		}
		return ErrLeaseLost
	})
}

// Release gives up the lease of session id if owner holds it.
func (s *Store) Release(ctx context.Context, id, owner string) error {
	return s.writeWith(ctx, "release session "+id, []string{releaseSQL}, func(tx *sql.Tx) error {
		_, err := s.txExec(ctx, tx, releaseSQL, id, owner)
		return err
	})
}

// KeepAlive refreshes the lease of session id held by owner every
// HeartbeatEvery until stop is called; stop waits for the last refresh. A
// refresh that fails is passed to onErr (nil: ignored), which is how a
// holder learns that its lease was lost.
func (s *Store) KeepAlive(id, owner string, onErr func(error)) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(HeartbeatEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				ctx, cancel := context.WithTimeout(context.Background(), HeartbeatEvery)
				err := s.Heartbeat(ctx, id, owner)
				cancel()
				if err != nil && onErr != nil {
					onErr(err)
				}
			}
		}
	}()
	var once bool
	return func() {
		if !once {
			once = true
			close(done)
		}
		<-finished
	}
}

// EnvHost overrides the name of this machine (Hostname). Two machines
// sharing a PostgreSQL store must have different names; tests set it to
// stand in for a second machine.
const EnvHost = "HARNESS_HOST"

// Hostname is the name of this machine as the store records it: $HARNESS_HOST,
// else the operating system's host name.
func Hostname() string {
	if h := os.Getenv(EnvHost); h != "" {
		return h
	}
	h, _ := os.Hostname()
	return h
}
