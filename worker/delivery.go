package worker

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/riverqueue/river"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/dgii"
	"github.com/sello-do/sello/ecf"
	"github.com/sello-do/sello/internal/tracing"
	"github.com/sello-do/sello/webhook"
	"github.com/sello-do/sello/xmldsig"
	"go.opentelemetry.io/otel/trace"
)

// Delivery of accepted documents to the buyers' receivers (DESIGN §6,
// docs/lifecycle.md). The transaction that records DGII's acceptance
// queues a sello.DeliveryJob; a run of it:
//
//	delivery recorded already, or the document not accepted ──> nothing
//	no buyer RNC, or the buyer not in DGII's directory ──> not_electronic
//	otherwise: authenticate when the buyer declares it, post the signed
//	e-CF, verify the ARECF's signature and that it is about this e-CF
//	  Estado 0 ──> delivered
//	  Estado 1 ──> failed with the code and its meaning; code 3 (Envío
//	    duplicado: the buyer holds another document under the e-NCF, one
//	    DGII confirmed if the buyer is a Sello) with a warning
//	    (sello.DeliveryOutcome)
//	  no ARECF (network, 5xx, a bad acuse) ──> the run fails; River retries
//	    after DeliveryDelay, and the last of DeliveryJobMaxAttempts runs
//	    records failed with the error
//	  the SSRF guard refused the address ──> failed at once
//
// An outcome is recorded only over a delivery still pending
// (sello.DeliveryOutcome), so nothing is sent again once an ARECF was
// recorded: a later run finds the outcome and stops.

// DefaultDirectoryTTL is how long a directory answer (an entry, or its
// absence) is kept.
const DefaultDirectoryTTL = 10 * time.Minute

// deliveryWorker runs sello.DeliveryJob.
type deliveryWorker struct {
	river.WorkerDefaults[sello.DeliveryJob]
	w *Worker
}

// NextRetry implements river.Worker: DeliveryDelay after the failed run,
// ±20%.
func (dw *deliveryWorker) NextRetry(job *river.Job[sello.DeliveryJob]) time.Time {
	return dw.w.deliveryRetryAt(job.Attempt)
}

// deliveryRetryAt is when to run again a delivery (or an approval) whose
// run n failed: DeliveryDelay after now, ±20%.
func (w *Worker) deliveryRetryAt(n int) time.Time {
	d := w.cfg.DeliveryDelay(n)
	return time.Now().Add(time.Duration(float64(d) * (0.8 + 0.4*rand.Float64())))
}

// Work implements river.Worker.
func (dw *deliveryWorker) Work(ctx context.Context, job *river.Job[sello.DeliveryJob]) error {
	w, a := dw.w, job.Args
	span := trace.SpanFromContext(ctx)
	if span.IsRecording() {
		span.SetAttributes(tracing.AttrDocumentID.String(a.DocumentID), tracing.AttrTenantID.String(a.TenantID), tracing.AttrEnvironment.String(string(a.Environment)))
	}
	doc, err := w.cfg.Store.FindDocumentByID(ctx, a.TenantID, a.Environment, a.DocumentID)
	if sello.ErrorCodeOf(err) == sello.CodeNotFound {
		return river.JobCancel(err)
	} else if err != nil {
		return err
	}
	if (doc.Status != sello.StatusAccepted && doc.Status != sello.StatusAcceptedConditional) ||
		(doc.Delivery.Status != sello.DeliveryPending && doc.Delivery.Status != sello.DeliveryNotSent) {
		return nil
	}
	out, arecf, err := w.deliver(ctx, doc)
	var blocked *webhook.BlockedError
	switch {
	case err == nil:
	case errors.As(err, &blocked) || job.Attempt >= job.MaxAttempts:
		out = sello.Delivery{Status: sello.DeliveryFailed, Reason: fmt.Sprintf("Could not deliver %s to the buyer %s: %v", doc.ENCF, doc.BuyerRNC, err)}
	default:
		w.cfg.Logger.InfoContext(ctx, "delivery attempt failed", "document_id", doc.ID, "attempt", job.Attempt, "err", err)
		w.cfg.Metrics.DeliveryRetried()
		return fmt.Errorf("deliver: %w", err)
	}
	if span.IsRecording() {
		span.SetAttributes(tracing.AttrENCF.String(doc.ENCF), tracing.AttrDelivery.String(out.Status))
	}
	after, err := w.cfg.Store.UpdateDocument(ctx, a.TenantID, a.Environment, a.DocumentID, sello.DeliveryOutcome(doc, out, arecf))
	if sello.ErrorCodeOf(err) == sello.CodeConflict {
		return nil // another run recorded it first
	} else if err != nil {
		return err
	}
	w.cfg.Metrics.DeliveryRecorded(after)
	return nil
}

