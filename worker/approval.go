package worker

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/dgii"
	"github.com/sello-do/sello/ecf"
	"github.com/sello-do/sello/webhook"
)

// The tenant's commercial approvals of inbound documents (DESIGN §4,
// FACTS §1.8, docs/receptor.md). POST /{env}/aprobaciones-comerciales
// records the approval and queues a sello.ApprovalJob; a run of it:
//
//	the approval no longer pending ──> nothing
//	build the ACECF (ecf.NewACECF) and sign it with the tenant's current
//	certificate, once: the signed ACECF is stored with the first outcome
//	and every later run sends the same bytes
//	each leg still pending:
//	  the issuer: its urlAceptacion from DGII's directory, authenticated
//	    when it declares it, multipart xml {RNCComprador}{eNCF}.xml
//	  DGII: aprobacioncomercial with the tenant's session
//	  2xx (DGII: codigo 1) ──> sent
//	  a refusal (the issuer's 4xx but 408 and 429, DGII's 4xx but 401 and
//	    429 or codigo 2, no urlAceptacion, the SSRF guard) ──> failed at
//	    once: sending again cannot change it
//	  anything else (network, 5xx, 429, DGII's 401) ──> the run fails; River retries
//	    after DeliveryDelay, and the last of ApprovalJobMaxAttempts runs
//	    records the leg failed with the error
//
// Each run records what it learnt (sello.ApprovalOutcome); when both legs
// are done the store writes inbound.approval.sent or .failed.

// approvalWorker runs sello.ApprovalJob.
type approvalWorker struct {
	river.WorkerDefaults[sello.ApprovalJob]
	w *Worker
}

// NextRetry implements river.Worker: DeliveryDelay after the failed run,
// ±20%.
func (aw *approvalWorker) NextRetry(job *river.Job[sello.ApprovalJob]) time.Time {
	return aw.w.deliveryRetryAt(job.Attempt)
}

// Work implements river.Worker.
func (aw *approvalWorker) Work(ctx context.Context, job *river.Job[sello.ApprovalJob]) error {
	w, j := aw.w, job.Args
	a, err := w.cfg.Store.FindInboundApproval(ctx, j.TenantID, j.Environment, j.InboundDocumentID)
	if sello.ErrorCodeOf(err) == sello.CodeNotFound {
		return river.JobCancel(err)
	} else if err != nil {
		return err
	}
	if a.Status != sello.ApprovalSendPending {
		return nil
	}
	last := job.Attempt >= job.MaxAttempts
	out, runErr := w.sendApproval(ctx, a, last)
	if out.ACECF != nil || out.Issuer != nil || out.DGII != nil {
		_, err := w.cfg.Store.RecordApprovalOutcome(ctx, j.TenantID, j.Environment, j.InboundDocumentID, out)
		if sello.ErrorCodeOf(err) == sello.CodeConflict {
			return nil // another run recorded it first
		} else if err != nil {
			return err
		}
	}
	if runErr != nil {
		w.cfg.Logger.InfoContext(ctx, "approval attempt failed", "inbound_document_id", a.InboundDocumentID, "attempt", job.Attempt, "err", runErr)
		return fmt.Errorf("send approval: %w", runErr)
	}
	return nil
}

// sendApproval sends a's ACECF on its pending legs and returns what it
// learnt; an error means a leg is still pending and the run should be
// retried. On the last run (last) a pending leg's error is its failure.
func (w *Worker) sendApproval(ctx context.Context, a *sello.InboundApproval, last bool) (sello.ApprovalOutcome, error) {
	var out sello.ApprovalOutcome
	fail := func(err error) (sello.ApprovalOutcome, error) {
		if !last {
			return out, err
		}
		failed := &sello.ApprovalLeg{Status: sello.ApprovalSendFailed, Error: err.Error()}
		if a.Issuer.Status == sello.ApprovalSendPending {
			out.Issuer = failed
		}
		if a.DGII.Status == sello.ApprovalSendPending {
			out.DGII = failed
		}
		return out, nil
	}
	d, err := w.cfg.Store.FindInboundDocument(ctx, a.TenantID, a.Environment, a.InboundDocumentID)
	if err != nil {
		return fail(err)
	}
	from, signer, err := w.sender(ctx, a.TenantID, a.Environment)
	if err != nil {
		return fail(err)
	}
	signed := a.ACECF
	if signed == nil {
		if signed, err = buildACECF(d, a, signer.Sign); sello.ErrorCodeOf(err) == sello.CodeValidationFailed {
			last = true // the document's fields cannot make an ACECF: no run will
			return fail(err)
		} else if err != nil {
			return fail(err)
		}
		out.ACECF = signed
	}
	fileName := d.BuyerRNC + d.ENCF + ".xml"
	var errs []error
	if a.Issuer.Status == sello.ApprovalSendPending {
		err := w.approvalToIssuer(ctx, a, from, fileName, signed)
		out.Issuer = legOutcome(err, issuerRefused(err), last)
		if out.Issuer == nil {
			errs = append(errs, fmt.Errorf("the issuer: %w", err))
		}
	}
	if a.DGII.Status == sello.ApprovalSendPending {
		answer, err := w.approvalToDGII(ctx, a, fileName, signed)
		out.DGII = legOutcome(err, dgiiRefused(err), last)
		if out.DGII == nil {
			errs = append(errs, fmt.Errorf("DGII: %w", err))
		} else {
			out.DGII.Answer = answer
		}
	}
	return out, errors.Join(errs...)
}

