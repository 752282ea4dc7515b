package worker

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
)

// trackIDLostAfter is how long DGII may answer "No encontrado" for a trackId
// it gave before the document is failed for a person to look at.
const trackIDLostAfter = 24 * time.Hour

// pollWorker asks DGII for the verdict on a submitted document until there
// is one.
type pollWorker struct {
	river.WorkerDefaults[PollArgs]
	w *Worker
}

func (pw *pollWorker) Work(ctx context.Context, job *river.Job[PollArgs]) error {
	w, ref := pw.w, job.Args.DocumentRef
	doc, err := w.cfg.Store.FindDocumentByID(ctx, ref.TenantID, ref.Environment, ref.DocumentID)
	if err != nil {
		return fmt.Errorf("poll: %w", err)
	} else if doc.Status != sello.StatusSubmitted {
		return nil
	}
	d, err := ecf.Decode(doc.Payload)
	if err != nil {
		return fmt.Errorf("poll: decode stored document: %w", err)
	}
	sess, err := w.session(ctx, ref.TenantID, ref.Environment, d.ECF.Encabezado.Emisor.RNCEmisor)
	if err != nil {
		return fmt.Errorf("poll: %w", err)
	}
	res, err := sess.Result(ctx, job.Args.TrackID)
	if unavailable(err) {
		return river.JobSnooze(w.wait(job.CreatedAt))
	} else if err != nil {
		return fmt.Errorf("poll: %w", err)
	}
	switch res.Codigo {
	case 3: // En Proceso
		return river.JobSnooze(w.wait(job.CreatedAt))
	case 0: // No encontrado
		if w.cfg.Now().Sub(job.CreatedAt) > trackIDLostAfter {
			return w.fail(ctx, ref, sello.StatusSubmitted, fmt.Sprintf("DGII has not known trackId %s for %s.", job.Args.TrackID, trackIDLostAfter))
		}
		return river.JobSnooze(w.wait(job.CreatedAt))
	}
	return w.verdict(ctx, ref, sello.StatusSubmitted, res)
}
