package worker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/dgii"
	"github.com/sello-do/sello/ecf"
)

// DGII's certification test set in CerteCF (FACTS §5.2,
// docs/certification.md). POST /{env}/certificacion/pruebas stores the
// run and queues its sello.CertificationJob; a run of the job takes the
// run's next row through its steps, then the next, until the run is over:
//
//	pending  build the row's XML with exactly its fields (ecf.ReadFields,
//	         ecf.ACECFFields), sign it with the tenant's certificate, keep
//	         it ──> signed (an RFCE row signs the full e-CF 32 first: its
//	         security code goes into the summary)
//	signed   mark the row attempted (once), then
//	         e-CF: when attempted before, ask DGII for the e-NCF's trackIds
//	           since the signature first (a run may have sent it before a
//	           crash); else send to recepción ──> sent
//	         RFCE: when attempted before, ask consulta estado for the e-NCF
//	           and this signature's security code first; else send to
//	           recepción FC: its verdict is final
//	         ACECF: send to aprobación comercial: codigo 1 accepted, 2
//	           rejected
//	sent     ask consulta resultado by trackId until a verdict
//
// A row that cannot be built or that DGII refuses at reception (a 4xx)
// fails the run; a Rechazado stops it (sello.CertificationRun.Record).
// While DGII is unavailable the job snoozes; a send whose outcome is
// unknown fails the run of the job, and the next asks DGII before sending
// again, so no row is sent twice.

// certificationWorker runs sello.CertificationJob.
type certificationWorker struct {
	river.WorkerDefaults[sello.CertificationJob]
	w *Worker
}

// NextRetry spaces the runs after a failure as a document's.
func (cw *certificationWorker) NextRetry(job *river.Job[sello.CertificationJob]) time.Time {
	return time.Now().Add(retryDelay(job.Attempt))
}

// Work implements river.Worker.
func (cw *certificationWorker) Work(ctx context.Context, job *river.Job[sello.CertificationJob]) error {
	w, j := cw.w, job.Args
	var held time.Duration
	for {
		run, err := w.cfg.Store.FindCertificationRun(ctx, j.TenantID, j.Environment, j.RunID)
		if sello.ErrorCodeOf(err) == sello.CodeNotFound {
			return river.JobCancel(err)
		} else if err != nil {
			return fmt.Errorf("certification: %w", err)
		}
		row := run.Next()
		if row == nil {
			return nil
		}
		u, step := w.certificationStep(ctx, run, row)
		if u != nil {
			_, err := w.cfg.Store.RecordCertificationRow(ctx, j.TenantID, j.Environment, j.RunID, row.Index, *u, w.cfg.Now())
			if sello.ErrorCodeOf(err) == sello.CodeConflict {
				continue // another run recorded it: read again
			} else if err != nil {
				return fmt.Errorf("certification: %w", err)
			}
		}
		var wait errWait
		switch {
		case errors.As(step, &wait):
			if !wait.verdict || held+wait.d > w.cfg.HoldFor || !w.hold(ctx, wait) {
				return river.JobSnooze(wait.d)
			}
			held += wait.d
		case step != nil:
			return fmt.Errorf("certification row %d: %w", row.Index, step)
		}
	}
}

// certificationStep takes row one step: the update to record (nil: none)
// and an error to end the run of the job with (an errWait to wait for
// DGII).
func (w *Worker) certificationStep(ctx context.Context, run *sello.CertificationRun, row *sello.CertificationRow) (*sello.CertificationRowUpdate, error) {
	switch row.State {
	case sello.RowPending:
		return w.signRow(ctx, run, row)
	case sello.RowSigned:
		return w.sendRow(ctx, run, row)
	case sello.RowSent:
		return w.pollRow(ctx, run, row)
	}
	return nil, fmt.Errorf("row %d is %s", row.Index, row.State)
}

// failedRow is the update that fails a row with err's message (and the
// details of a sello.Error).
func failedRow(err error) *sello.CertificationRowUpdate {
	msg := err.Error()
	var se *sello.Error
	if errors.As(err, &se) {
		msg = se.Message
		for _, d := range se.Details {
			msg += " " + d.Path + ": " + d.Message
		}
	}
	return &sello.CertificationRowUpdate{State: sello.RowFailed, Error: msg}
}

