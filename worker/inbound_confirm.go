package worker

import (
	"context"
	"fmt"

	"github.com/riverqueue/river"
	"github.com/sello-do/sello"
)

// DGII's confirmation of received documents (docs/receptor.md,
// "Confirmation with DGII"). The transaction that stores an inbound
// document queues it for confirmation, and every job runner turns that
// queue into sello.InboundConfirmJobs within sello.InboundConfirmSweep
// (jobs.NewRunner); a run of one:
//
//	the document gone ──> cancelled
//	its confirmation final (accepted, rejected, refuted), or from before
//	Sello asked DGII ──> nothing
//	received ConfirmFor ago or more ──> give up: the status stays,
//	  inbound.dgii_refuted says so
//	ask consultaestado with the tenant's session: the issuer's RNC, the
//	  e-NCF, the tenant's RNC as buyer, the security code
//	  an answer ──> recorded (sello.RecordInboundDGII); accepted, rejected
//	    and refuted are final, not found snoozes
//	  no answer (DGII down, no certificate, a refusal) ──> snoozes
//
// A snooze waits ConfirmDelay(age) (sello.InboundConfirmDelay: 5 s at
// first, 2 h after six hours), never past the give-up point; snoozes do not
// use River's attempts.

// inboundConfirmWorker runs sello.InboundConfirmJob.
type inboundConfirmWorker struct {
	river.WorkerDefaults[sello.InboundConfirmJob]
	w *Worker
}

// Work implements river.Worker.
func (cw *inboundConfirmWorker) Work(ctx context.Context, job *river.Job[sello.InboundConfirmJob]) error {
	w, j := cw.w, job.Args
	d, err := w.cfg.Store.FindInboundDocument(ctx, j.TenantID, j.Environment, j.InboundDocumentID)
	if sello.ErrorCodeOf(err) == sello.CodeNotFound {
		return river.JobCancel(err)
	} else if err != nil {
		return err
	}
	if d.DGII == nil || d.DGII.Final() {
		return nil
	}
	age := w.cfg.Now().Sub(d.ReceivedAt)
	if age >= w.cfg.ConfirmFor {
		_, err := w.cfg.Store.RecordInboundDGII(ctx, j.TenantID, j.Environment, d.ID, sello.InboundDGIIAnswer{GiveUp: true})
		return err
	}
	wait := min(w.cfg.ConfirmDelay(age), w.cfg.ConfirmFor-age)
	ans, err := w.askEstado(ctx, d)
	if err != nil {
		w.cfg.Logger.InfoContext(ctx, "dgii confirmation: no answer", "inbound_document_id", d.ID, "wait", wait, "err", err)
		return river.JobSnooze(wait)
	}
	after, err := w.cfg.Store.RecordInboundDGII(ctx, j.TenantID, j.Environment, d.ID, *ans)
	if err != nil {
		return err
	}
	if !after.DGII.Final() {
		return river.JobSnooze(wait)
	}
	return nil
}

// askEstado asks DGII's consultaestado about d with its tenant's session,
// as the buyer's delegate.
func (w *Worker) askEstado(ctx context.Context, d *sello.InboundDocument) (*sello.InboundDGIIAnswer, error) {
	sess, err := w.session(ctx, d.TenantID, d.Environment)
	if err != nil {
		return nil, err
	}
	e, err := sess.Estado(ctx, d.IssuerRNC, d.ENCF, d.BuyerRNC, d.SecurityCode)
	if err != nil {
		return nil, fmt.Errorf("consultaestado: %w", err)
	}
	return &sello.InboundDGIIAnswer{Codigo: e.Codigo, Estado: e.Estado}, nil
}

// confirmDefaults fills the confirmation's schedule in cfg.
func confirmDefaults(cfg *Config) {
	if cfg.ConfirmDelay == nil {
		cfg.ConfirmDelay = sello.InboundConfirmDelay
	}
	if cfg.ConfirmFor <= 0 {
		cfg.ConfirmFor = sello.InboundConfirmFor
	}
}
