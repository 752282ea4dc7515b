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

// maxAttempts bounds the failures of a step that cannot be DGII's fault
// (building or signing the XML): past it the document is failed.
const maxAttempts = 12

// ProcessArgs advances one document through its lifecycle: each run takes
// it as far as it can go (sign, send, verdict) and snoozes while it waits
// for DGII.
type ProcessArgs struct {
	DocumentRef
}

// Kind implements river.JobArgs.
func (ProcessArgs) Kind() string { return "sello.document" }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (ProcessArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: processAttempts}
}

// processAttempts bounds a document's failed runs (snoozes do not count):
// with retryDelay, about 35 days of retries every 5 minutes, so an outage
// that fails sends (rather than refusing them) never drops a document.
const processAttempts = 10_000

// retryDelay is the wait before attempt+1: 2^attempt seconds up to five
// minutes, ±20% jitter.
func retryDelay(attempt int) time.Duration {
	d := 5 * time.Minute
	if attempt < 9 {
		d = min(d, time.Duration(1<<attempt)*time.Second)
	}
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}
