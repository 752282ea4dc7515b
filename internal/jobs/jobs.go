// Package jobs is what the two stores' job runners share: the runner's
// interface and River's configuration with Sello's defaults. The domain
// (package sello) names no River type: it defines the jobs (sello.Job), each
// engine builds its runner from this package and River's driver for its
// database, and cmd/sello's wiring chooses the engine.
package jobs

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/sello-do/sello"
	"go.opentelemetry.io/otel/trace"
)

// Runner works jobs until it is stopped (a River client).
type Runner interface {
	Start(ctx context.Context) error
	// Stop stops fetching jobs and waits for the running ones to finish,
	// or for ctx to end (then it returns ctx's error and they run on).
	Stop(ctx context.Context) error
	// StopAndCancel is Stop that first cancels the running jobs' contexts.
	StopAndCancel(ctx context.Context) error
}

// Config sizes a job runner.
type Config struct {
	// Workers is how many jobs run at once (default 8).
	Workers int
	// Logger for the runner; nil discards.
	Logger *slog.Logger
	// JobTimeout bounds one run of a job (default 1 minute).
	JobTimeout time.Duration
	// RescueAfter is how long a job may stay running before it is deemed
	// interrupted (its process died) and run again (default 2 minutes;
	// must exceed JobTimeout).
	RescueAfter time.Duration
	// Periodic are the jobs inserted on a schedule.
	Periodic []*river.PeriodicJob
	// TracerProvider makes a span for every run of a job (see
	// Propagation); nil, tracing off, makes none.
	TracerProvider trace.TracerProvider
	// Middleware wraps the work of every job (the metrics' observer).
	Middleware []rivertype.Middleware
	// ConfirmSweep is how often the runner moves the receipts'
	// confirmation queue into jobs (NewRunner; default
	// sello.InboundConfirmSweep). Tests shorten it.
	ConfirmSweep time.Duration
}

// RiverConfig is the River configuration of a runner working the default
// queue with workers, cfg's defaults applied. The engine adds its fetch
// timing.
func RiverConfig(workers *river.Workers, cfg Config) (*river.Config, error) {
	if workers == nil {
		return nil, errors.New("new job runner: no workers")
	}
	n := cmp.Or(max(cfg.Workers, 0), 8)
	timeout := cmp.Or(cfg.JobTimeout, time.Minute)
	rescue := cmp.Or(cfg.RescueAfter, 2*time.Minute)
	if rescue <= timeout {
		return nil, fmt.Errorf("new job runner: RescueAfter (%s) must exceed JobTimeout (%s)", rescue, timeout)
	}
	logger := cfg.Logger
	if logger == nil {
		logger = DiscardLogger
	}
	return &river.Config{
		Queues:               map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: n}},
		Workers:              workers,
		PeriodicJobs:         cfg.Periodic,
		JobTimeout:           timeout,
		RescueStuckJobsAfter: rescue,
		Logger:               logger,
		// Propagation first: the other middleware run in the job's
		// context, its correlation id and span.
		Middleware: append([]rivertype.Middleware{&Propagation{TracerProvider: cfg.TracerProvider, Logger: logger}}, cfg.Middleware...),
	}, nil
}

// InsertConfig is the River configuration of a store's insert-only client:
// it logs nothing and carries the inserting context's correlation id and
// trace into the jobs (Propagation).
func InsertConfig() *river.Config {
	return &river.Config{Logger: DiscardLogger, Middleware: []rivertype.Middleware{&Propagation{}}}
}

// DiscardLogger is River's logger where nothing is to be logged
// (migrations, insert-only clients).
var DiscardLogger = slog.New(slog.DiscardHandler)

// InsertParams are River's insert parameters of js: a sello.Job has River's
// JobArgs method set; job types that also implement InsertOpts()
// river.InsertOpts get their options, a sello.JobMaxAttempts its
// MaxAttempts, and a sello.ScheduledJob its job, scheduled at At.
func InsertParams(js []sello.Job) ([]river.InsertManyParams, error) {
	params := make([]river.InsertManyParams, len(js))
	for i, j := range js {
		if j == nil {
			return nil, errors.New("insert jobs: nil job")
		}
		var opts *river.InsertOpts
		if s, ok := j.(sello.ScheduledJob); ok {
			if s.Job == nil {
				return nil, errors.New("insert jobs: nil job")
			}
			j, opts = s.Job, &river.InsertOpts{ScheduledAt: s.At}
		}
		if m, ok := j.(sello.JobMaxAttempts); ok {
			if opts == nil {
				opts = &river.InsertOpts{}
			}
			opts.MaxAttempts = m.MaxAttempts()
		}
		params[i] = river.InsertManyParams{Args: j, InsertOpts: opts}
	}
	return params, nil
}

// Count is how many jobs of a kind are in a state (one of LiveStates).
type Count struct {
	Kind  string
	State rivertype.JobState
	N     int
}

// LiveStates are the states of the jobs not finished, which the stores'
// CountJobs counts: finished jobs (completed, cancelled, discarded) stay
// in River's table for a while, and are not counted.
var LiveStates = []rivertype.JobState{
	rivertype.JobStateAvailable,
	rivertype.JobStatePending,
	rivertype.JobStateRetryable,
	rivertype.JobStateRunning,
	rivertype.JobStateScheduled,
}

// MaxCounted bounds the jobs one CountJobs reads, so that a scrape of a
// queue millions deep stays cheap: past it the counts are those of the
// first MaxCounted jobs read.
const MaxCounted = 100_000
