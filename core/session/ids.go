package session

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
)

// idAttempts bounds the retries when a random id is already taken.
const idAttempts = 8

// newSessionID returns an id that sorts by start time:
// "s-20261129-191915-ab12cd" (UTC, then 24 random bits).
func newSessionID(started time.Time) string {
	return "s-" + started.UTC().Format("20060102-150405") + "-" + randomHex(3)
}

// newActionID returns a short id a person can type: "a-" and 32 random bits.
func newActionID() string {
	return "a-" + randomHex(4)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}

// resolveID returns the id in table that equals idOrPrefix or, failing
// that, the only one that starts with it. noun names the record in errors.
func (s *Store) resolveID(ctx context.Context, table, noun, idOrPrefix string) (string, error) {
	if idOrPrefix == "" {
		return "", fmt.Errorf("empty %s id: %w", noun, ErrNotFound)
	}
	var id string
	err := s.db.QueryRowContext(ctx, s.q(`SELECT id FROM `+table+` WHERE id = ?`), idOrPrefix).Scan(&id)
	if err == nil {
		return id, nil
	}
	if err != sql.ErrNoRows {
		return "", s.fail("look up "+noun+" "+idOrPrefix, err)
	}
	const shown = 5
	rows, err := s.db.QueryContext(ctx,
		s.q(`SELECT id FROM `+table+` WHERE substr(id, 1, length(CAST(?1 AS TEXT))) = ?1 ORDER BY id LIMIT ?2`),
		idOrPrefix, shown+1)
	if err != nil {
		return "", s.fail("look up "+noun+" "+idOrPrefix, err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		if err := rows.Scan(&id); err != nil {
			return "", s.fail("look up "+noun+" "+idOrPrefix, err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return "", s.fail("look up "+noun+" "+idOrPrefix, err)
	}
	switch len(ids) {
	case 0:
		return "", fmt.Errorf("%s %q in %s: %w", noun, idOrPrefix, s.name, ErrNotFound)
	case 1:
		return ids[0], nil
	}
	list := strings.Join(ids[:min(len(ids), shown)], ", ")
	if len(ids) > shown {
		list += ", …"
	}
	return "", fmt.Errorf("%s %q in %s matches %s: give more of the id: %w", noun, idOrPrefix, s.name, list, ErrAmbiguous)
}
