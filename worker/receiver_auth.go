package worker

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/sello-do/sello"
)

// ReceiverAuthPruneArgs forgets the receivers' expired seeds and tokens
// (sello.ReceiverStore.DeleteExpiredReceiverAuth), and the issuers' counts
// of hours past the quota's window (sello.InboundStore.PruneIssuerReceipts).
type ReceiverAuthPruneArgs struct{}

// Kind implements river.JobArgs.
func (ReceiverAuthPruneArgs) Kind() string { return "sello.receiver_auth_prune" }

// ReceiverAuthPruneInterval is how often the expired seeds and tokens are
// forgotten: a seed lives 5 minutes and a token an hour, so the tables hold
// little more than the live ones.
const ReceiverAuthPruneInterval = 10 * time.Minute

// receiverAuthPruneJob runs ReceiverAuthPruneArgs every
// ReceiverAuthPruneInterval and at start.
func receiverAuthPruneJob() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(ReceiverAuthPruneInterval),
		func() (river.JobArgs, *river.InsertOpts) { return ReceiverAuthPruneArgs{}, nil },
		&river.PeriodicJobOpts{RunOnStart: true})
}

type receiverAuthPruneWorker struct {
	river.WorkerDefaults[ReceiverAuthPruneArgs]
	w *Worker
}

func (pw *receiverAuthPruneWorker) Work(ctx context.Context, job *river.Job[ReceiverAuthPruneArgs]) error {
	_, _, err := pw.w.PruneReceiverAuth(ctx)
	return err
}

// PruneReceiverAuth forgets, across tenants, the receivers' seeds and
// tokens expired now, and returns how many of each.
func (w *Worker) PruneReceiverAuth(ctx context.Context) (seeds, tokens int64, err error) {
	seeds, tokens, err = w.cfg.Store.DeleteExpiredReceiverAuth(ctx, w.cfg.Now())
	if err != nil {
		return 0, 0, fmt.Errorf("prune receiver auth: %w", err)
	}
	if seeds > 0 || tokens > 0 {
		w.cfg.Logger.InfoContext(ctx, "expired receiver seeds and tokens deleted", "seeds", seeds, "tokens", tokens)
	}
	if _, err := w.cfg.Store.PruneIssuerReceipts(ctx, w.cfg.Now().Add(-sello.IssuerQuotaWindow)); err != nil {
		return seeds, tokens, fmt.Errorf("prune issuer counts: %w", err)
	}
	return seeds, tokens, nil
}