// buildACECF builds a's ACECF of d and signs it.
func buildACECF(d *sello.InboundDocument, a *sello.InboundApproval, sign func([]byte) ([]byte, error)) ([]byte, error) {
	x, err := ecf.NewACECF(d, a)
	if err != nil {
		return nil, err
	}
	b, err := x.XML()
	if err != nil {
		return nil, err
	}
	signed, err := sign(b)
	if err != nil {
		return nil, fmt.Errorf("sign acecf: %w", err)
	}
	return signed, nil
}

// legOutcome is the outcome of a leg that ended with err: sent when nil,
// failed when refused or on the last run, nil (still pending) otherwise.
func legOutcome(err error, refused, last bool) *sello.ApprovalLeg {
	switch {
	case err == nil:
		return &sello.ApprovalLeg{Status: sello.ApprovalSendSent}
	case refused || last:
		return &sello.ApprovalLeg{Status: sello.ApprovalSendFailed, Error: err.Error()}
	}
	return nil
}

// errNoAcceptance is an issuer without a commercial approval service in
// DGII's directory.
var errNoAcceptance = errors.New("the issuer declares no commercial approval service (urlAceptacion) in DGII's directory")

// approvalToIssuer posts the signed ACECF to the issuer's receiver.
func (w *Worker) approvalToIssuer(ctx context.Context, a *sello.InboundApproval, from dgii.Sender, fileName string, signed []byte) error {
	entry, err := w.directoryEntry(ctx, a.TenantID, a.Environment, a.IssuerRNC)
	if err != nil {
		return err
	} else if entry == nil || entry.URLAceptacion == "" {
		return errNoAcceptance
	}
	return w.receptor(a.Environment).SendApproval(ctx, from, *entry, fileName, signed)
}

// issuerRefused reports whether err from approvalToIssuer is final: any
// 4xx of the issuer's receiver but 408 and 429 (DGII's contract answers an
// ACECF 200 or 400, "insatisfactorio"; a 401, 404 or 409 will not change
// by sending the same bytes again, whichever of its services answered
// it), no service to send to, or an address the SSRF guard refuses.
func issuerRefused(err error) bool {
	var re *dgii.ReceptorError
	var blocked *webhook.BlockedError
	return errors.Is(err, errNoAcceptance) || errors.As(err, &blocked) ||
		(errors.As(err, &re) && re.Status >= 400 && re.Status < 500 && re.Status != http.StatusRequestTimeout && re.Status != http.StatusTooManyRequests)
}

// errDGIIRefused is DGII's codigo 2 (rechazada) for an approval.
type errDGIIRefused struct{ r *dgii.ApprovalResult }

func (e errDGIIRefused) Error() string {
	msg := "DGII refused the approval: " + e.r.Estado
	if len(e.r.Mensajes) > 0 {
		msg += ": " + strings.Join(e.r.Mensajes, "; ")
	}
	return msg
}

// approvalToDGII sends DGII its copy of the signed ACECF and returns DGII's
// answer, when it gave one (taken, refused with codigo 2, or refused with
// a 4xx body), with the error of a leg not sent.
func (w *Worker) approvalToDGII(ctx context.Context, a *sello.InboundApproval, fileName string, signed []byte) (*sello.DGIIResult, error) {
	sess, err := w.session(ctx, a.TenantID, a.Environment)
	if err != nil {
		return nil, err
	}
	r, err := sess.SendApproval(ctx, fileName, signed)
	var de *dgii.Error
	switch {
	case errors.As(err, &de) && de.Status >= 400 && de.Status < 500:
		return sello.NewDGIITextResult(de.Codigo, "", de.Mensajes), err
	case err != nil:
		return nil, err
	case r.Codigo != dgii.ApprovalAprobada:
		return r.DGIIResult(), errDGIIRefused{r}
	}
	return r.DGIIResult(), nil
}

// dgiiRefused reports whether err from approvalToDGII is final: codigo 2,
// or a 4xx other than 401 and 429.
func dgiiRefused(err error) bool {
	var refused errDGIIRefused
	var de *dgii.Error
	return errors.As(err, &refused) ||
		(errors.As(err, &de) && de.Status >= 400 && de.Status < 500 && de.Status != 401 && de.Status != 429)
}
