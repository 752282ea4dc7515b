package sello

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"
)

// The tenant's commercial approval of a supplier's document (DESIGN §4,
// FACTS §1.8; docs/receptor.md). POST /{env}/aprobaciones-comerciales asks
// for it; the store records it on the inbound document (Approval becomes
// approved or rejected) and queues its ApprovalJob in one transaction. The
// job builds and signs the ACECF and sends it on two legs, to the issuer's
// receiver (the urlAceptacion of DGII's directory) and a copy to DGII,
// recording each leg's outcome (ApprovalOutcome). When both legs are done
// the approval is sent (inbound.approval.sent) or failed
// (inbound.approval.failed).

// The verdicts an approval request names (ApprovalRequest.Estado).
const (
	EstadoAprobado  = "aprobado"
	EstadoRechazado = "rechazado"
)

// MaxApprovalReason is the longest motivo, in characters (ACECF's
// DetalleMotivoRechazo).
const MaxApprovalReason = 250

// ApprovalRequest is the body of POST /{env}/aprobaciones-comerciales.
type ApprovalRequest struct {
	InboundDocumentID string `json:"inboundDocumentId"`
	Estado            string `json:"estado"`
	Motivo            string `json:"motivo,omitempty"`
}

// Check refuses a malformed request: no inbound document id, an estado
// other than aprobado or rechazado, a rejection without a motivo, a motivo
// over MaxApprovalReason characters or given with an approval. Returns
// INVALID_REQUEST with a detail per problem.
func (r ApprovalRequest) Check() error {
	var p Problems
	if r.InboundDocumentID == "" {
		p.Add("inboundDocumentId", "Required: the id of the inbound document (tax.public.receiver.ecf.received's data.payload.inboundDocumentId).")
	}
	switch r.Estado {
	case EstadoAprobado:
		if r.Motivo != "" {
			p.Add("motivo", "Only a rejection carries a motivo.")
		}
	case EstadoRechazado:
		if strings.TrimSpace(r.Motivo) == "" {
			p.Add("motivo", "Required when estado is rechazado: say why.")
		}
	default:
		p.Add("estado", `Must be "aprobado" or "rechazado".`)
	}
	if n := utf8.RuneCountInString(r.Motivo); n > MaxApprovalReason {
		p.Addf("motivo", "At most %d characters (got %d).", MaxApprovalReason, n)
	} else if !utf8.ValidString(r.Motivo) {
		p.Add("motivo", "Must be valid UTF-8.")
	}
	if p.Len() > 0 {
		return p.Errorf(CodeInvalidRequest, "The approval request is not valid.")
	}
	return nil
}

// ApprovalApplies reports whether documents of type t take a commercial
// approval: all but 32, 41, 43, 46 and 47 (FACTS §1.8).
func (t DocumentType) ApprovalApplies() bool {
	switch t {
	case TypeConsumo, TypeCompras, TypeGastosMenores, TypeExportaciones, TypePagosExterior:
		return false
	}
	return true
}

// The sending statuses of an approval and of each of its legs.
const (
	ApprovalSendPending = "pending"
	ApprovalSendSent    = "sent"
	ApprovalSendFailed  = "failed"
)

// ApprovalLeg is how sending the ACECF to one party went.
type ApprovalLeg struct {
	Status string // ApprovalSendPending, ApprovalSendSent or ApprovalSendFailed
	// Error says why a failed leg failed.
	Error string
	// Answer is DGII's answer to the DGII leg once it answered (taken or
	// refused); nil before, and always for the issuer's leg, whose
	// receiver answers with its HTTP status alone.
	Answer *DGIIResult
}

// equal reports whether l and o record the same outcome.
func (l ApprovalLeg) equal(o ApprovalLeg) bool {
	return l.Status == o.Status && l.Error == o.Error && reflect.DeepEqual(l.Answer, o.Answer)
}

// ApprovalLegResource is the public form of a leg: null where it has no
// error or no answer.
type ApprovalLegResource struct {
	Status string      `json:"status"`
	Error  *string     `json:"error"`
	Answer *DGIIResult `json:"answer"`
}

