package worker

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/sello-do/sello"
)

// PortalPruneArgs deletes the portal's sessions no one can use any more
// (revoked, past their absolute expiry, or idle past sello.SessionIdle)
// and its used or expired one-time links.
type PortalPruneArgs struct{}

// Kind implements river.JobArgs.
func (PortalPruneArgs) Kind() string { return "sello.portal_prune" }

// PortalPruneInterval is how often the portal's dead sessions and links are
// deleted. They are refused as soon as they die; the prune only keeps the
// tables from growing with every login.
const PortalPruneInterval = 10 * time.Minute

// portalPruneJob runs PortalPruneArgs every PortalPruneInterval and at
// start.
func portalPruneJob() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(PortalPruneInterval),
		func() (river.JobArgs, *river.InsertOpts) { return PortalPruneArgs{}, nil },
		&river.PeriodicJobOpts{RunOnStart: true})
}

type portalPruneWorker struct {
	river.WorkerDefaults[PortalPruneArgs]
	w *Worker
}

func (pw *portalPruneWorker) Work(ctx context.Context, job *river.Job[PortalPruneArgs]) error {
	_, _, err := pw.w.PrunePortal(ctx)
	return err
}

// PrunePortal deletes, across tenants, the portal's dead sessions and used
// or expired links, and returns how many of each.
func (w *Worker) PrunePortal(ctx context.Context) (sessions, links int64, err error) {
	now := w.cfg.Now()
	if sessions, err = w.cfg.Store.PruneSessions(ctx, now, now.Add(-sello.SessionIdle)); err != nil {
		return 0, 0, fmt.Errorf("prune portal sessions: %w", err)
	}
	if links, err = w.cfg.Store.PruneLinks(ctx, now); err != nil {
		return sessions, 0, fmt.Errorf("prune portal links: %w", err)
	}
	if sessions > 0 || links > 0 {
		w.cfg.Logger.InfoContext(ctx, "dead portal sessions and links deleted", "sessions", sessions, "links", links)
	}
	return sessions, links, nil
}
