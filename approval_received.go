package sello

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"time"
)

// ReceivedApproval is a commercial approval (ACECF, FACTS §1.8) a buyer
// posted to the receiver of the tenant who issued the document: the
// buyer's verdict, the fields that must match the document, and who signed
// it.
type ReceivedApproval struct {
	TenantID    string
	Environment Environment
	IssuerRNC   string // RNCEmisor: the tenant
	ENCF        string
	IssueDate   Date   // FechaEmision
	Total       string // MontoTotal, two decimals
	BuyerRNC    string // RNCComprador: who approves
	// Status is ApprovalApproved or ApprovalRejected.
	Status string
	// Reason is DetalleMotivoRechazo, "" when approved.
	Reason string
	// DecidedAt is FechaHoraAprobacionComercial.
	DecidedAt time.Time
	// Signer is who signed the ACECF (CheckSigner), nil when unknown.
	Signer *Signer
}

// CheckIssuer refuses an approval of a document the tenant of RNC
// tenantRNC did not issue. Returns INVALID_REQUEST.
func (a *ReceivedApproval) CheckIssuer(tenantRNC string) error {
	if a.IssuerRNC != tenantRNC {
		return Errorf(CodeInvalidRequest, "The approval's RNCEmisor %s is not this receiver's RNC: send it to the issuer's receiver.", a.IssuerRNC)
	}
	return nil
}

// CheckDate refuses an approval dated before the document's FechaEmision
// (as the approval states it: Match holds it to the document's) or more
// than ReceiverClockSkew after now. Returns INVALID_REQUEST.
func (a *ReceivedApproval) CheckDate(now time.Time) error {
	switch {
	case a.DecidedAt.After(now.Add(ReceiverClockSkew)):
		return Errorf(CodeInvalidRequest, "FechaHoraAprobacionComercial %s is in the future: date the approval when it is signed.", FormatTime(a.DecidedAt))
	case a.IssueDate.After(TodayInDR(a.DecidedAt)):
		return Errorf(CodeInvalidRequest, "FechaHoraAprobacionComercial %s is before the document's FechaEmision %s: date the approval when it is signed.", FormatTime(a.DecidedAt), a.IssueDate.DGII())
	}
	return nil
}

// Match refuses an approval whose fields differ from doc's (e-NCF,
// FechaEmision, MontoTotal and RNCComprador must be the document's; the
// issuer is the tenant's RNC, CheckIssuer), of a type that takes no
// approval, or of a document DGII has not accepted. Returns
// INVALID_REQUEST: a mismatch's message names none of doc's values (the
// differences are in its Err, for the log).
func (a *ReceivedApproval) Match(doc *Document) error {
	var diffs []string
	if a.ENCF != doc.ENCF {
		diffs = append(diffs, fmt.Sprintf("eNCF %s, not %s", a.ENCF, doc.ENCF))
	}
	if a.IssueDate != doc.IssueDate {
		diffs = append(diffs, fmt.Sprintf("FechaEmision %s, not %s", a.IssueDate.DGII(), doc.IssueDate.DGII()))
	}
	if !sameAmount(a.Total, doc.Total) {
		diffs = append(diffs, fmt.Sprintf("MontoTotal %s, not %s", a.Total, doc.Total))
	}
	if a.BuyerRNC != doc.BuyerRNC {
		diffs = append(diffs, fmt.Sprintf("RNCComprador %s, not %s", a.BuyerRNC, doc.BuyerRNC))
	}
	if len(diffs) > 0 {
		return refuseApproval(approvalMismatch, fmt.Errorf("%w document %s: %s", errNoMatch, doc.ENCF, strings.Join(diffs, "; ")))
	}
	if !doc.Type.B2B() {
		return Errorf(CodeInvalidRequest, "Document %s is of type %s, which takes no commercial approval.", doc.ENCF, doc.Type.Code())
	}
	if doc.Status != StatusAccepted && doc.Status != StatusAcceptedConditional {
		return Errorf(CodeInvalidRequest, "Document %s is %s: only a document DGII accepted takes a commercial approval.", doc.ENCF, doc.Status)
	}
	return nil
}

