package worker

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/dgii"
	"github.com/sello-do/sello/internal/tracing"
)

// submit sends a signed document to DGII: the full e-CF to recepción (the
// verdict comes later, by trackId), or, for type 32 under DOP 250,000, the
// RFCE summary to recepción FC, whose verdict is synchronous. xml is the
// document's signed XML if the run has it, nil to read it. askFirst says
// an earlier try may have reached DGII (a failed run, the contingency
// drain): DGII is asked for the e-NCF before it is sent. A wait for DGII
// is counted from since. Every call's outcome tells the environment's
// reachability (observe).
func (w *Worker) submit(ctx context.Context, ref sello.DocumentJob, doc *sello.Document, xml []byte, askFirst bool, since time.Time) (*sello.Document, error) {
	sess, err := w.session(ctx, ref.TenantID, ref.Environment)
	if sello.ErrorCodeOf(err) == sello.CodeNotFound {
		return w.fail(ctx, ref, sello.StatusSigned, fmt.Sprintf("No valid certificate for %s to authenticate with DGII.", ref.Environment))
	} else if err != nil {
		return nil, fmt.Errorf("submit: %w", err)
	}
	if doc.ViaRFCE() {
		return w.submitRFCE(ctx, ref, doc, sess, since)
	}
	if xml == nil {
		if xml, err = w.cfg.Store.FindDocumentXML(ctx, ref.TenantID, ref.Environment, doc.ENCF); err != nil {
			return nil, fmt.Errorf("submit: %w", err)
		}
	}

	// A previous run may have reached DGII before its answer was lost (a
	// timeout, a crash): ask DGII first, and follow what it has.
	if askFirst {
		entries, err := sess.TrackIDs(ctx, doc.ENCF)
		w.observe(ctx, ref.Environment, err)
		if unavailable(err) {
			return nil, errWait{d: w.wait(since)}
		} else if err != nil && !notFound(err) {
			return nil, fmt.Errorf("submit: ask dgii for earlier sends: %w", err)
		}
		if len(entries) > 0 {
			last := entries[len(entries)-1]
			w.cfg.Logger.InfoContext(ctx, "dgii already has the document", "document_id", doc.ID, "track_id", last.TrackID)
			return w.submitted(ctx, ref, last.TrackID)
		}
	}

	trackID, err := sess.SendECF(ctx, doc.ENCF, xml)
	w.observe(ctx, ref.Environment, err)
	if err == nil {
		return w.submitted(ctx, ref, trackID)
	}
	switch wait, refusal, retry := sendFailure(err); {
	case wait:
		// DGII never took it: wait for DGII without using up an attempt.
		return nil, errWait{d: w.wait(since)}
	case refusal != "":
		return w.fail(ctx, ref, sello.StatusSigned, refusal)
	default:
		return nil, fmt.Errorf("submit: %w", retry)
	}
}

// sendFailure reads a failed send of a signed document to DGII's
// recepción, for documents and certification rows alike: wait when DGII
// never took it (unavailable); a refusal, final, when DGII refused the
// certificate or the document at reception (a 4xx but 429); else the error
// to fail the run with: the next run asks DGII before sending again, as the
// document may have arrived (ErrUncertain is checked first: a 5xx after the
// request went out is also "unavailable").
func sendFailure(err error) (wait bool, refusal string, retry error) {
	var de *dgii.Error
	switch {
	case errors.Is(err, dgii.ErrUncertain):
		return false, "", fmt.Errorf("outcome unknown, will ask dgii before resending: %w", err)
	case unavailable(err):
		return true, "", nil
	case errors.Is(err, dgii.ErrUnauthorized):
		return false, "DGII refused the certificate: check that its holder is delegated for the RNC in DGII's Oficina Virtual. " + err.Error(), nil
	case errors.As(err, &de) && de.Status >= 400 && de.Status < 500 && de.Status != 429:
		return false, "DGII refused the document at reception: " + de.Error(), nil
	}
	return false, "", err
}

