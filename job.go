package sello

import "time"

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

// ScheduledJob is Job to run at At rather than at once: the stores insert
// Job, scheduled.
type ScheduledJob struct {
	Job Job
	At  time.Time
}

// Kind implements Job: Job's kind.
func (s ScheduledJob) Kind() string { return s.Job.Kind() }

// DocumentJob carries a created document through its lifecycle: signing,
// sending to DGII and following it to a verdict (the worker package works
// it). CreateDocument inserts it in the transaction that creates the
// document, so every document committed has its job.
type DocumentJob struct {
	TenantID    string      `json:"tenantId"`
	Environment Environment `json:"environment"`
	DocumentID  string      `json:"documentId"`
}

// NewDocumentJob is the job of document d.
func NewDocumentJob(d *Document) DocumentJob {
	return DocumentJob{TenantID: d.TenantID, Environment: d.Environment, DocumentID: d.ID}
}

// Kind implements Job (River's JobArgs).
func (DocumentJob) Kind() string { return "sello.document" }

// DocumentJobMaxAttempts bounds a document job's failed runs (a run that
// waits for DGII snoozes, which does not count): with the worker's retry
// delays, about 35 days of retries every 5 minutes, so an outage that fails
// sends (rather than refusing them) never drops a document.
const DocumentJobMaxAttempts = 10_000

// MaxAttempts implements JobMaxAttempts.
func (DocumentJob) MaxAttempts() int { return DocumentJobMaxAttempts }
