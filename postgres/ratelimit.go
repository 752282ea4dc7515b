package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/sello-do/sello"
)

// RateLimiter is a sello.RateLimiter shared by every node on the database:
// GCRA (sello.GCRA) with one theoretical arrival time per key in the
// unlogged table rate_limits, read and written by a single statement. For
// the same plan and clock it decides exactly as sello.MemoryRateLimiter.
type RateLimiter struct {
	// Now, when set, replaces the database's clock (clock_timestamp()),
	// which is otherwise the one clock all nodes share.
	Now func() time.Time

	db *DB
}

var _ sello.RateLimiter = (*RateLimiter)(nil)

// NewRateLimiter returns a limiter that keeps its buckets in db.
func NewRateLimiter(db *DB) *RateLimiter { return &RateLimiter{db: db} }

// allowSQL is GCRA in one statement, in integer nanoseconds so that it
// matches sello.GCRA to the nanosecond. $1 key, $2 now (NULL: the
// database's clock), $3 emission interval, $4 burst window (burst ×
// interval).
//
// The old CTE locks the key's row, so concurrent calls on a key take turns
// and each sees the tat the previous one wrote. A key's first calls racing
// each other cannot lock a row that does not exist yet; the upsert then
// re-checks against the row that won (ON CONFLICT sees the latest version).
// The statement returns now, the tat before the call (NULL for a new key)
// and whether the request was allowed.
const allowSQL = `
WITH clock AS (
	SELECT coalesce($2::bigint, (extract(epoch FROM clock_timestamp()) * 1000000)::bigint * 1000) AS now
), old AS (
	SELECT tat FROM rate_limits WHERE key = $1 FOR UPDATE
), cur AS (
	SELECT clock.now, greatest((SELECT tat FROM old), clock.now) AS tat FROM clock
), up AS (
	INSERT INTO rate_limits AS rl (key, tat)
	SELECT $1, cur.tat + $3::bigint FROM cur WHERE cur.tat + $3::bigint - cur.now <= $4::bigint
	ON CONFLICT (key) DO UPDATE SET tat = greatest(rl.tat, excluded.tat - $3::bigint) + $3::bigint
		WHERE greatest(rl.tat, excluded.tat - $3::bigint) + $3::bigint - (excluded.tat - $3::bigint) <= $4::bigint
	RETURNING tat
)
SELECT cur.now, (SELECT tat FROM old), EXISTS (SELECT 1 FROM up) FROM cur`

// Allow implements sello.RateLimiter.
func (l *RateLimiter) Allow(ctx context.Context, key string, plan sello.RatePlan) (sello.RateDecision, error) {
	if err := plan.Validate(); err != nil {
		return sello.RateDecision{}, err
	}
	interval := time.Duration(float64(time.Second) / plan.Rate) // as sello.GCRA computes it
	burst := time.Duration(plan.Burst) * interval
	var now *int64
	if l.Now != nil {
		n := l.Now().UnixNano()
		now = &n
	}
	var nowNS int64
	var oldTAT *int64
	var allowed bool
	if err := l.db.pool.QueryRow(ctx, allowSQL, key, now, int64(interval), int64(burst)).Scan(&nowNS, &oldTAT, &allowed); err != nil {
		return sello.RateDecision{}, dbError(err, "rate limit")
	}
	var tat time.Time
	if oldTAT != nil {
		tat = time.Unix(0, *oldTAT)
	}
	d, _ := sello.GCRA(time.Unix(0, nowNS), tat, plan)
	if d.Allowed != allowed {
		// Only when a new key's first calls raced: the statement decided
		// against the row that won, which this call did not read.
		if allowed {
			return sello.RateDecision{Allowed: true, Remaining: 0, Reset: burst}, nil
		}
		return sello.RateDecision{Allowed: false, RetryAfter: interval, Reset: burst}, nil
	}
	return d, nil
}

// Prune deletes the buckets that are full again (their tat has passed),
// which decide the same as no row. The table holds one row per key ever
// used, so pruning now and then keeps it small; it is never required.
func (l *RateLimiter) Prune(ctx context.Context) (int64, error) {
	tag, err := l.db.pool.Exec(ctx, `
		DELETE FROM rate_limits WHERE tat < (extract(epoch FROM clock_timestamp()) * 1000000)::bigint * 1000`)
	if err != nil {
		return 0, fmt.Errorf("prune rate limits: %w", dbError(err, "delete"))
	}
	return tag.RowsAffected(), nil
}
