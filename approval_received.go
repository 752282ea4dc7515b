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
// buyer's verdict and the fields that must match the document.
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
}

// CheckIssuer refuses an approval of a document the tenant of RNC
// tenantRNC did not issue. Returns INVALID_REQUEST.
func (a *ReceivedApproval) CheckIssuer(tenantRNC string) error {
	if a.IssuerRNC != tenantRNC {
		return Errorf(CodeInvalidRequest, "The approval's RNCEmisor %s is not this receiver's RNC %s: send it to the issuer's receiver.", a.IssuerRNC, tenantRNC)
	}
	return nil
}

// Match refuses an approval whose fields differ from doc's (e-NCF,
// FechaEmision, MontoTotal and RNCComprador must be the document's; the
// issuer is the tenant's RNC, CheckIssuer), of a type that takes no
// approval, or of a document DGII has not accepted. Returns INVALID_REQUEST
// naming every difference.
func (a *ReceivedApproval) Match(doc *Document) error {
	if !doc.Type.B2B() {
		return Errorf(CodeInvalidRequest, "Document %s is of type %s, which takes no commercial approval.", doc.ENCF, doc.Type.Code())
	}
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
		return Errorf(CodeInvalidRequest, "The approval does not match document %s: the document has %s.", doc.ENCF, strings.Join(diffs, "; "))
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

// Apply records a on doc as of now, after Match. A second approval with the
// same verdict and reason changes nothing (changed = false: a buyer's
// retry); one that changes a recorded verdict is refused, since a buyer's
// verdict is final (a rejected document is voided with a credit note, FACTS
// §1.8). Returns Match's errors and CONFLICT.
func (a *ReceivedApproval) Apply(doc *Document, now time.Time) (changed bool, err error) {
	if err := a.Match(doc); err != nil {
		return false, err
	}
	if old := doc.CommercialApproval; old != nil && (old.Status == ApprovalApproved || old.Status == ApprovalRejected) {
		if old.Status == a.Status && old.Reason == a.Reason {
			return false, nil
		}
		return false, Errorf(CodeConflict, "Document %s already has the buyer's commercial verdict %s (received %s); a verdict cannot be changed.",
			doc.ENCF, old.Status, FormatTime(*old.ReceivedAt))
	}
	decided, received := a.DecidedAt.UTC().Truncate(time.Second), now.UTC().Truncate(time.Microsecond)
	doc.CommercialApproval = &CommercialApproval{
		Status: a.Status, Reason: a.Reason, BuyerRNC: a.BuyerRNC,
		DecidedAt: &decided, ReceivedAt: &received,
	}
	doc.UpdatedAt = now
	return true, nil
}

// Event is the ecf.commercial_approval.received event of doc, after Apply:
// data.payload has the verdict ("approved" or "rejected"), the reason and
// the buyer's RNC. A rejection is a warning: the issuer voids the document
// with a credit note.
func (a *ReceivedApproval) Event(doc *Document, now time.Time) *Event {
	severity, msg := "info", fmt.Sprintf("The buyer %s approved document %s.", a.BuyerRNC, doc.ENCF)
	if a.Status == ApprovalRejected {
		severity, msg = "warning", fmt.Sprintf("The buyer %s rejected document %s: %s", a.BuyerRNC, doc.ENCF, a.Reason)
	}
	ev := NewDocumentEvent(EventECFCommercialApproval, doc, severity, msg, now)
	ev.Data.Payload = map[string]any{"status": a.Status, "reason": nullable(a.Reason), "buyerRnc": nullable(a.BuyerRNC)}
	return ev
}

// ReceivedApprovalStore records the commercial approvals buyers send.
type ReceivedApprovalStore interface {
	// ReceiveCommercialApproval applies a (ReceivedApproval.Apply; the
	// caller checked its issuer with CheckIssuer) to the tenant's document
	// a.ENCF in a.Environment and,
	// when it changes it, writes the document and the
	// ecf.commercial_approval.received event in one transaction. It
	// returns the document as it is after. Returns NOT_FOUND when the
	// tenant has no such document, and Apply's errors.
	ReceiveCommercialApproval(ctx context.Context, a *ReceivedApproval) (doc *Document, changed bool, err error)
}
