package worker

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/riverqueue/river"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/tracing"
	"github.com/sello-do/sello/xmldsig"
	"go.opentelemetry.io/otel/trace"
)

// trackIDLostAfter is how long DGII may answer "No encontrado" for a trackId
// it gave before the document is failed for a person to look at.
const trackIDLostAfter = 24 * time.Hour

// processWorker runs sello.DocumentJob: it reads the document and does the next
// step for its status, again and again until the document is final or must
// wait for DGII. An accepted document whose delivery is due is delivered
// before the job ends (deliverFirst).
type processWorker struct {
	river.WorkerDefaults[sello.DocumentJob]
	w *Worker
}

// NextRetry spaces the runs after a failure (see retryDelay).
func (pw *processWorker) NextRetry(job *river.Job[sello.DocumentJob]) time.Time {
	return time.Now().Add(retryDelay(job.Attempt))
}

// errWait ends a step that must wait for DGII. A wait for a verdict may be
// held in the run (see hold); any other wait snoozes the job.
type errWait struct {
	d       time.Duration
	verdict bool // waiting for DGII to judge a document it has
	// learned, when not nil, ends the wait early: the verdict clock has
	// learned env's delay, and the query goes at the first poll it gives
	// after since, the document's send (verdictClock.firstPoll).
	learned <-chan struct{}
	env     sello.Environment
	since   time.Time
}

func (e errWait) Error() string { return fmt.Sprintf("wait %s for dgii", e.d) }

func (pw *processWorker) Work(ctx context.Context, job *river.Job[sello.DocumentJob]) error {
	w, ref := pw.w, job.Args
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.SetAttributes(tracing.AttrDocumentID.String(ref.DocumentID), tracing.AttrTenantID.String(ref.TenantID), tracing.AttrEnvironment.String(string(ref.Environment)))
	}
	var (
		doc  *sello.Document // as the last step left it; nil to read it
		xml  []byte          // doc's signed XML if this run signed it
		sent bool            // this run sent doc to DGII
		held time.Duration   // waited in this run for DGII's verdict
	)
	for {
		if doc == nil {
			var err error
			if doc, err = w.cfg.Store.FindDocumentByID(ctx, ref.TenantID, ref.Environment, ref.DocumentID); err != nil {
				return fmt.Errorf("process: %w", err)
			}
		}
		var step error
		switch doc.Status {
		case sello.StatusQueuedForSigning:
			doc, xml, step = w.sign(ctx, job, doc)
		case sello.StatusSigned:
			// In contingency, and while its backlog drains, the
			// contingency job sends the environment's documents, oldest
			// first: this one waits its turn.
			var r *sello.Reachability
			if r, step = w.reachability(ctx, ref.Environment); step == nil && r.Held() {
				step = errWait{d: w.wait(job.CreatedAt)}
				break
			} else if step != nil {
				return step
			}
			doc, step = w.submit(ctx, ref, doc, xml, job.Attempt > 1, job.CreatedAt)
			sent = doc != nil && doc.Status == sello.StatusSubmitted
		case sello.StatusSubmitted:
			doc, step = w.poll(ctx, job, doc, sent)
		default:
			// Final. An acceptance opened the document's delivery: this
			// job tries it once, also when a run killed after the
			// verdict is run again.
			if doc.DeliveryDue() {
				return w.deliverFirst(ctx, doc, xml)
			}
			return nil
		}
		if doc == nil {
			xml = nil // read again: another run may have signed it
		}
		var wait errWait
		if !errors.As(step, &wait) {
			if step != nil {
				return step
			}
			continue
		}
		if !wait.verdict || held+wait.d > w.cfg.HoldFor || !w.hold(ctx, wait) {
			return river.JobSnooze(wait.d)
		}
		held += wait.d
	}
}

// hold waits wait.d in the run, or less when wait.learned closes first
// (then until the learned first poll after wait.since, if that is sooner),
// and reports false, at once, when the job's deadline leaves less than
// wait.d and HoldFor after it (the query that follows must fit), or when
// ctx ends or the worker drains meanwhile: the job snoozes instead.
func (w *Worker) hold(ctx context.Context, wait errWait) bool {
	d := wait.d
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d+w.cfg.HoldFor {
		return false
	}
	end := time.Now().Add(d)
	t := time.NewTimer(d)
	defer t.Stop()
	learned := wait.learned
	for {
		select {
		case <-t.C:
			return true
		case <-learned:
			learned = nil
			due := wait.since.Add(w.verdicts.due(wait.env, w.cfg.FirstPoll, w.cfg.MaxWait))
			left := due.Sub(w.cfg.Now())
			if left <= 0 {
				// Overdue, as every document sent before the scout's
				// verdict may be: spread over FirstPoll rather than
				// all asking DGII in the same instant.
				left = time.Duration(rand.Int64N(int64(w.cfg.FirstPoll) + 1))
			}
			t.Reset(min(left, time.Until(end)))
		case <-ctx.Done():
			return false
		case <-w.draining:
			return false
		}
	}
}

