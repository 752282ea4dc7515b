package worker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/sello-do/sello"
)

// drainBatch is how many waiting documents the drain reads at a time, and
// drainRunFor how long one run of the contingency job sends before it
// snoozes to go on in the next run: a run must end within River's job
// timeout (1 minute), with room for a send (--dgii-timeout, 30 s), or
// River would rescue it and two drains would race.
const (
	drainBatch  = 100
	drainRunFor = 20 * time.Second
)

// reachEntry is the process's view of an environment's reachability.
type reachEntry struct {
	r        *sello.Reachability
	read     time.Time // when r was read or written
	reported time.Time // the last failure this process recorded
	beat     time.Time // the last refresh of LastSuccess this process tried
	warned   time.Time // the last deadline warning logged
}

// reachRefresh is how long the process keeps its view of an environment's
// reachability, and how often it records failures: a second, or a quarter
// of the threshold when that is shorter.
func (w *Worker) reachRefresh() time.Duration {
	return min(time.Second, w.cfg.ContingencyAfter/4)
}

// reachability returns env's reachability as read at most reachRefresh
// ago by this process.
func (w *Worker) reachability(ctx context.Context, env sello.Environment) (*sello.Reachability, error) {
	w.mu.Lock()
	var kept *sello.Reachability // never changed once kept: remember replaces it
	if e := w.reach[env]; e != nil && e.r != nil && time.Since(e.read) < w.reachRefresh() {
		kept = e.r
	}
	w.mu.Unlock()
	if kept != nil {
		return kept, nil
	}
	r, err := w.cfg.Store.FindReachability(ctx, env)
	if err != nil {
		return nil, fmt.Errorf("dgii reachability: %w", err)
	}
	w.remember(env, r, false)
	return r, nil
}

// remember keeps r as the process's view of env; reported says it was
// written for a failure.
func (w *Worker) remember(env sello.Environment, r *sello.Reachability, reported bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	e := w.reach[env]
	if e == nil {
		e = &reachEntry{}
		w.reach[env] = e
	}
	e.r, e.read = r, time.Now()
	if reported {
		e.reported = e.read
	}
}

// observe records what a call to DGII in env told of its reachability (err
// is the call's error): a failure (DGII unreachable or 5xx), at most once
// per reachRefresh per process; a success, when the environment is not
// already clean, or else when LastSuccess is due (sello.LastSuccessEvery),
// tried by one call per reachRefresh per process. Other errors (a refusal)
// say nothing.
//
// A write that fails is logged, not returned: the call's own outcome (a
// trackId, a verdict) must still be recorded, and the next call writes
// the reachability again.
func (w *Worker) observe(ctx context.Context, env sello.Environment, err error) {
	var rerr error
	switch {
	case unavailable(err): // an uncertain send too: DGII did not answer
		w.mu.Lock()
		e := w.reach[env]
		skip := e != nil && time.Since(e.reported) < w.reachRefresh()
		w.mu.Unlock()
		if !skip {
			rerr = w.record(ctx, env, sello.DGIIFailed)
		}
	case err == nil:
		var r *sello.Reachability
		if r, rerr = w.reachability(ctx, env); rerr == nil && (!r.Clean() || r.BeatDue(w.cfg.Now()) && w.claimBeat(env)) {
			rerr = w.record(ctx, env, sello.DGIISucceeded)
		}
	}
	if rerr != nil {
		w.cfg.Logger.WarnContext(ctx, "could not record dgii's reachability", "environment", env, "err", rerr)
	}
}

// claimBeat reports whether this call is the one, in this process and
// reachRefresh, to refresh env's LastSuccess: many calls succeed at once,
// and the others need not queue for the row.
func (w *Worker) claimBeat(env sello.Environment) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	e := w.reach[env]
	if e == nil || time.Since(e.beat) < w.reachRefresh() {
		return false
	}
	e.beat = time.Now()
	return true
}

// record writes outcome o in env and keeps the result as the process's
// view, logging the transitions it made.
func (w *Worker) record(ctx context.Context, env sello.Environment, o sello.DGIIOutcome) error {
	r, entered, err := w.cfg.Store.RecordDGIIOutcome(ctx, env, o, w.cfg.ContingencyAfter)
	if err != nil {
		return fmt.Errorf("record dgii %s: %w", o, err)
	}
	w.remember(env, r, o == sello.DGIIFailed)
	switch entered {
	case sello.DGIIContingency:
		w.cfg.Logger.WarnContext(ctx, "dgii unreachable: contingency", "environment", env, "since", r.Since, "threshold", w.cfg.ContingencyAfter)
	case sello.DGIIDraining:
		w.cfg.Logger.InfoContext(ctx, "dgii reachable again: sending the waiting documents, oldest first", "environment", env, "since", r.Since, "until", r.Until)
	case sello.DGIIAvailable:
		w.cfg.Logger.InfoContext(ctx, "contingency drained", "environment", env)
	}
	return nil
}