// submitted records DGII's trackId; the verdict is asked for when the
// verdict clock expects it (at least FirstPoll later; on a node that has
// seen no verdict yet, when the scout has learned it).
func (w *Worker) submitted(ctx context.Context, ref sello.DocumentJob, trackID string) (*sello.Document, error) {
	doc, err := w.transition(ctx, ref, sello.DocumentChange{
		From:      []sello.Status{sello.StatusSigned},
		Status:    sello.StatusSubmitted,
		TrackID:   trackID,
		EventType: sello.EventECFSubmitted,
		Message:   "Sent to DGII; trackId " + trackID + ".",
	})
	if err != nil || doc == nil {
		return nil, err
	}
	d, learned := w.verdicts.firstPoll(ref.Environment, w.cfg.FirstPoll, w.cfg.MaxWait, min(scoutFor, w.cfg.HoldFor), w.cfg.Now())
	return doc, errWait{d: d, verdict: true, learned: learned, env: ref.Environment, since: doc.UpdatedAt}
}

// submitRFCE sends the RFCE summary and applies DGII's synchronous verdict.
func (w *Worker) submitRFCE(ctx context.Context, ref sello.DocumentJob, doc *sello.Document, sess *dgii.Session, since time.Time) (*sello.Document, error) {
	rfce, err := w.cfg.Store.FindDocumentRFCE(ctx, ref.TenantID, ref.Environment, doc.ID)
	if err != nil {
		return nil, fmt.Errorf("submit rfce: %w", err)
	}
	res, err := sess.SendRFCE(ctx, doc.ENCF, rfce)
	w.observe(ctx, ref.Environment, err)
	switch {
	case err == nil:
		return w.verdict(ctx, ref, doc, sello.StatusSigned, res)
	case unavailable(err):
		return nil, errWait{d: w.wait(since)}
	}
	return nil, fmt.Errorf("submit rfce: %w", err)
}

// verdict applies DGII's answer on a document in status from: accepted,
// accepted_conditional or rejected. An answer that is not a verdict (DGII's
// codigo other than 1, 2 or 4) is an error, and the run is retried; poll
// handles En Proceso and No encontrado before it calls verdict.
//
// An acceptance of a document that travels to a buyer also opens its
// delivery, in the same transaction; the caller's job then delivers it
// (processWorker, deliverFirst).
func (w *Worker) verdict(ctx context.Context, ref sello.DocumentJob, doc *sello.Document, from sello.Status, res *dgii.Result) (_ *sello.Document, err error) {
	ctx, span := tracing.Start(ctx, "verdict")
	defer func() { tracing.End(span, err) }()
	st, err := res.DGIIResult().Verdict()
	if err != nil {
		return nil, err
	}
	if span.IsRecording() {
		span.SetAttributes(tracing.AttrENCF.String(doc.ENCF), tracing.AttrStatus.String(string(st)))
	}
	et, sev := sello.EventECFAccepted, "info"
	switch st {
	case sello.StatusAcceptedConditional:
		et, sev = sello.EventECFAcceptedConditional, "warning"
	case sello.StatusRejected:
		et, sev = sello.EventECFRejected, "error"
	}
	ch := sello.DocumentChange{
		From:      []sello.Status{from},
		Status:    st,
		DGII:      res.DGIIResult(),
		Reason:    res.Estado,
		EventType: et,
		Severity:  sev,
		Message:   verdictMessage(res),
	}
	ch.OpenDelivery(doc)
	return w.transition(ctx, ref, ch)
}

func verdictMessage(res *dgii.Result) string {
	msg := "DGII: " + res.Estado + "."
	for _, m := range res.DGIIResult().Mensajes {
		if m.Valor != "" && !slices.Contains([]string{"", res.Estado}, m.Valor) {
			msg += " " + m.Valor
		}
	}
	return msg
}

// notFound reports whether DGII answered that it knows nothing of it.
func notFound(err error) bool {
	var de *dgii.Error
	return errors.As(err, &de) && de.Status == 404
}
