package jobs

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/sello-do/sello"
)

// Sweep moves up to limit entries of a store's confirmation queue into
// River's as their jobs and returns how many
// (sello.InboundStore.QueueInboundConfirmJobs).
type Sweep func(ctx context.Context, limit int) (int, error)

// NewRunner is client as a Runner that, from Start to Stop, also moves the
// store's confirmation queue into jobs with sweep: at Start, then every
// cfg.ConfirmSweep (sello.InboundConfirmSweep when 0), each time in
// batches of sello.InboundConfirmBatch until the queue is empty. So
// wherever jobs are worked (serve, the tests' runners) the receipts'
// confirmations reach River, with nothing to start beside the runner; a
// process killed between two sweeps leaves the entries to the next sweep
// of any runner. The Runner lists jobs as the client does (JobList).
func NewRunner[TTx any](client *river.Client[TTx], sweep Sweep, cfg Config) Runner {
	logger := cfg.Logger
	if logger == nil {
		logger = DiscardLogger
	}
	return &sweepingRunner[TTx]{Client: client, sweep: sweep, every: cmp.Or(max(cfg.ConfirmSweep, 0), sello.InboundConfirmSweep), logger: logger}
}

// sweepingRunner is a River client with the confirmation queue's sweep.
type sweepingRunner[TTx any] struct {
	*river.Client[TTx]
	sweep  Sweep
	every  time.Duration
	logger *slog.Logger

	mu     sync.Mutex
	cancel context.CancelFunc // the running sweep's, nil when none
	done   chan struct{}      // closed when the running sweep has returned
}

// Start starts the client, then the sweep; the sweep stops with ctx too.
func (r *sweepingRunner[TTx]) Start(ctx context.Context) error {
	if err := r.Client.Start(ctx); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cancel != nil {
		return nil
	}
	sctx, cancel := context.WithCancel(ctx)
	r.cancel, r.done = cancel, make(chan struct{})
	go r.run(sctx, r.done)
	return nil
}

// Stop stops the sweep (a batch under way commits or rolls back whole),
// then the client.
func (r *sweepingRunner[TTx]) Stop(ctx context.Context) error {
	err := r.stopSweep(ctx)
	return cmp.Or(r.Client.Stop(ctx), err)
}

// StopAndCancel stops the sweep, then the client, cancelling its running
// jobs.
func (r *sweepingRunner[TTx]) StopAndCancel(ctx context.Context) error {
	err := r.stopSweep(ctx)
	return cmp.Or(r.Client.StopAndCancel(ctx), err)
}

// stopSweep cancels the running sweep and waits for it, or for ctx.
func (r *sweepingRunner[TTx]) stopSweep(ctx context.Context) error {
	r.mu.Lock()
	cancel, done := r.cancel, r.done
	r.cancel, r.done = nil, nil
	r.mu.Unlock()
	if cancel == nil {
		return nil
	}
	cancel()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// run sweeps at once and then every r.every, until ctx ends.
func (r *sweepingRunner[TTx]) run(ctx context.Context, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(r.every)
	defer t.Stop()
	for {
		r.drain(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// drain moves batches until one comes short (the queue is empty, or what
// is left is held by another runner's sweep) or fails; a failure waits for
// the next tick.
func (r *sweepingRunner[TTx]) drain(ctx context.Context) {
	for ctx.Err() == nil {
		n, err := r.sweep(ctx, sello.InboundConfirmBatch)
		if err != nil {
			if !errors.Is(err, context.Canceled) || ctx.Err() == nil {
				r.logger.Warn("inbound confirmation queue: not moved to jobs; next try at the next sweep", "err", err)
			}
			return
		}
		if n < sello.InboundConfirmBatch {
			return
		}
	}
}
