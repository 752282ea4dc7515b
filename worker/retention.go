package worker

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/sello-do/sello"
)

// EventRetentionArgs deletes the events older than sello.EventRetention,
// with their deliveries and attempt logs.
type EventRetentionArgs struct{}

// Kind implements river.JobArgs.
func (EventRetentionArgs) Kind() string { return "sello.event_retention" }

// eventRetentionJob runs EventRetentionArgs daily and at start (a process
// restarted more often than daily still runs it).
func eventRetentionJob() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(24*time.Hour),
		func() (river.JobArgs, *river.InsertOpts) { return EventRetentionArgs{}, nil },
		&river.PeriodicJobOpts{RunOnStart: true})
}

type eventRetentionWorker struct {
	river.WorkerDefaults[EventRetentionArgs]
	w *Worker
}

func (rw *eventRetentionWorker) Work(ctx context.Context, job *river.Job[EventRetentionArgs]) error {
	_, err := rw.w.DeleteOldEvents(ctx)
	return err
}

// DeleteOldEvents deletes, across tenants, the events created more than
// sello.EventRetention ago with their deliveries and attempt logs (events a
// pending or held delivery still needs are kept); it returns how many
// events it deleted.
func (w *Worker) DeleteOldEvents(ctx context.Context) (int, error) {
	n, err := w.cfg.Store.DeleteEventsBefore(ctx, w.cfg.Now().Add(-sello.EventRetention))
	if err != nil {
		return 0, fmt.Errorf("delete old events: %w", err)
	}
	if n > 0 {
		w.cfg.Logger.InfoContext(ctx, "old events deleted", "events", n)
	}
	return n, nil
}
