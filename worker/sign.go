package worker

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
	"github.com/sello-do/sello/xmldsig"
)

// signWorker builds DGII's XML of a queued document, signs it with the
// tenant's certificate and, for type 32 under DOP 250,000, builds and signs
// the RFCE summary too.
type signWorker struct {
	river.WorkerDefaults[SignArgs]
	w *Worker
}

func (sw *signWorker) Work(ctx context.Context, job *river.Job[SignArgs]) error {
	w, ref := sw.w, job.Args.DocumentRef
	doc, err := w.cfg.Store.FindDocumentByID(ctx, ref.TenantID, ref.Environment, ref.DocumentID)
	if err != nil {
		return fmt.Errorf("sign: %w", err)
	} else if doc.Status != sello.StatusQueuedForSigning {
		return nil // done by an earlier run
	}
	_, signer, err := w.signer(ctx, ref.TenantID, ref.Environment)
	if sello.ErrorCodeOf(err) == sello.CodeNotFound {
		return w.fail(ctx, ref, sello.StatusQueuedForSigning, fmt.Sprintf(
			"No valid signing certificate for %s: add the taxpayer's certificate (sello certificates add) and create the document again.", ref.Environment))
	} else if err != nil {
		return fmt.Errorf("sign: %w", err)
	}
	ch, err := signDocument(doc, signer, w.cfg.Now())
	if err != nil {
		// The document passed every check when it was created, so this is
		// Sello's fault: fail it with the reason rather than retry forever.
		if job.Attempt >= maxAttempts {
			return w.fail(ctx, ref, sello.StatusQueuedForSigning, "Sello could not build or sign the document: "+err.Error())
		}
		return fmt.Errorf("sign: %w", err)
	}
	ch.Jobs = []sello.Job{SubmitArgs{ref}}
	return w.transition(ctx, ref, *ch)
}

// signDocument returns the change that signs doc at now.
func signDocument(doc *sello.Document, signer *xmldsig.Signer, now time.Time) (*sello.DocumentChange, error) {
	d, err := ecf.Decode(doc.Payload)
	if err != nil {
		return nil, fmt.Errorf("decode stored document: %w", err)
	}
	signedAt := now.Truncate(time.Second)
	unsigned, err := d.XML(signedAt)
	if err != nil {
		return nil, fmt.Errorf("build xml: %w", err)
	}
	signed, err := signer.Sign(unsigned)
	if err != nil {
		return nil, fmt.Errorf("sign xml: %w", err)
	}
	code, err := xmldsig.SecurityCode(signed)
	if err != nil {
		return nil, err
	}
	ch := &sello.DocumentChange{
		From:         []sello.Status{sello.StatusQueuedForSigning},
		Status:       sello.StatusSigned,
		SignedXML:    signed,
		SecurityCode: code,
		SignedAt:     &signedAt,
		QRURL:        ecf.TimbreURL(doc.Environment, d, code, signedAt),
		EventType:    sello.EventECFSigned,
		Message:      fmt.Sprintf("Document %s signed (security code %s).", doc.ENCF, code),
	}
	if d.NeedsRFCE() {
		rfce, err := d.RFCE(code)
		if err != nil {
			return nil, fmt.Errorf("build rfce: %w", err)
		}
		if ch.RFCEXML, err = signer.Sign(rfce); err != nil {
			return nil, fmt.Errorf("sign rfce: %w", err)
		}
	}
	return ch, nil
}
