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
// docs/lifecycle.md). The transaction that records DGII's acceptance opens
// the delivery (pending); the document's job, which recorded it, then
// makes the first try (deliverFirst), with the document and the signed XML
// it holds, bounded by FirstDeliveryFor. A try:
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
//	  no ARECF (network, 5xx, a bad acuse, FirstDeliveryFor over) ──> the
//	    first try queues a sello.DeliveryJob for DeliveryDelay(1) later;
//	    a failed run of it is retried by River after the next delay, and
//	    the last of DeliveryJobMaxAttempts tries records failed with the
//	    error
//	  the SSRF guard refused the address ──> failed at once
//
// An outcome is recorded only over a delivery still pending
// (sello.DeliveryOutcome), so nothing is sent again once an ARECF was
// recorded: a later run finds the outcome and stops.
//
// The verdict's transaction queues no job: should the process die between
// the verdict's commit and the first try's end, the document's job, still
// running, is rescued and run again, finds the delivery due
// (sello.Document.DeliveryDue) and tries it. A kill after the DeliveryJob
// was queued but before the document's job was marked complete makes one
// more try (and, if it fails too, a second DeliveryJob): the buyer may get
// the same e-CF twice, as it may today when a delivery run dies after its
// post; whichever records an outcome first wins, the other then stops.

// DefaultDirectoryTTL is how long a directory answer (an entry, or its
// absence) is kept.
const DefaultDirectoryTTL = 10 * time.Minute

// DefaultFirstDeliveryFor bounds the first try of a delivery, made by the
// document's job (Config.FirstDeliveryFor). A receiver known to Sello
// answers in milliseconds, and a cold one (a DGII directory query, the
// buyer's seed and token, then the post) in well under a second; five
// seconds spares a slow buyer its retry 30 s later while keeping a
// worker of the lifecycle, at worst, five seconds from the next document.
const DefaultFirstDeliveryFor = 5 * time.Second

// deliveryWorker runs sello.DeliveryJob.
type deliveryWorker struct {
	river.WorkerDefaults[sello.DeliveryJob]
	w *Worker
}

// NextRetry implements river.Worker: DeliveryDelay after the failed try,
// ±20% (the job's run n is the delivery's try Tried+n).
func (dw *deliveryWorker) NextRetry(job *river.Job[sello.DeliveryJob]) time.Time {
	return dw.w.deliveryRetryAt(job.Args.Tried + job.Attempt)
}

// deliveryRetryAt is when to run again a delivery (or an approval) whose
// try n failed: DeliveryDelay after now, ±20%.
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
	out, arecf, err := w.deliver(ctx, doc, nil)
	var blocked *webhook.BlockedError
	switch {
	case err == nil:
	case errors.As(err, &blocked) || job.Attempt >= job.MaxAttempts:
		out = deliveryFailed(doc, err)
	default:
		w.retryingDelivery(ctx, doc, a.Tried+job.Attempt, err)
		return fmt.Errorf("deliver: %w", err)
	}
	return w.recordDelivery(ctx, span, doc, out, arecf)
}

// deliverFirst makes the first try of doc's delivery, from the document's
// job right after the verdict (doc as the verdict left it, xml its signed
// XML or nil to read it), in a span named as the DeliveryJob's runs. The
// try gets FirstDeliveryFor; without an outcome in it, the delivery's
// DeliveryJob is queued for the next try. An error (the store's, or the
// job's context ended) fails the document's run: River runs it again, and
// the delivery is still due.
func (w *Worker) deliverFirst(ctx context.Context, doc *sello.Document, xml []byte) (err error) {
	ctx, span := tracing.Start(ctx, sello.DeliveryJob{}.Kind(), trace.WithAttributes(
		tracing.AttrCorrelationID.String(tracing.CorrelationID(ctx)), tracing.AttrDocumentID.String(doc.ID),
		tracing.AttrTenantID.String(doc.TenantID), tracing.AttrEnvironment.String(string(doc.Environment))))
	defer func() { tracing.End(span, err) }()
	tctx, cancel := context.WithTimeout(ctx, w.cfg.FirstDeliveryFor)
	out, arecf, err := w.deliver(tctx, doc, xml)
	cancel()
	var blocked *webhook.BlockedError
	switch {
	case err == nil:
	case errors.As(err, &blocked):
		out = deliveryFailed(doc, err)
	case ctx.Err() != nil:
		return ctx.Err()
	default:
		w.retryingDelivery(ctx, doc, 1, err)
		if err := w.cfg.Store.QueueJobs(ctx, sello.RetryDelivery(doc, w.deliveryRetryAt(1))); err != nil {
			return fmt.Errorf("queue delivery: %w", err)
		}
		return nil
	}
	return w.recordDelivery(ctx, span, doc, out, arecf)
}

// deliveryFailed is the failed outcome of a delivery given up after err.
func deliveryFailed(doc *sello.Document, err error) sello.Delivery {
	return sello.Delivery{Status: sello.DeliveryFailed, Reason: fmt.Sprintf("Could not deliver %s to the buyer %s: %v", doc.ENCF, doc.BuyerRNC, err)}
}

// retryingDelivery logs and counts try n of doc's delivery, which reached
// no outcome (err) and will be tried again.
func (w *Worker) retryingDelivery(ctx context.Context, doc *sello.Document, n int, err error) {
	w.cfg.Logger.InfoContext(ctx, "delivery attempt failed", "document_id", doc.ID, "attempt", n, "err", err)
	w.cfg.Metrics.DeliveryRetried()
}

// recordDelivery records the outcome out of doc's delivery (a CONFLICT
// means another try recorded one first).
func (w *Worker) recordDelivery(ctx context.Context, span trace.Span, doc *sello.Document, out sello.Delivery, arecf []byte) error {
	if span.IsRecording() {
		span.SetAttributes(tracing.AttrENCF.String(doc.ENCF), tracing.AttrDelivery.String(out.Status))
	}
	after, err := w.cfg.Store.UpdateDocument(ctx, doc.TenantID, doc.Environment, doc.ID, sello.DeliveryOutcome(doc, out, arecf))
	if sello.ErrorCodeOf(err) == sello.CodeConflict {
		return nil // another try recorded it first
	} else if err != nil {
		return err
	}
	w.cfg.Metrics.DeliveryRecorded(after)
	return nil
}

// deliver sends doc to its buyer and returns the outcome and the buyer's
// signed ARECF; an error means no outcome yet. signed is doc's signed XML,
// nil to read it.
func (w *Worker) deliver(ctx context.Context, doc *sello.Document, signed []byte) (sello.Delivery, []byte, error) {
	if doc.BuyerRNC == "" {
		return sello.Delivery{Status: sello.DeliveryNotElectronic}, nil, nil
	}
	entry, err := w.directoryEntry(ctx, doc.TenantID, doc.Environment, doc.BuyerRNC)
	if err != nil {
		return sello.Delivery{}, nil, err
	} else if entry == nil || entry.URLRecepcion == "" {
		return sello.Delivery{Status: sello.DeliveryNotElectronic}, nil, nil
	}
	if signed == nil {
		if signed, err = w.cfg.Store.FindDocumentXML(ctx, doc.TenantID, doc.Environment, doc.ENCF); err != nil {
			return sello.Delivery{}, nil, err
		}
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