// signRow builds and signs the row's XML.
func (w *Worker) signRow(ctx context.Context, run *sello.CertificationRun, row *sello.CertificationRow) (*sello.CertificationRowUpdate, error) {
	t, err := w.cfg.Store.FindTenantByID(ctx, run.TenantID)
	if err != nil {
		return nil, err
	}
	_, signer, err := w.signer(ctx, run.TenantID, run.Environment)
	if sello.ErrorCodeOf(err) == sello.CodeNotFound {
		return failedRow(fmt.Errorf("no valid certificate for %s to sign with", run.Environment)), nil
	} else if err != nil {
		return nil, err
	}
	now := w.cfg.Now().Truncate(time.Second)
	if row.Kind == sello.CertificationACECF {
		a, err := ecf.ACECFFields(row.Fields, now)
		if err != nil {
			return failedRow(err), nil
		} else if a.RNCComprador != t.RNC {
			return failedRow(fmt.Errorf("RNCComprador %s is not the tenant's RNC %s: the set's approvals are the taxpayer's, as buyer", a.RNCComprador, t.RNC)), nil
		}
		x, err := a.XML()
		if err != nil {
			return failedRow(err), nil
		}
		signed, err := signer.Sign(x)
		if err != nil {
			return nil, fmt.Errorf("sign acecf: %w", err)
		}
		return &sello.CertificationRowUpdate{State: sello.RowSigned, XML: signed, SignedAt: &now}, nil
	}
	d, err := ecf.ReadFields(row.Fields)
	if err != nil {
		return failedRow(err), nil
	}
	switch {
	case d.ENCF() != row.ENCF:
		return failedRow(fmt.Errorf("the row's eNCF %q is not its document's %q", row.ENCF, d.ENCF())), nil
	case d.ECF.Encabezado.Emisor == nil || d.ECF.Encabezado.Emisor.RNCEmisor != t.RNC:
		return failedRow(fmt.Errorf("RNCEmisor is not the tenant's RNC %s: DGII's set is issued by the taxpayer being certified", t.RNC)), nil
	case row.Kind == sello.CertificationRFCE && !d.NeedsRFCE():
		return failedRow(errors.New("an RFCE row must be a type 32 with MontoTotal under DOP 250,000.00")), nil
	}
	unsigned, err := d.XML(now)
	if err != nil {
		return failedRow(err), nil
	}
	signed, code, err := signer.SignCode(unsigned)
	if err != nil {
		return nil, fmt.Errorf("sign e-cf: %w", err)
	}
	u := &sello.CertificationRowUpdate{State: sello.RowSigned, XML: signed, SecurityCode: code, SignedAt: &now}
	if row.Kind == sello.CertificationRFCE {
		rfce, err := d.RFCE(code)
		if err != nil {
			return failedRow(err), nil
		}
		if u.XML, err = signer.Sign(rfce); err != nil {
			return nil, fmt.Errorf("sign rfce: %w", err)
		}
	}
	return u, nil
}

