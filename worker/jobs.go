package worker

import (
	"math/rand/v2"
	"time"

	"github.com/riverqueue/river"
	"github.com/sello-do/sello"
)

// DocumentRef names the document a job works on.
type DocumentRef struct {
	TenantID    string            `json:"tenantId"`
	Environment sello.Environment `json:"environment"`
	DocumentID  string            `json:"documentId"`
}

func refOf(d *sello.Document) DocumentRef {
	return DocumentRef{TenantID: d.TenantID, Environment: d.Environment, DocumentID: d.ID}
}

// maxAttempts bounds the real failures (not snoozes) of one step; a step
// that keeps failing ends in failed rather than retrying forever.
const maxAttempts = 12

// SignArgs signs a queued document.
type SignArgs struct {
	DocumentRef
}

// Kind implements river.JobArgs.
func (SignArgs) Kind() string { return "sello.sign" }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (SignArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: maxAttempts}
}

// SubmitArgs sends a signed document (or its RFCE) to DGII.
type SubmitArgs struct {
	DocumentRef
}

// Kind implements river.JobArgs.
func (SubmitArgs) Kind() string { return "sello.submit" }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (SubmitArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: submitAttempts}
}

// submitAttempts bounds a send's failed attempts: with retryDelay, about
// 35 days of retries every 5 minutes.
const submitAttempts = 10_000

// retryDelay is the wait before attempt+1: 2^attempt seconds up to five
// minutes, ±20% jitter.
func retryDelay(attempt int) time.Duration {
	d := 5 * time.Minute
	if attempt < 9 {
		d = min(d, time.Duration(1<<attempt)*time.Second)
	}
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}

// PollArgs asks DGII for the verdict on a submitted document.
type PollArgs struct {
	DocumentRef
	TrackID string `json:"trackId"`
	// NotBefore delays the first poll: DGII needs a moment to validate.
	NotBefore time.Time `json:"notBefore"`
}

// Kind implements river.JobArgs.
func (PollArgs) Kind() string { return "sello.poll" }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (a PollArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: maxAttempts, ScheduledAt: a.NotBefore}
}