// Resource returns the public form of l.
func (l ApprovalLeg) Resource() ApprovalLegResource {
	return ApprovalLegResource{Status: l.Status, Error: nullable(l.Error), Answer: l.Answer}
}

// InboundApproval is the tenant's commercial approval of an inbound
// document, recorded on it.
type InboundApproval struct {
	ID                string
	TenantID          string
	Environment       Environment
	InboundDocumentID string
	// Type, ENCF and IssuerRNC are the inbound document's.
	Type      DocumentType
	ENCF      string
	IssuerRNC string
	// State is ApprovalApproved or ApprovalRejected; Reason the motivo of
	// a rejection.
	State  string
	Reason string
	// Status is ApprovalSendPending until both legs are done, then
	// ApprovalSendSent (both sent) or ApprovalSendFailed.
	Status string
	Issuer ApprovalLeg // the issuer's receiver
	DGII   ApprovalLeg // DGII's aprobación comercial service
	// ACECF is the signed ACECF once the job built it, nil before.
	ACECF       []byte
	RequestedAt time.Time
	UpdatedAt   time.Time
}

// NewInboundApproval is the approval r asks for of d. Returns
// VALIDATION_FAILED when d's type takes no approval or DGII has not
// accepted d (CheckConfirmed), and CONFLICT when d was approved or
// rejected already; r must have passed Check.
func NewInboundApproval(d *InboundDocument, r ApprovalRequest, now time.Time) (*InboundApproval, error) {
	if !d.Type.ApprovalApplies() {
		return nil, ValidationErrorf("inboundDocumentId", "Commercial approval does not apply to type %s (not to 32, 41, 43, 46, 47).", d.Type.Code())
	}
	if d.Approval != ApprovalPending && d.Approval != "" {
		return nil, Errorf(CodeConflict, "Inbound document %s was %s already.", d.ID, d.Approval)
	}
	if err := d.CheckConfirmed(); err != nil {
		return nil, err
	}
	a := &InboundApproval{
		ID: NewID(), TenantID: d.TenantID, Environment: d.Environment, InboundDocumentID: d.ID,
		Type: d.Type, ENCF: d.ENCF, IssuerRNC: d.IssuerRNC,
		State: ApprovalApproved, Status: ApprovalSendPending,
		Issuer: ApprovalLeg{Status: ApprovalSendPending}, DGII: ApprovalLeg{Status: ApprovalSendPending},
		RequestedAt: now, UpdatedAt: now,
	}
	if r.Estado == EstadoRechazado {
		a.State, a.Reason = ApprovalRejected, r.Motivo
	}
	return a, nil
}

// Job is the approval's ApprovalJob.
func (a *InboundApproval) Job() ApprovalJob {
	return ApprovalJob{TenantID: a.TenantID, Environment: a.Environment, InboundDocumentID: a.InboundDocumentID}
}

// ApprovalOutcome is what a run of the approval's job learnt: the signed
// ACECF once built, and the outcome of the legs it finished (nil: no news).
type ApprovalOutcome struct {
	ACECF  []byte
	Issuer *ApprovalLeg
	DGII   *ApprovalLeg
}

// Apply records out on a at now and returns the event it calls for:
// inbound.approval.sent when both legs are sent, inbound.approval.failed
// when both are done and one failed, nil while a leg is pending. Returns
// CONFLICT when a's status is no longer pending (an outcome recorded is
// never replaced) or out would change a leg already done.
func (a *InboundApproval) Apply(out ApprovalOutcome, now time.Time) (*Event, error) {
	if a.Status != ApprovalSendPending {
		return nil, Errorf(CodeConflict, "The approval of inbound document %s is %s already.", a.InboundDocumentID, a.Status)
	}
	for _, l := range []struct {
		leg *ApprovalLeg
		out *ApprovalLeg
	}{{&a.Issuer, out.Issuer}, {&a.DGII, out.DGII}} {
		if l.out == nil {
			continue
		}
		if l.leg.Status != ApprovalSendPending && !l.leg.equal(*l.out) {
			return nil, Errorf(CodeConflict, "A leg of the approval of inbound document %s is %s already.", a.InboundDocumentID, l.leg.Status)
		}
		*l.leg = *l.out
	}
	if out.ACECF != nil {
		a.ACECF = out.ACECF
	}
	a.UpdatedAt = now
	switch {
	case a.Issuer.Status == ApprovalSendSent && a.DGII.Status == ApprovalSendSent:
		a.Status = ApprovalSendSent
		return a.event(EventInboundApprovalSent, "info", fmt.Sprintf("The %s of %s was sent to the issuer %s and to DGII.", a.verdict(), a.ENCF, a.IssuerRNC), now), nil
	case a.Issuer.Status != ApprovalSendPending && a.DGII.Status != ApprovalSendPending:
		a.Status = ApprovalSendFailed
		var why []string
		for _, l := range []struct {
			who string
			leg ApprovalLeg
		}{{"the issuer", a.Issuer}, {"DGII", a.DGII}} {
			if l.leg.Status == ApprovalSendFailed {
				why = append(why, l.who+": "+l.leg.Error)
			}
		}
		return a.event(EventInboundApprovalFailed, "error", fmt.Sprintf("The %s of %s could not be sent (%s).", a.verdict(), a.ENCF, strings.Join(why, "; ")), now), nil
	}
	return nil, nil
}