// sendRow sends the row's signed XML, after asking DGII whether an earlier
// run sent it.
func (w *Worker) sendRow(ctx context.Context, run *sello.CertificationRun, row *sello.CertificationRow) (*sello.CertificationRowUpdate, error) {
	sess, err := w.session(ctx, run.TenantID, run.Environment)
	if sello.ErrorCodeOf(err) == sello.CodeNotFound {
		return failedRow(fmt.Errorf("no valid certificate for %s to authenticate with DGII", run.Environment)), nil
	} else if err != nil {
		return nil, err
	}
	signed, err := w.cfg.Store.FindCertificationRowXML(ctx, run.TenantID, run.Environment, run.ID, row.Index)
	if err != nil {
		return nil, err
	}
	if !row.Attempted {
		_, err := w.cfg.Store.RecordCertificationRow(ctx, run.TenantID, run.Environment, run.ID, row.Index,
			sello.CertificationRowUpdate{State: sello.RowSigned, Attempted: true}, w.cfg.Now())
		if err != nil {
			return nil, err
		}
	}
	switch row.Kind {
	case sello.CertificationECF:
		if row.Attempted {
			if trackID, err := w.earlierSend(ctx, sess, row); err != nil {
				return nil, err
			} else if trackID != "" {
				w.cfg.Logger.InfoContext(ctx, "dgii already has the certification row", "run_id", run.ID, "row", row.Index, "track_id", trackID)
				return &sello.CertificationRowUpdate{State: sello.RowSent, TrackID: trackID}, errWait{d: w.cfg.FirstPoll, verdict: true}
			}
		}
		trackID, err := sess.SendECF(ctx, row.ENCF, signed)
		if err == nil {
			return &sello.CertificationRowUpdate{State: sello.RowSent, TrackID: trackID}, errWait{d: w.cfg.FirstPoll, verdict: true}
		}
		return sendError(w, row, err)
	case sello.CertificationRFCE:
		if row.Attempted {
			// The security code is this signature's: DGII knows this RFCE,
			// not an earlier one of the e-NCF.
			if st, err := sess.Estado(ctx, sess.RNC(), row.ENCF, "", row.SecurityCode); err == nil && st.Codigo != 0 {
				w.cfg.Logger.InfoContext(ctx, "dgii already has the certification rfce", "run_id", run.ID, "row", row.Index, "codigo", st.Codigo)
				return rowVerdict(&sello.DGIIResult{Codigo: new(st.Codigo), Estado: st.Estado})
			} else if unavailable(err) {
				return nil, errWait{d: w.wait(row.UpdatedAt)}
			}
		}
		res, err := sess.SendRFCE(ctx, row.ENCF, signed)
		if err == nil {
			return rowVerdict(res.DGIIResult())
		}
		return sendError(w, row, err)
	}
	// The approval's buyer is the tenant (signRow checked RNCComprador).
	res, err := sess.SendApproval(ctx, sess.RNC()+row.ENCF+".xml", signed)
	if err != nil {
		return sendError(w, row, err)
	}
	if res.Codigo == dgii.ApprovalAprobada {
		return &sello.CertificationRowUpdate{State: sello.RowAccepted, DGII: res.DGIIResult()}, nil
	}
	return &sello.CertificationRowUpdate{State: sello.RowRejected, DGII: res.DGIIResult()}, nil
}

// clockSkew is how far DGII's clock may be behind Sello's: a send DGII
// received more than that before the row was signed is not the row's.
const clockSkew = time.Minute

// earlierSend returns the trackId of the latest send of row's e-NCF DGII
// received since the row was signed, "" when there is none.
func (w *Worker) earlierSend(ctx context.Context, sess *dgii.Session, row *sello.CertificationRow) (string, error) {
	entries, err := sess.TrackIDs(ctx, row.ENCF)
	if unavailable(err) {
		return "", errWait{d: w.wait(row.UpdatedAt)}
	} else if err != nil && !notFound(err) {
		return "", fmt.Errorf("ask dgii for earlier sends: %w", err)
	}
	for i := len(entries) - 1; i >= 0; i-- {
		if e := entries[i]; row.SignedAt == nil || e.FechaRecepcion.IsZero() || !e.FechaRecepcion.Before(row.SignedAt.Add(-clockSkew)) {
			return e.TrackID, nil
		}
	}
	return "", nil
}

// sendError is what a failed send of row means (sendFailure): wait while
// DGII is unavailable, a failed row when DGII refused it, else an error
// (retried; the next run asks DGII before sending again).
func sendError(w *Worker, row *sello.CertificationRow, err error) (*sello.CertificationRowUpdate, error) {
	switch wait, refusal, retry := sendFailure(err); {
	case wait:
		return nil, errWait{d: w.wait(row.UpdatedAt)}
	case refusal != "":
		return &sello.CertificationRowUpdate{State: sello.RowFailed, Error: refusal}, nil
	default:
		return nil, retry
	}
}

// pollRow asks DGII for the verdict of a sent e-CF.
func (w *Worker) pollRow(ctx context.Context, run *sello.CertificationRun, row *sello.CertificationRow) (*sello.CertificationRowUpdate, error) {
	sess, err := w.session(ctx, run.TenantID, run.Environment)
	if err != nil {
		return nil, err
	}
	res, err := sess.Result(ctx, row.TrackID)
	switch {
	case unavailable(err):
		return nil, errWait{d: w.wait(row.UpdatedAt)}
	case err != nil:
		return nil, fmt.Errorf("ask dgii for the verdict: %w", err)
	case !res.Final():
		return nil, errWait{d: w.wait(row.UpdatedAt), verdict: true}
	}
	return rowVerdict(res.DGIIResult())
}

// rowVerdict is the update of DGII's verdict r: the row takes the state a
// document would (DGIIResult.Verdict).
func rowVerdict(r *sello.DGIIResult) (*sello.CertificationRowUpdate, error) {
	st, err := r.Verdict()
	if err != nil {
		return nil, err
	}
	return &sello.CertificationRowUpdate{State: string(st), DGII: r}, nil
}
