package sello

import "context"

// Job is a unit of background work (River's JobArgs: Kind names its worker).
// Stores insert jobs in the same transaction as the change that calls for
// them, so a change committed always has its next step queued.
type Job interface {
	Kind() string
}

// JobMaxAttempts is a Job that may fail more runs than River's default (25)
// before River discards it: the stores insert it with MaxAttempts().
type JobMaxAttempts interface {
	Job
	MaxAttempts() int
}

// JobRunner works jobs until it is stopped (a River client).
type JobRunner interface {
	Start(ctx context.Context) error
	// Stop stops fetching jobs and waits for the running ones to finish,
	// or for ctx to end (then it returns ctx's error and they run on).
	Stop(ctx context.Context) error
	// StopAndCancel is Stop that first cancels the running jobs' contexts.
	StopAndCancel(ctx context.Context) error
}