// verdict names a's state in a message.
func (a *InboundApproval) verdict() string {
	if a.State == ApprovalRejected {
		return "commercial rejection"
	}
	return "commercial approval"
}

// event is a's event of type t.
func (a *InboundApproval) event(t EventType, severity, msg string, now time.Time) *Event {
	r := a.Resource()
	return &Event{
		ID:          NewID(),
		Type:        t,
		CreatedAt:   now,
		TenantID:    a.TenantID,
		Environment: a.Environment,
		Document: &EventDocument{
			ID:     a.InboundDocumentID,
			Type:   a.Type.Code(),
			ENCF:   a.ENCF,
			Status: InboundStatusReceived,
		},
		Data: EventData{
			Severity: severity,
			Message:  msg,
			Payload: map[string]any{
				"inboundDocumentId": a.InboundDocumentID,
				"approvalId":        a.ID,
				"estado":            r.Estado,
				"motivo":            r.Motivo,
				"issuer":            map[string]any{"rnc": a.IssuerRNC, "status": r.Issuer.Status, "error": r.Issuer.Error, "answer": r.Issuer.Answer},
				"dgii":              r.DGII,
			},
		},
	}
}

// ApprovalResource is the public form of an approval (the API's
// aprobaciones-comerciales).
type ApprovalResource struct {
	ID                string              `json:"id"`
	InboundDocumentID string              `json:"inboundDocumentId"`
	Type              string              `json:"type"`
	ENCF              string              `json:"encf"`
	IssuerRNC         string              `json:"issuerRnc"`
	Estado            string              `json:"estado"`
	Motivo            *string             `json:"motivo"`
	Status            string              `json:"status"`
	Issuer            ApprovalLegResource `json:"issuer"`
	DGII              ApprovalLegResource `json:"dgii"`
	CreatedAt         string              `json:"createdAt"`
	UpdatedAt         string              `json:"updatedAt"`
}

// Resource returns the public form of a.
func (a *InboundApproval) Resource() ApprovalResource {
	estado := EstadoAprobado
	if a.State == ApprovalRejected {
		estado = EstadoRechazado
	}
	return ApprovalResource{
		ID: a.ID, InboundDocumentID: a.InboundDocumentID, Type: a.Type.Code(), ENCF: a.ENCF, IssuerRNC: a.IssuerRNC,
		Estado: estado, Motivo: nullable(a.Reason), Status: a.Status, Issuer: a.Issuer.Resource(), DGII: a.DGII.Resource(),
		CreatedAt: FormatTime(a.RequestedAt), UpdatedAt: FormatTime(a.UpdatedAt),
	}
}

// ApprovalJob sends the tenant's approval of an inbound document (the
// worker package works it). ApproveInboundDocument inserts it with the
// approval.
type ApprovalJob struct {
	TenantID          string      `json:"tenantId"`
	Environment       Environment `json:"environment"`
	InboundDocumentID string      `json:"inboundDocumentId"`
}

// Kind implements Job (River's JobArgs).
func (ApprovalJob) Kind() string { return "sello.approval" }