// sign builds DGII's XML of a queued document, signs it with the tenant's
// certificate and, for type 32 under DOP 250,000, builds and signs the RFCE
// summary too.
//
// It returns the signed document with its signed XML, so that the send
// needs no read of it.
func (w *Worker) sign(ctx context.Context, job *river.Job[sello.DocumentJob], doc *sello.Document) (_ *sello.Document, _ []byte, err error) {
	ctx, span := tracing.Start(ctx, "sign")
	defer func() { tracing.End(span, err) }()
	if span.IsRecording() {
		span.SetAttributes(tracing.AttrENCF.String(doc.ENCF))
	}
	ref := job.Args
	_, signer, err := w.signer(ctx, ref.TenantID, ref.Environment)
	if sello.ErrorCodeOf(err) == sello.CodeNotFound {
		doc, err := w.fail(ctx, ref, sello.StatusQueuedForSigning, fmt.Sprintf(
			"No valid signing certificate for %s: add the taxpayer's certificate (sello certificates add) and create the document again.", ref.Environment))
		return doc, nil, err
	} else if err != nil {
		return nil, nil, fmt.Errorf("sign: %w", err)
	}
	ch, err := w.signBounded(ctx, doc, signer)
	if ctx.Err() != nil {
		return nil, nil, ctx.Err()
	} else if err != nil {
		// The document passed every check when it was created, so this is
		// Sello's fault: fail it with the reason rather than retry forever.
		if job.Attempt >= maxAttempts {
			doc, err := w.fail(ctx, ref, sello.StatusQueuedForSigning, "Sello could not build or sign the document: "+err.Error())
			return doc, nil, err
		}
		return nil, nil, fmt.Errorf("sign: %w", err)
	}
	// Signed while DGII is down past the threshold: an e-CF issued in
	// contingency (read now, not from the cache: it is the document's
	// record).
	r, err := w.cfg.Store.FindReachability(ctx, ref.Environment)
	if err != nil {
		return nil, nil, fmt.Errorf("sign: %w", err)
	}
	ch.Contingency = r.SignsInContingency()
	signed, err := w.transition(ctx, ref, *ch)
	return signed, ch.SignedXML, err
}

// signBounded is signDocument in one of the worker's signing slots (see
// New).
func (w *Worker) signBounded(ctx context.Context, doc *sello.Document, signer *xmldsig.Signer) (*sello.DocumentChange, error) {
	select {
	case w.signing <- struct{}{}:
		defer func() { <-w.signing }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return signDocument(doc, signer, w.cfg.Now())
}

// poll asks DGII for the verdict on a submitted document. learn says that
// this run sent the document and has waited for the verdict in process
// since, so the delay after which it is seen is DGII's (not the job
// queue's) and teaches the verdict clock.
func (w *Worker) poll(ctx context.Context, job *river.Job[sello.DocumentJob], doc *sello.Document, learn bool) (*sello.Document, error) {
	ref := job.Args
	sess, err := w.session(ctx, ref.TenantID, ref.Environment)
	if err != nil {
		return nil, fmt.Errorf("poll: %w", err)
	}
	res, err := sess.Result(ctx, doc.TrackID)
	w.observe(ctx, ref.Environment, err)
	if unavailable(err) {
		return nil, errWait{d: w.wait(job.CreatedAt)}
	} else if err != nil {
		return nil, fmt.Errorf("poll: %w", err)
	}
	switch res.Codigo {
	case 3: // En Proceso
		return doc, errWait{d: w.wait(doc.UpdatedAt), verdict: true}
	case 0: // No encontrado
		if w.cfg.Now().Sub(doc.UpdatedAt) > trackIDLostAfter {
			return w.fail(ctx, ref, sello.StatusSubmitted, fmt.Sprintf("DGII has not known trackId %s for %s.", doc.TrackID, trackIDLostAfter))
		}
		return doc, errWait{d: w.wait(doc.UpdatedAt), verdict: true}
	}
	if learn {
		w.verdicts.seen(ref.Environment, w.cfg.Now().Sub(doc.UpdatedAt))
	}
	return w.verdict(ctx, ref, doc, sello.StatusSubmitted, res)
}
