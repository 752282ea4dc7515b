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
	Stop(ctx context.Context) error
}