// ApprovalJobMaxAttempts bounds an approval's failed runs, with the same
// retry delays as a delivery (DeliveryRetryDelay): about a day. The last
// run's failure records the legs still pending as failed.
const ApprovalJobMaxAttempts = DeliveryJobMaxAttempts

// MaxAttempts implements JobMaxAttempts.
func (ApprovalJob) MaxAttempts() int { return ApprovalJobMaxAttempts }

// InboundApprovalNotFound is the NOT_FOUND of an inbound document that has
// no approval.
func InboundApprovalNotFound(id string) error {
	return Errorf(CodeNotFound, "Inbound document %q has no commercial approval.", id)
}

// ApprovalNotFound is the NOT_FOUND of a lookup of an approval by its id.
func ApprovalNotFound(id string) error {
	return Errorf(CodeNotFound, "Commercial approval %q not found.", id)
}

// ApprovalFilter selects a page of approvals in ListApprovals: newest
// requested first.
type ApprovalFilter struct {
	// Status is ApprovalSendPending, ApprovalSendSent or ApprovalSendFailed,
	// "" for any.
	Status string
	// InboundDocumentID keeps the approval of that inbound document, ""
	// for any.
	InboundDocumentID string
	// Cursor is the NextCursor of the previous page, "" for the first
	// (FormatCursor of the request time and the approval's id).
	Cursor string
	// Limit is the page size, 1 to MaxPageSize (DefaultPageSize when 0).
	Limit int
}

// PageSize is f's limit within 1 to MaxPageSize, DefaultPageSize when
// unset.
func (f ApprovalFilter) PageSize() int { return pageSize(f.Limit) }

// NextApprovalPage cuts a page read with one row more than limit and
// returns it with the cursor of the next page, "" on the last.
func NextApprovalPage(as []*InboundApproval, limit int) ([]*InboundApproval, string) {
	return cutPage(as, limit, func(a *InboundApproval) (time.Time, string) { return a.RequestedAt, a.ID })
}

// ParseApprovalSendStatus returns the sending status named s (pending,
// sent, failed). Returns INVALID_REQUEST.
func ParseApprovalSendStatus(s string) (string, error) {
	switch s {
	case ApprovalSendPending, ApprovalSendSent, ApprovalSendFailed:
		return s, nil
	}
	return "", Errorf(CodeInvalidRequest, "Unknown approval status %q: use pending, sent or failed.", s)
}

// ApprovalStore keeps the tenant's commercial approvals of inbound
// documents.
type ApprovalStore interface {
	// ApproveInboundDocument records the approval r asks for on its inbound
	// document (NewInboundApproval, under the document's lock) and inserts
	// its ApprovalJob, in one transaction. Returns INVALID_REQUEST
	// (r.Check), NOT_FOUND (no such inbound document of the tenant in env),
	// VALIDATION_FAILED and CONFLICT (NewInboundApproval).
	ApproveInboundDocument(ctx context.Context, tenantID string, env Environment, r ApprovalRequest) (*InboundApproval, error)
	// FindInboundApproval returns the approval of the tenant's inbound
	// document id in env. Returns NOT_FOUND (no such document, or it has
	// no approval).
	FindInboundApproval(ctx context.Context, tenantID string, env Environment, inboundID string) (*InboundApproval, error)
	// FindApproval returns the tenant's approval id (its own id, not its
	// inbound document's) in env. Returns NOT_FOUND.
	FindApproval(ctx context.Context, tenantID string, env Environment, id string) (*InboundApproval, error)
	// ListApprovals returns a page of the tenant's approvals in env, newest
	// requested first and without their ACECF, and the cursor of the next
	// page ("" on the last). Returns INVALID_REQUEST for a malformed
	// cursor.
	ListApprovals(ctx context.Context, tenantID string, env Environment, f ApprovalFilter) (approvals []*InboundApproval, next string, err error)
	// RecordApprovalOutcome applies out to the approval (Apply, under the
	// document's lock) and writes it with the event Apply returns, in one
	// transaction. Returns NOT_FOUND and CONFLICT.
	RecordApprovalOutcome(ctx context.Context, tenantID string, env Environment, inboundID string, out ApprovalOutcome) (*InboundApproval, error)
}
