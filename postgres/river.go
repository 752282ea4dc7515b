package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/sello-do/sello"
)

var discardLogger = slog.New(slog.DiscardHandler)

// migrateRiver applies River's migrations, on their own migration line.
// The caller holds the migration lock.
func migrateRiver(ctx context.Context, pool *pgxpool.Pool) error {
	m, err := rivermigrate.New(riverpgxv5.New(pool), &rivermigrate.Config{Logger: discardLogger})
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
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{Logger: discardLogger})
	if err != nil {
		return nil, fmt.Errorf("river client: %w", err)
	}
	return client, nil
}

// insertJobs inserts jobs with tx, so they exist only if tx commits. A
// sello.Job has River's JobArgs method set; job types that also implement
// InsertOpts() river.InsertOpts get their options, and a
// sello.JobMaxAttempts its MaxAttempts.
func (db *DB) insertJobs(ctx context.Context, tx pgx.Tx, jobs []sello.Job) error {
	if len(jobs) == 0 {
		return nil
	}
	params := make([]river.InsertManyParams, len(jobs))
	for i, j := range jobs {
		if j == nil {
			return errors.New("insert jobs: nil job")
		}
		params[i] = river.InsertManyParams{Args: j}
		if m, ok := j.(sello.JobMaxAttempts); ok {
			params[i].InsertOpts = &river.InsertOpts{MaxAttempts: m.MaxAttempts()}
		}
	}
	if _, err := db.river.InsertManyTx(ctx, tx, params); err != nil {
		return fmt.Errorf("insert jobs: %w", err)
	}
	return nil
}

// NewJobRunner implements sello.Store: a River client working the default
// queue with cfg.Workers workers (default 8). River's own queries (fetching,
// completing, electing a leader, LISTEN, maintenance) run on the jobs pool
// (see Pools), apart from the store's: an API holding every store
// connection delays the jobs' work, never the queue. The jobs themselves
// use the store, and so its pool. New jobs reach the runner at once through
// LISTEN/NOTIFY. workers must be a *river.Workers and cfg.Periodic nil or
// []*river.PeriodicJob.
func (db *DB) NewJobRunner(workers any, cfg sello.JobConfig) (sello.JobRunner, error) {
	rc, err := riverConfig(workers, cfg)
	if err != nil {
		return nil, err
	}
	client, err := river.NewClient(riverpgxv5.New(db.jobsPool), rc)
	if err != nil {
		return nil, fmt.Errorf("new job runner: %w", err)
	}
	return client, nil
}

// riverConfig is the River configuration of a job runner with cfg's
// defaults applied.
func riverConfig(workers any, cfg sello.JobConfig) (*river.Config, error) {
	w, ok := workers.(*river.Workers)
	if !ok || w == nil {
		return nil, fmt.Errorf("new job runner: workers must be a non-nil *river.Workers, not %T", workers)
	}
	periodic, ok := cfg.Periodic.([]*river.PeriodicJob)
	if !ok && cfg.Periodic != nil {
		return nil, fmt.Errorf("new job runner: periodic jobs must be a []*river.PeriodicJob, not %T", cfg.Periodic)
	}
	n := cmp.Or(max(cfg.Workers, 0), 8)
	timeout := cmp.Or(cfg.JobTimeout, time.Minute)
	rescue := cmp.Or(cfg.RescueAfter, 2*time.Minute)
	if rescue <= timeout {
		return nil, fmt.Errorf("new job runner: RescueAfter (%s) must exceed JobTimeout (%s)", rescue, timeout)
	}
	logger := cfg.Logger
	if logger == nil {
		logger = discardLogger
	}
	return &river.Config{
		Queues:               map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: n}},
		Workers:              w,
		PeriodicJobs:         periodic,
		JobTimeout:           timeout,
		RescueStuckJobsAfter: rescue,
		Logger:               logger,
		FetchPollInterval:    fetchPollInterval,
		FetchCooldown:        fetchCooldown,
	}, nil
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