// sameAmount reports whether two decimal amounts are equal as numbers.
func sameAmount(a, b string) bool {
	x, okx := new(big.Rat).SetString(a)
	y, oky := new(big.Rat).SetString(b)
	return okx && oky && x.Cmp(y) == 0
}

// Verdict is a's verdict, received at receivedAt.
func (a *ReceivedApproval) Verdict(receivedAt time.Time) ApprovalVerdict {
	decided, received := a.DecidedAt.UTC().Truncate(time.Second), receivedAt.UTC().Truncate(time.Microsecond)
	return ApprovalVerdict{
		Status: a.Status, Reason: a.Reason, BuyerRNC: a.BuyerRNC,
		DecidedAt: &decided, ReceivedAt: &received, Signer: a.Signer,
	}
}

// Apply records a on doc at now, after Match, and returns the event it
// calls for, nil when doc is unchanged. A verdict is not first-come-final,
// since anyone with a certificate can sign an ACECF and only DGII knows
// who signs for the buyer: every verdict that differs is kept, from
// signers of different holders (Signer.Holder).
//
//   - The first verdict is the approval: ecf.commercial_approval.received.
//   - The same signer's same verdict again (a retry) changes nothing; the
//     same signer's other verdict is refused (INVALID_REQUEST).
//   - Another signer's verdict that one recorded already states changes
//     nothing.
//   - Another signer's other verdict is kept beside the first: the approval
//     is disputed, and ecf.commercial_approval.disputed (a warning) says
//     so.
//
// Returns Match's errors too.
func (a *ReceivedApproval) Apply(doc *Document, now time.Time) (*Event, error) {
	if err := a.Match(doc); err != nil {
		return nil, err
	}
	c := doc.CommercialApproval
	verdicts := c.AllVerdicts()
	for _, v := range verdicts {
		if v.Signer.Holder() != a.Signer.Holder() {
			continue
		}
		if v.Status == a.Status && v.Reason == a.Reason {
			return nil, nil
		}
		return nil, Errorf(CodeInvalidRequest, "Document %s already has this signer's commercial verdict %s (received %s); a verdict cannot be changed.",
			doc.ENCF, v.Status, receivedWhen(v.ReceivedAt))
	}
	for _, v := range verdicts {
		if v.Status == a.Status {
			return nil, nil
		}
	}
	v := a.Verdict(now)
	doc.UpdatedAt = now
	if len(verdicts) == 0 {
		doc.CommercialApproval = &CommercialApproval{
			Status: v.Status, Reason: v.Reason, BuyerRNC: v.BuyerRNC, DecidedAt: v.DecidedAt, ReceivedAt: v.ReceivedAt,
			Signer: v.Signer, Verdicts: []ApprovalVerdict{v},
		}
		return a.Event(doc, now), nil
	}
	c.Verdicts = append(verdicts, v)
	c.Status = ApprovalDisputed
	return NewApprovalDisputedEvent(doc, now), nil
}

// receivedWhen names when a verdict was received, for a message.
func receivedWhen(t *time.Time) string {
	if t == nil {
		return "earlier"
	}
	return FormatTime(*t)
}

// Event is the ecf.commercial_approval.received event of doc, after Apply:
// data.payload has the verdict ("approved" or "rejected"), the reason, the
// buyer's RNC and the signer. A rejection is a warning: the issuer voids
// the document with a credit note.
func (a *ReceivedApproval) Event(doc *Document, now time.Time) *Event {
	severity, msg := "info", fmt.Sprintf("The buyer %s approved document %s.", a.BuyerRNC, doc.ENCF)
	if a.Status == ApprovalRejected {
		severity, msg = "warning", fmt.Sprintf("The buyer %s rejected document %s: %s", a.BuyerRNC, doc.ENCF, a.Reason)
	}
	ev := NewDocumentEvent(EventECFCommercialApproval, doc, severity, msg, now)
	ev.Data.Payload = map[string]any{"status": a.Status, "reason": nullable(a.Reason), "buyerRnc": nullable(a.BuyerRNC), "signer": signerPayload(a.Signer)}
	return ev
}

