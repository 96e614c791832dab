package session

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Usage is the metering of one model request (the seed's token_usage), or,
// from UsageTotals, the sum over a session.
type Usage struct {
	Session          string
	Turn             int
	Model            string
	PromptTokens     int64
	CompletionTokens int64
	CacheHitTokens   int64 // part of PromptTokens served from the provider's prefix cache
	CacheMissTokens  int64
	ReasoningTokens  int64 // part of CompletionTokens
	CostUSD          float64
}

// RecordUsage records the usage of one request of u.Session (the full id).
func (s *Store) RecordUsage(ctx context.Context, u Usage) error {
	op := fmt.Sprintf("record usage of session %s turn %d", u.Session, u.Turn)
	if err := checkUsage(u); err != nil {
		return s.fail(op, err)
	}
	return s.writeWith(ctx, op, []string{sessionExistsSQL, insertUsageSQL}, func(tx *sql.Tx) error {
		if err := s.sessionExists(ctx, tx, u.Session); err != nil {
			return err
		}
		return s.insertUsage(ctx, tx, u)
	})
}

func checkUsage(u Usage) error {
	if u.PromptTokens < 0 || u.CompletionTokens < 0 || u.CacheHitTokens < 0 ||
		u.CacheMissTokens < 0 || u.ReasoningTokens < 0 || u.CostUSD < 0 {
		return fmt.Errorf("negative token count or cost in %+v", u)
	}
	return nil
}

const insertUsageSQL = `INSERT INTO usage (session, turn, model,
		prompt_tokens, completion_tokens, cache_hit_tokens, cache_miss_tokens,
		reasoning_tokens, cost_usd, recorded_at)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// insertUsage adds u's row in tx; the session must exist (the foreign key
// fails otherwise).
func (s *Store) insertUsage(ctx context.Context, tx *sql.Tx, u Usage) error {
	_, err := s.txExec(ctx, tx, insertUsageSQL,
		u.Session, u.Turn, u.Model, u.PromptTokens, u.CompletionTokens, u.CacheHitTokens,
		u.CacheMissTokens, u.ReasoningTokens, u.CostUSD, time.Now().UnixNano())
	return err
}

// UsageTotals sums the usage of session (the full id). Turn is the highest
// turn metered and Model the model of the latest request; a session without
// usage yet has zero totals.
func (s *Store) UsageTotals(ctx context.Context, session string) (Usage, error) {
	u := Usage{Session: session}
	err := s.db.QueryRowContext(ctx, s.q(`SELECT
			coalesce(max(u.turn), 0),
			coalesce((SELECT model FROM usage WHERE session = s.id ORDER BY id DESC LIMIT 1), ''),
			CAST(coalesce(sum(u.prompt_tokens), 0) AS BIGINT), CAST(coalesce(sum(u.completion_tokens), 0) AS BIGINT),
			CAST(coalesce(sum(u.cache_hit_tokens), 0) AS BIGINT), CAST(coalesce(sum(u.cache_miss_tokens), 0) AS BIGINT),
			CAST(coalesce(sum(u.reasoning_tokens), 0) AS BIGINT), coalesce(sum(u.cost_usd), 0)
		FROM sessions s LEFT JOIN usage u ON u.session = s.id
		WHERE s.id = ? GROUP BY s.id`), session).Scan(&u.Turn, &u.Model,
		&u.PromptTokens, &u.CompletionTokens, &u.CacheHitTokens, &u.CacheMissTokens,
		&u.ReasoningTokens, &u.CostUSD)
	if errors.Is(err, sql.ErrNoRows) {
		err = notFound("session")
	}
	if err != nil {
		return Usage{}, s.fail("sum usage of session "+session, err)
	}
	return u, nil
}
