package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/dgii"
	"github.com/sello-do/sello/ecf"
)

// The tenant's voids of e-NCF ranges (FACTS §1.9, docs/api.md). POST
// /{env}/anulaciones reserves the numbers and queues a sello.VoidJob; a
// run of it:
//
//	the void no longer pending ──> nothing
//	build the ANECF (ecf.ANECF, FechaHoraAnulacioneNCF in GMT-4) and sign
//	it with the tenant's current certificate, once: the signed ANECF is
//	stored before it is sent, and every later run sends the same bytes
//	send it with the tenant's session (anulacionrangos)
//	  2xx ──> accepted, or partially_accepted when DGII voided all "con
//	    excepción de las secuencias del detalle"
//	  DGII's refusal (4xx but 401 and 429) ──> rejected, with its answer
//	  anything else (DGII unreachable, 5xx, 401, an answer lost after
//	    sending) ──> the run fails; River retries after DeliveryDelay and
//	    the last of VoidJobMaxAttempts runs records failed
//
// DGII's anulación is not idempotent and has no query: after a lost answer
// the next run sends the same signed ANECF again, and DGII's answer to it
// is recorded (docs/decisions.md). The numbers stay reserved whatever the
// outcome.

// voidWorker runs sello.VoidJob.
type voidWorker struct {
	river.WorkerDefaults[sello.VoidJob]
	w *Worker
}

// NextRetry implements river.Worker: DeliveryDelay after the failed run,
// ±20%.
func (vw *voidWorker) NextRetry(job *river.Job[sello.VoidJob]) time.Time {
	return vw.w.deliveryRetryAt(job.Attempt)
}

// Work implements river.Worker.
func (vw *voidWorker) Work(ctx context.Context, job *river.Job[sello.VoidJob]) error {
	w, j := vw.w, job.Args
	v, err := w.cfg.Store.FindVoid(ctx, j.TenantID, j.Environment, j.VoidID)
	if sello.ErrorCodeOf(err) == sello.CodeNotFound {
		return river.JobCancel(err)
	} else if err != nil {
		return err
	}
	if v.State != sello.VoidPending {
		return nil
	}
	out, runErr := w.sendVoid(ctx, v)
	if runErr != nil && job.Attempt >= job.MaxAttempts {
		out = sello.VoidOutcome{State: sello.VoidFailed, FailureReason: runErr.Error()}
		runErr = nil
	}
	if out.State != "" {
		_, err := w.cfg.Store.RecordVoidOutcome(ctx, j.TenantID, j.Environment, j.VoidID, out)
		if sello.ErrorCodeOf(err) == sello.CodeConflict {
			return nil // another run recorded it first
		} else if err != nil {
			return err
		}
	}
	if runErr != nil {
		w.cfg.Logger.InfoContext(ctx, "void attempt failed", "void_id", v.ID, "attempt", job.Attempt, "err", runErr)
		return fmt.Errorf("send void: %w", runErr)
	}
	return nil
}

// sendVoid signs v's ANECF (once, stored before it is sent) and sends it
// to DGII. It returns the outcome DGII's answer makes, or an error when
// the run should be retried.
func (w *Worker) sendVoid(ctx context.Context, v *sello.Void) (sello.VoidOutcome, error) {
	signed := v.ANECF
	if signed == nil {
		t, err := w.cfg.Store.FindTenantByID(ctx, v.TenantID)
		if err != nil {
			return sello.VoidOutcome{}, err
		}
		_, signer, err := w.signer(ctx, v.TenantID, v.Environment)
		if sello.ErrorCodeOf(err) == sello.CodeNotFound {
			return noCertificate(v, "sign the ANECF"), nil
		} else if err != nil {
			return sello.VoidOutcome{}, err
		}
		if signed, err = buildANECF(t.RNC, v, w.cfg.Now(), signer.Sign); err != nil {
			return sello.VoidOutcome{}, err
		}
		if _, err := w.cfg.Store.RecordVoidOutcome(ctx, v.TenantID, v.Environment, v.ID, sello.VoidOutcome{ANECF: signed}); err != nil {
			return sello.VoidOutcome{}, err
		}
	}
	sess, err := w.session(ctx, v.TenantID, v.Environment)
	if sello.ErrorCodeOf(err) == sello.CodeNotFound {
		return noCertificate(v, "authenticate with DGII"), nil
	} else if err != nil {
		return sello.VoidOutcome{}, err
	}
	r, err := sess.VoidRanges(ctx, signed)
	return voidOutcome(r, err)
}

// noCertificate is the outcome of a void the tenant has no valid
// certificate for: failed at once (no later run would find one either),
// its numbers still reserved and free to be voided again once a
// certificate is added.
func noCertificate(v *sello.Void, to string) sello.VoidOutcome {
	return sello.VoidOutcome{State: sello.VoidFailed, FailureReason: fmt.Sprintf(
		"No valid certificate for %s to %s: add one (sello certificates add) and void the numbers again.", v.Environment, to)}
}

// buildANECF builds the ANECF of v's ranges at now and signs it.
func buildANECF(rnc string, v *sello.Void, now time.Time, sign func([]byte) ([]byte, error)) ([]byte, error) {
	x := ecf.ANECF{RNCEmisor: rnc, At: now}
	for _, r := range v.Ranges {
		x.Ranges = append(x.Ranges, ecf.ANECFRange{Type: r.Type, From: r.From, To: r.To})
	}
	b, err := x.XML()
	if err != nil {
		return nil, err
	}
	signed, err := sign(b)
	if err != nil {
		return nil, fmt.Errorf("sign anecf: %w", err)
	}
	return signed, nil
}

// partialMark is how DGII says a void went through but for the ranges it
// lists (FACTS §1.9).
const partialMark = "con excepción de las secuencias"

// voidOutcome reads DGII's answer to a void: accepted, partially_accepted
// or rejected; an error when the run should be retried.
func voidOutcome(r *dgii.VoidResult, err error) (sello.VoidOutcome, error) {
	var de *dgii.Error
	switch {
	case err == nil:
		out := sello.VoidOutcome{State: sello.VoidAccepted, DGII: sello.NewDGIITextResult(r.Codigo, r.Nombre, r.Mensajes)}
		for _, m := range r.Mensajes {
			if strings.Contains(strings.ToLower(m), partialMark) {
				out.State = sello.VoidPartiallyAccepted
			}
		}
		return out, nil
	case errors.As(err, &de) && de.Status >= 400 && de.Status < 500 && de.Status != 401 && de.Status != 429:
		var body struct {
			Nombre string `json:"nombre"`
		}
		_ = json.Unmarshal([]byte(de.Body), &body) // the nombre, when the body has one
		return sello.VoidOutcome{State: sello.VoidRejected, DGII: sello.NewDGIITextResult(de.Codigo, body.Nombre, de.Mensajes)}, nil
	}
	return sello.VoidOutcome{}, err
}