// deliver sends doc to its buyer and returns the outcome and the buyer's
// signed ARECF; an error means no outcome yet.
func (w *Worker) deliver(ctx context.Context, doc *sello.Document) (sello.Delivery, []byte, error) {
	if doc.BuyerRNC == "" {
		return sello.Delivery{Status: sello.DeliveryNotElectronic}, nil, nil
	}
	entry, err := w.directoryEntry(ctx, doc.TenantID, doc.Environment, doc.BuyerRNC)
	if err != nil {
		return sello.Delivery{}, nil, err
	} else if entry == nil || entry.URLRecepcion == "" {
		return sello.Delivery{Status: sello.DeliveryNotElectronic}, nil, nil
	}
	signed, err := w.cfg.Store.FindDocumentXML(ctx, doc.TenantID, doc.Environment, doc.ENCF)
	if err != nil {
		return sello.Delivery{}, nil, err
	}
	from, _, err := w.sender(ctx, doc.TenantID, doc.Environment)
	if err != nil {
		return sello.Delivery{}, nil, err
	}
	arecf, err := w.receptor(doc.Environment).SendECF(ctx, from, *entry, from.RNC+doc.ENCF+".xml", signed)
	if err != nil {
		return sello.Delivery{}, nil, err
	}
	a, err := checkARECF(arecf, from.RNC, doc)
	if err != nil {
		return sello.Delivery{}, nil, err
	}
	if a.Estado == ecf.ReceiptReceived {
		return sello.Delivery{Status: sello.DeliveryDelivered}, arecf, nil
	}
	code := fmt.Sprint(int(a.CodigoMotivoNoRecibido))
	return sello.Delivery{Status: sello.DeliveryFailed, Code: code, Reason: sello.NotReceivedReason(doc.BuyerRNC, code)}, arecf, nil
}

// checkARECF verifies the buyer's acuse: signed (the wrapping-resistant
// verifier), well formed, and about this e-CF of this issuer and buyer (or
// from a receiver saying it is not the buyer, code 4).
func checkARECF(arecf []byte, issuerRNC string, doc *sello.Document) (*ecf.ARECF, error) {
	if _, err := xmldsig.Verify(arecf); err != nil {
		return nil, fmt.Errorf("the buyer's ARECF: %w", err)
	}
	a, err := ecf.ParseARECF(arecf)
	if err != nil {
		return nil, fmt.Errorf("the buyer's ARECF: %w", err)
	}
	// A receiver that is not the buyer (code 4) names itself, not the
	// buyer: that acuse is about this e-CF all the same.
	wrongReceiver := a.Estado == ecf.ReceiptNotReceived && a.CodigoMotivoNoRecibido == ecf.ReasonWrongBuyer
	if a.RNCEmisor != issuerRNC || a.ENCF != doc.ENCF || (a.RNCComprador != doc.BuyerRNC && !wrongReceiver) {
		return nil, fmt.Errorf("the buyer's ARECF is about %s %s for %s, not %s %s for %s",
			a.RNCEmisor, a.ENCF, a.RNCComprador, issuerRNC, doc.ENCF, doc.BuyerRNC)
	}
	return a, nil
}

// dirKey is a directory lookup: a taxpayer in an environment.
type dirKey struct {
	env sello.Environment
	rnc string
}

// dirEntry is a directory answer as kept: the entry, nil when the taxpayer
// is not in the directory.
type dirEntry struct {
	entry *dgii.DirectoryEntry
	until time.Time
}

// receptor speaks to other taxpayers' receivers of env through the webhook
// client's SSRF guard. It is the process's one for that client, so the
// receivers' tokens are kept from one delivery to the next.
func (w *Worker) receptor(env sello.Environment) *dgii.Receptor {
	return w.hooks.receptors[w.webhookClient(env)]
}

// signFunc signs with signer, as the receivers' authentication asks.
func signFunc(signer *xmldsig.Signer) dgii.Signer {
	return func(_ context.Context, xml []byte) ([]byte, error) { return signer.Sign(xml) }
}

// directoryEntry returns the entry of the taxpayer rnc in DGII's directory
// of env (nil when absent), asked with the tenant's session and kept
// DirectoryTTL.
func (w *Worker) directoryEntry(ctx context.Context, tenantID string, env sello.Environment, rnc string) (*dgii.DirectoryEntry, error) {
	k, now := dirKey{env, rnc}, w.cfg.Now()
	w.mu.Lock()
	e, ok := w.directory[k]
	w.mu.Unlock()
	if ok && now.Before(e.until) {
		return e.entry, nil
	}
	sess, err := w.session(ctx, tenantID, env)
	if err != nil {
		return nil, err
	}
	entries, err := sess.Directory(ctx, rnc)
	if err != nil {
		return nil, err
	}
	e = dirEntry{until: now.Add(w.cfg.DirectoryTTL)}
	for i := range entries {
		if entries[i].RNC == rnc {
			e.entry = &entries[i]
			break
		}
	}
	w.mu.Lock()
	w.directory[k] = e
	w.mu.Unlock()
	return e.entry, nil
}
