package worker

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/xmldsig"
)

// trackIDLostAfter is how long DGII may answer "No encontrado" for a trackId
// it gave before the document is failed for a person to look at.
const trackIDLostAfter = 24 * time.Hour

// processWorker runs ProcessArgs: it reads the document and does the next
// step for its status, again and again until the document is final or must
// wait for DGII.
type processWorker struct {
	river.WorkerDefaults[ProcessArgs]
	w *Worker
}

// NextRetry spaces the runs after a failure (see retryDelay).
func (pw *processWorker) NextRetry(job *river.Job[ProcessArgs]) time.Time {
	return time.Now().Add(retryDelay(job.Attempt))
}

// errWait ends a run that must wait for DGII: the job snoozes.
type errWait struct{ d time.Duration }

func (e errWait) Error() string { return fmt.Sprintf("wait %s for dgii", e.d) }

func (pw *processWorker) Work(ctx context.Context, job *river.Job[ProcessArgs]) error {
	w, ref := pw.w, job.Args.DocumentRef
	var doc *sello.Document // as the last step left it; nil to read it
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
			doc, step = w.sign(ctx, job, doc)
		case sello.StatusSigned:
			doc, step = w.submit(ctx, job, doc)
		case sello.StatusSubmitted:
			doc, step = w.poll(ctx, job, doc)
		default:
			return nil // final
		}
		if wait, ok := step.(errWait); ok {
			return river.JobSnooze(wait.d)
		} else if step != nil {
			return step
		}
	}
}

// sign builds DGII's XML of a queued document, signs it with the tenant's
// certificate and, for type 32 under DOP 250,000, builds and signs the RFCE
// summary too.
func (w *Worker) sign(ctx context.Context, job *river.Job[ProcessArgs], doc *sello.Document) (*sello.Document, error) {
	ref := job.Args.DocumentRef
	_, signer, err := w.signer(ctx, ref.TenantID, ref.Environment)
	if sello.ErrorCodeOf(err) == sello.CodeNotFound {
		return w.fail(ctx, ref, sello.StatusQueuedForSigning, fmt.Sprintf(
			"No valid signing certificate for %s: add the taxpayer's certificate (sello certificates add) and create the document again.", ref.Environment))
	} else if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	ch, err := w.signBounded(ctx, doc, signer)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	} else if err != nil {
		// The document passed every check when it was created, so this is
		// Sello's fault: fail it with the reason rather than retry forever.
		if job.Attempt >= maxAttempts {
			return w.fail(ctx, ref, sello.StatusQueuedForSigning, "Sello could not build or sign the document: "+err.Error())
		}
		return nil, fmt.Errorf("sign: %w", err)
	}
	return w.transition(ctx, ref, *ch)
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

// poll asks DGII for the verdict on a submitted document.
func (w *Worker) poll(ctx context.Context, job *river.Job[ProcessArgs], doc *sello.Document) (*sello.Document, error) {
	ref := job.Args.DocumentRef
	sess, err := w.session(ctx, ref.TenantID, ref.Environment)
	if err != nil {
		return nil, fmt.Errorf("poll: %w", err)
	}
	res, err := sess.Result(ctx, doc.TrackID)
	if unavailable(err) {
		return nil, errWait{w.wait(job.CreatedAt)}
	} else if err != nil {
		return nil, fmt.Errorf("poll: %w", err)
	}
	switch res.Codigo {
	case 3: // En Proceso
		return nil, errWait{w.wait(doc.UpdatedAt)}
	case 0: // No encontrado
		if w.cfg.Now().Sub(doc.UpdatedAt) > trackIDLostAfter {
			return w.fail(ctx, ref, sello.StatusSubmitted, fmt.Sprintf("DGII has not known trackId %s for %s.", doc.TrackID, trackIDLostAfter))
		}
		return nil, errWait{w.wait(doc.UpdatedAt)}
	}
	return w.verdict(ctx, ref, sello.StatusSubmitted, res)
}
