package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/jobs"
)

// migrateRiver applies River's migrations, on their own migration line.
// The caller holds the migration lock.
func migrateRiver(ctx context.Context, pool *pgxpool.Pool) error {
	m, err := rivermigrate.New(riverpgxv5.New(pool), &rivermigrate.Config{Logger: jobs.DiscardLogger})
	if err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	return nil
}

// newInsertClient returns the River client that inserts jobs in the store's
// transactions; it works none.
func newInsertClient(pool *pgxpool.Pool) (*river.Client[pgx.Tx], error) {
	client, err := river.NewClient(riverpgxv5.New(pool), jobs.InsertConfig())
	if err != nil {
		return nil, fmt.Errorf("river client: %w", err)
	}
	return client, nil
}

// insertJobs inserts js with tx, so they exist only if tx commits
// (jobs.InsertParams says how a sello.Job becomes River's).
func (db *DB) insertJobs(ctx context.Context, tx pgx.Tx, js []sello.Job) error {
	if len(js) == 0 {
		return nil
	}
	params, err := jobs.InsertParams(js)
	if err != nil {
		return err
	}
	if _, err := db.river.InsertManyTx(ctx, tx, params); err != nil {
		return fmt.Errorf("insert jobs: %w", err)
	}
	return nil
}

// NewJobRunner is the store's job runner: a River client working the default
// queue with cfg.Workers workers (default 8), which also moves the receipts'
// confirmation queue into jobs (jobs.NewRunner). River's own queries (fetching,
// completing, electing a leader, LISTEN, maintenance) run on the jobs pool
// (see Pools), apart from the store's: an API holding every store
// connection delays the jobs' work, never the queue. The jobs themselves
// use the store, and so its pool. New jobs reach the runner at once through
// LISTEN/NOTIFY.
func (db *DB) NewJobRunner(workers *river.Workers, cfg jobs.Config) (jobs.Runner, error) {
	rc, err := jobs.RiverConfig(workers, cfg)
	if err != nil {
		return nil, err
	}
	client, err := river.NewClient(riverpgxv5.New(db.jobsPool), rc)
	if err != nil {
		return nil, fmt.Errorf("new job runner: %w", err)
	}
	return jobs.NewRunner(client, db.QueueInboundConfirmJobs, cfg), nil
}

// Fetching. The runner looks for due jobs (retries, snoozes, scheduled
// jobs) every fetchPollInterval besides the notifications of new ones, and
// fetches at most once per fetchCooldown. River's default cooldown (100 ms)
// caps a runner at MaxWorkers jobs per 100 ms, which made a document's
// sign → submit chain wait on it.
const (
	fetchPollInterval = 250 * time.Millisecond
	fetchCooldown     = 20 * time.Millisecond
)

// CountJobs counts River's unfinished jobs (jobs.LiveStates) by kind and
// state, reading at most limit of them (jobs.MaxCounted when limit is not
// positive), for the metrics. It reads the state's index and, for the
// kind, the rows.
func (db *DB) CountJobs(ctx context.Context, limit int) ([]jobs.Count, error) {
	if limit <= 0 {
		limit = jobs.MaxCounted
	}
	rows, err := db.pool.Query(ctx, `SELECT kind, state::text, count(*) FROM (
		SELECT kind, state FROM river_job
		WHERE state IN ('available', 'pending', 'retryable', 'running', 'scheduled') LIMIT $1
	) j GROUP BY kind, state ORDER BY kind, state`, limit)
	if err != nil {
		return nil, dbError(err, "count jobs")
	}
	defer rows.Close()
	var out []jobs.Count
	for rows.Next() {
		var c jobs.Count
		if err := rows.Scan(&c.Kind, &c.State, &c.N); err != nil {
			return nil, dbError(err, "count jobs")
		}
		out = append(out, c)
	}
	return out, dbError(rows.Err(), "count jobs")
}
