package client

import (
	"context"
	"iter"
	"net/http"
	"time"
)

// The estados of a commercial approval: the tenant approves or rejects a
// document a supplier sent it.
const (
	EstadoAprobado  = "aprobado"
	EstadoRechazado = "rechazado"
)

// ApprovalStatus is how sending a commercial approval's signed ACECF went,
// to one party or (an Approval's Status) to both.
type ApprovalStatus string

// The sending statuses of a commercial approval and of its legs.
const (
	ApprovalStatusPending ApprovalStatus = "pending"
	ApprovalStatusSent    ApprovalStatus = "sent"
	ApprovalStatusFailed  ApprovalStatus = "failed"
)

// Approval is the tenant's commercial approval or rejection of an inbound
// document (the OpenAPI's Approval): Sello signs the ACECF and sends it to
// the issuer's receiver (Issuer) and to DGII (DGII).
type Approval struct {
	// ID is the approval's own id (GetApproval).
	ID string `json:"id"`
	// InboundDocumentID is the inbound document approved or rejected.
	InboundDocumentID string `json:"inboundDocumentId"`
	// Type, ENCF and IssuerRNC are the inbound document's.
	Type      string `json:"type"`
	ENCF      string `json:"encf"`
	IssuerRNC string `json:"issuerRnc"`
	// Estado is EstadoAprobado or EstadoRechazado.
	Estado string `json:"estado"`
	// Motivo is the rejection's motivo; nil for an approval.
	Motivo *string `json:"motivo"`
	// Status is pending until both legs are done, then sent (both sent) or
	// failed.
	Status    ApprovalStatus `json:"status"`
	Issuer    ApprovalLeg    `json:"issuer"`
	DGII      ApprovalLeg    `json:"dgii"`
	CreatedAt time.Time      `json:"createdAt"`
	UpdatedAt time.Time      `json:"updatedAt"`
}

// ApprovalLeg is how sending the signed ACECF to one party went.
type ApprovalLeg struct {
	Status ApprovalStatus `json:"status"`
	// Error says why a failed leg failed; nil otherwise.
	Error *string `json:"error"`
	// Answer is DGII's answer to the DGII leg (Codigo 1 taken, 2 refused);
	// nil until DGII answered, and always on the issuer's leg.
	Answer *DGIIResult `json:"answer"`
}

// CreateApprovalRequest approves or rejects an inbound document.
type CreateApprovalRequest struct {
	// InboundDocumentID is the inbound document's id (the inboundDocumentId
	// of the tax.public.receiver.ecf.received event).
	InboundDocumentID string `json:"inboundDocumentId"`
	// Estado is EstadoAprobado or EstadoRechazado.
	Estado string `json:"estado"`
	// Motivo says why the tenant rejects the document (the ACECF's
	// DetalleMotivoRechazo, at most 250 characters): required with
	// EstadoRechazado, refused with EstadoAprobado.
	Motivo string `json:"motivo,omitempty"`
}

// ApprovalResponse is an answer carrying one commercial approval.
type ApprovalResponse struct {
	Approval      Approval
	CorrelationID string
}

// CreateApproval approves or rejects a document a supplier sent to the
// tenant (202, status pending); Sello then signs the ACECF and sends it to
// the issuer and to DGII, and tells the outcome with inbound.approval.sent
// or inbound.approval.failed. It needs scope tenant:admin.
//
// The API takes no Idempotency-Key here, and needs none: a document is
// approved or rejected once, so a retry whose first attempt's answer was
// lost gets CONFLICT instead of a second approval (ListApprovals with
// InboundDocumentID then shows the one made).
//
// API errors: INVALID_REQUEST (no InboundDocumentID, an unknown Estado,
// Motivo missing, too long or given with an approval), NOT_FOUND (no such
// inbound document), CONFLICT (approved or rejected already),
// VALIDATION_FAILED (a type that takes no approval, or a document DGII has
// not accepted: wait for inbound.dgii_confirmed).
func (c *Client) CreateApproval(ctx context.Context, req CreateApprovalRequest) (*ApprovalResponse, error) {
	body, err := marshalBody(req)
	if err != nil {
		return nil, err
	}
	resp, err := c.do(ctx, request{method: http.MethodPost, path: "/aprobaciones-comerciales", body: body})
	if err != nil {
		return nil, err
	}
	a, cid, err := one[Approval](resp, "approval")
	if err != nil {
		return nil, err
	}
	return &ApprovalResponse{Approval: a, CorrelationID: cid}, nil
}

// ListApprovalsParams filters ListApprovals. Zero fields do not filter.
type ListApprovalsParams struct {
	Status ApprovalStatus
	// InboundDocumentID keeps the approval of one inbound document.
	InboundDocumentID string
	// Cursor is the previous page's NextCursor; "" for the first page.
	Cursor string
	// Limit is the page size, 1 to 200; 0 for the server's default (50).
	Limit int
}

// ListApprovals returns one page of the tenant's commercial approvals (those
// it sent as buyer), newest first, each with the outcome of its legs. It
// needs scope tenant:admin. API errors: INVALID_REQUEST (an unknown Status,
// a malformed Cursor or Limit).
func (c *Client) ListApprovals(ctx context.Context, p ListApprovalsParams) (*Page[Approval], error) {
	q := pageQuery{}
	q.set("status", string(p.Status))
	q.set("inboundDocumentId", p.InboundDocumentID)
	return list[Approval](ctx, c, "/aprobaciones-comerciales", q.page(p.Cursor, p.Limit))
}

// Approvals ranges over every commercial approval p selects, newest first,
// fetching page after page. It stops at the first error, which it yields.
func (c *Client) Approvals(ctx context.Context, p ListApprovalsParams) iter.Seq2[*Approval, error] {
	return every(p.Cursor, func(cursor string) (*Page[Approval], error) {
		p.Cursor = cursor
		return c.ListApprovals(ctx, p)
	})
}

// GetApproval returns the commercial approval with id (the approval's, not
// its inbound document's). It needs scope tenant:admin. API errors:
// NOT_FOUND.
func (c *Client) GetApproval(ctx context.Context, id string) (*ApprovalResponse, error) {
	seg, err := pathID("approval", id)
	if err != nil {
		return nil, err
	}
	a, cid, err := get[Approval](ctx, c, "/aprobaciones-comerciales"+seg, "approval")
	if err != nil {
		return nil, err
	}
	return &ApprovalResponse{Approval: a, CorrelationID: cid}, nil
}