// NewApprovalDisputedEvent is the ecf.commercial_approval.disputed event
// of doc, whose approval Apply found disputed: a warning, with every
// verdict and its signer in data.payload.verdicts.
func NewApprovalDisputedEvent(doc *Document, now time.Time) *Event {
	verdicts := doc.CommercialApproval.AllVerdicts()
	list := make([]any, len(verdicts))
	for i, v := range verdicts {
		list[i] = map[string]any{"status": v.Status, "reason": nullable(v.Reason), "buyerRnc": nullable(v.BuyerRNC), "signer": signerPayload(v.Signer)}
	}
	ev := NewDocumentEvent(EventECFCommercialApprovalDisputed, doc, "warning",
		fmt.Sprintf("Document %s has conflicting commercial verdicts from different signers: only DGII knows who signs for the buyer %s.", doc.ENCF, doc.BuyerRNC), now)
	ev.Data.Payload = map[string]any{"status": ApprovalDisputed, "verdicts": list}
	return ev
}

// signerPayload is s in an event's payload, nil when s is.
func signerPayload(s *Signer) any {
	if s == nil {
		return nil
	}
	return map[string]any{"subject": s.Subject, "serialNumber": s.SerialNumber, "issuer": s.Issuer, "fingerprint": s.Fingerprint, "trusted": s.Trusted}
}

// ReceivedApprovalTx is what RecordReceivedApproval asks of the
// transaction that records an approval: statements, no rules.
type ReceivedApprovalTx interface {
	// LockDocumentByENCF returns the tenant's document of encf in env
	// without its payload, locked until the transaction ends. Returns
	// NOT_FOUND.
	LockDocumentByENCF(ctx context.Context, tenantID string, env Environment, encf string) (*Document, error)
	// SetCommercialApproval writes doc's CommercialApproval and UpdatedAt.
	SetCommercialApproval(ctx context.Context, doc *Document) error
	// InsertEvent writes ev to the outbox with its webhook deliveries.
	InsertEvent(ctx context.Context, ev *Event) error
}

// RecordReceivedApproval applies a (Apply) to the tenant's document a.ENCF
// in a.Environment, in the one transaction inTx runs (the store's; now is
// the time read in it), and writes the document and Apply's event when it
// changes. Stores implement ReceivedApprovalStore.ReceiveCommercialApproval
// with it. Returns NOT_FOUND and Apply's errors.
func RecordReceivedApproval(ctx context.Context, a *ReceivedApproval, inTx func(fn func(tx ReceivedApprovalTx, now time.Time) error) error) (doc *Document, changed bool, err error) {
	err = inTx(func(tx ReceivedApprovalTx, now time.Time) error {
		doc, changed = nil, false
		var err error
		if doc, err = tx.LockDocumentByENCF(ctx, a.TenantID, a.Environment, a.ENCF); err != nil {
			return err
		}
		ev, err := a.Apply(doc, now)
		if err != nil || ev == nil {
			return err
		}
		changed = true
		if err := tx.SetCommercialApproval(ctx, doc); err != nil {
			return err
		}
		return tx.InsertEvent(ctx, ev)
	})
	if err != nil {
		return nil, false, err
	}
	return doc, changed, nil
}

// ReceivedApprovalStore records the commercial approvals buyers send.
type ReceivedApprovalStore interface {
	// ReceiveCommercialApproval records a (RecordReceivedApproval; the
	// caller checked its issuer with CheckIssuer) on the tenant's document
	// a.ENCF in a.Environment. It returns the document as it is after.
	// Returns NOT_FOUND when the tenant has no such document, and Apply's
	// errors.
	ReceiveCommercialApproval(ctx context.Context, a *ReceivedApproval) (doc *Document, changed bool, err error)
}