// contingencyWorker runs sello.ContingencyJob.
type contingencyWorker struct {
	river.WorkerDefaults[sello.ContingencyJob]
	w *Worker
}

// NextRetry spaces the runs after a failure as a document's job.
func (cw *contingencyWorker) NextRetry(job *river.Job[sello.ContingencyJob]) time.Time {
	return time.Now().Add(retryDelay(job.Attempt))
}

// Work follows the environment: in contingency it asks DGII for a seed
// (Reachable) and snoozes while DGII does not answer; once it does
// (draining, by this job's success or another call's) it sends the waiting
// documents oldest first, and ends the drain when none is left.
func (cw *contingencyWorker) Work(ctx context.Context, job *river.Job[sello.ContingencyJob]) error {
	w, env := cw.w, job.Args.Environment
	r, err := w.cfg.Store.FindReachability(ctx, env)
	if err != nil {
		return fmt.Errorf("contingency: %w", err)
	}
	w.remember(env, r, false)
	switch r.State {
	case sello.DGIIAvailable:
		return nil
	case sello.DGIIContingency:
		if err := w.warnDeadline(ctx, env); err != nil {
			return err
		}
		err := w.cfg.DGII.Reachable(ctx, env)
		if unavailable(err) {
			w.observe(ctx, env, err)
			return river.JobSnooze(w.wait(*r.Since))
		} else if err != nil {
			return fmt.Errorf("contingency: ask dgii: %w", err)
		}
		if err := w.record(ctx, env, sello.DGIISucceeded); err != nil {
			return err
		}
	}
	return w.drain(ctx, env)
}

// drain sends env's waiting documents, oldest first (by creation, every
// tenant), asking DGII first for each (an earlier try may have reached it),
// and ends the drain when none is left. It snoozes when DGII fails again,
// and when it has sent for drainRunFor (the next run goes on).
func (w *Worker) drain(ctx context.Context, env sello.Environment) error {
	start := time.Now()
	for {
		r, err := w.cfg.Store.FindReachability(ctx, env)
		if err != nil {
			return fmt.Errorf("drain: %w", err)
		}
		switch r.State {
		case sello.DGIIAvailable:
			return nil
		case sello.DGIIContingency: // down again: back to asking
			return river.JobSnooze(w.wait(*r.Since))
		}
		docs, err := w.cfg.Store.FindWaitingDocuments(ctx, env, drainBatch)
		if err != nil {
			return fmt.Errorf("drain: %w", err)
		}
		if len(docs) == 0 {
			return w.record(ctx, env, sello.DGIIDrained)
		}
		for _, doc := range docs {
			if time.Since(start) > drainRunFor {
				return river.JobSnooze(0)
			}
			_, err := w.submit(ctx, sello.NewDocumentJob(doc), doc, nil, true, doc.CreatedAt)
			var wait errWait
			if errors.As(err, &wait) {
				if !wait.verdict { // DGII failed this send
					return river.JobSnooze(wait.d)
				}
			} else if err != nil {
				return fmt.Errorf("drain %s: %w", doc.ENCF, err)
			}
		}
	}
}

// warnDeadline logs, at most hourly per environment, when the oldest
// document waiting in env was created more than sello.ContingencyWarnAfter
// ago: DGII's deadline for e-CFs issued in contingency
// (sello.ContingencyDeadline, 72 h, UNCERTAIN) approaches.
func (w *Worker) warnDeadline(ctx context.Context, env sello.Environment) error {
	w.mu.Lock()
	e := w.reach[env]
	recent := e != nil && time.Since(e.warned) < time.Hour
	w.mu.Unlock()
	if recent {
		return nil
	}
	docs, err := w.cfg.Store.FindWaitingDocuments(ctx, env, 1)
	if err != nil {
		return fmt.Errorf("contingency: %w", err)
	}
	if len(docs) == 0 || w.cfg.Now().Sub(docs[0].CreatedAt) < sello.ContingencyWarnAfter {
		return nil
	}
	w.mu.Lock()
	if e := w.reach[env]; e != nil {
		e.warned = time.Now()
	}
	w.mu.Unlock()
	w.cfg.Logger.WarnContext(ctx, "documents issued in contingency approach DGII's deadline: report the contingency in DGII's Oficina Virtual",
		"environment", env, "oldest_encf", docs[0].ENCF, "oldest_created_at", docs[0].CreatedAt,
		"deadline", docs[0].CreatedAt.Add(sello.ContingencyDeadline))
	return nil
}
