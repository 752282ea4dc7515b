package client

import (
	"context"
	"iter"
	"time"
)

// ApprovalState is the tenant's commercial verdict on an inbound document.
type ApprovalState string

// The commercial verdicts of an inbound document.
const (
	ApprovalPending  ApprovalState = "pending" // no verdict yet
	ApprovalApproved ApprovalState = "approved"
	ApprovalRejected ApprovalState = "rejected"
)

// DGIIConfirmationState is DGII's confirmation of an inbound document.
type DGIIConfirmationState string

// DGII's confirmations of an inbound document. Approve or reject a
// document commercially only once it is DGIIConfirmationAccepted.
const (
	// DGIIConfirmationPending: DGII has not answered yet.
	DGIIConfirmationPending DGIIConfirmationState = "pending"
	// DGIIConfirmationAccepted: DGII accepted this very document.
	DGIIConfirmationAccepted DGIIConfirmationState = "accepted"
	// DGIIConfirmationRejected: DGII rejected it (null for tax purposes).
	DGIIConfirmationRejected DGIIConfirmationState = "rejected"
	// DGIIConfirmationNotFound: DGII has no accepted e-CF like it; asked
	// again for 72 hours after the receipt.
	DGIIConfirmationNotFound DGIIConfirmationState = "not_found"
	// DGIIConfirmationRefuted: DGII accepted another document under its
	// issuer and e-NCF: this one is not the issuer's.
	DGIIConfirmationRefuted DGIIConfirmationState = "refuted"
)

// InboundDocument is an e-CF a supplier posted to the tenant's receiver and
// Sello acknowledged as received (the OpenAPI's InboundDocument).
type InboundDocument struct {
	// ID is the inboundDocumentId of the tax.public.receiver.ecf.received
	// event.
	ID   string `json:"id"`
	Type string `json:"type"` // E31 … E47
	ENCF string `json:"encf"`
	// Issuer is the supplier.
	Issuer InboundIssuer `json:"issuer"`
	// BuyerRNC is the e-CF's RNCComprador: the tenant.
	BuyerRNC string `json:"buyerRnc"`
	// IssueDate is the e-CF's FechaEmision, yyyy-MM-dd.
	IssueDate string `json:"issueDate"`
	// Total is MontoTotal as written in the e-CF.
	Total string `json:"total"`
	// Approval is the tenant's commercial verdict (CreateApproval).
	Approval ApprovalState `json:"approval"`
	// Signer is who signed the e-CF; nil for documents received before
	// Sello recorded signers.
	Signer *Signer `json:"signer"`
	// SecurityCode is the first six characters of the e-CF's
	// SignatureValue; nil for documents received before Sello asked DGII.
	SecurityCode *string `json:"securityCode"`
	// DGII is DGII's confirmation of the document; nil for documents
	// received before Sello asked DGII.
	DGII       *InboundDGII `json:"dgii"`
	ReceivedAt time.Time    `json:"receivedAt"`
	UpdatedAt  time.Time    `json:"updatedAt"`
}

// InboundIssuer is the supplier that issued an inbound document.
type InboundIssuer struct {
	RNC  string `json:"rnc"`  // RNCEmisor
	Name string `json:"name"` // RazonSocialEmisor
}

// InboundDGII is DGII's confirmation of an inbound document (its
// consultaestado, asked with the tenant's DGII session).
type InboundDGII struct {
	Status DGIIConfirmationState `json:"status"`
	// CheckedAt is when DGII last answered; nil before its first answer.
	CheckedAt *time.Time `json:"checkedAt"`
	// Codigo is consultaestado's codigo (0 No encontrado, 1 Aceptado, 2
	// Rechazado, 4 Aceptado Condicional); nil before DGII's first answer.
	Codigo *int `json:"codigo"`
	// Mensaje is DGII's estado, or why Sello refuted the document or
	// stopped asking; nil when there is none.
	Mensaje *string `json:"mensaje"`
}

// InboundDocumentResponse is an answer carrying one inbound document.
type InboundDocumentResponse struct {
	Document      InboundDocument
	CorrelationID string
}

// ListInboundDocumentsParams filters ListInboundDocuments. Zero fields do not
// filter.
type ListInboundDocumentsParams struct {
	// Issuer is the supplier's RNC.
	Issuer string
	// ENCF is the document's e-NCF (with Issuer, at most one document:
	// e-NCFs are unique per issuer, not across issuers).
	ENCF string
	// Type is E31 … E47 (or 31 … 47).
	Type     string
	Approval ApprovalState
	// DGII is a state of DGII's confirmation.
	DGII DGIIConfirmationState
	// From (inclusive) and To (exclusive) bound receivedAt.
	From, To time.Time
	// Cursor is the previous page's NextCursor; "" for the first page.
	Cursor string
	// Limit is the page size, 1 to 200; 0 for the server's default (50).
	Limit int
}

// ListInboundDocuments returns one page of the documents suppliers sent to
// the tenant, newest received first (GET /{env}/documentos-recibidos). Pass
// NextCursor back as Cursor, with the same filters, for the next page; or
// use InboundDocuments. It needs scope ecf:read. API errors:
// INVALID_REQUEST (a malformed filter, Cursor or Limit).
func (c *Client) ListInboundDocuments(ctx context.Context, p ListInboundDocumentsParams) (*Page[InboundDocument], error) {
	q := pageQuery{}
	q.set("issuer", p.Issuer)
	q.set("encf", p.ENCF)
	q.set("type", p.Type)
	q.set("approval", string(p.Approval))
	q.set("dgii", string(p.DGII))
	q.setTime("from", p.From)
	q.setTime("to", p.To)
	return list[InboundDocument](ctx, c, "/documentos-recibidos", q.page(p.Cursor, p.Limit))
}

// InboundDocuments ranges over every inbound document p selects, newest
// received first, fetching page after page. It stops at the first error,
// which it yields.
func (c *Client) InboundDocuments(ctx context.Context, p ListInboundDocumentsParams) iter.Seq2[*InboundDocument, error] {
	return every(p.Cursor, func(cursor string) (*Page[InboundDocument], error) {
		p.Cursor = cursor
		return c.ListInboundDocuments(ctx, p)
	})
}

// GetInboundDocument returns the inbound document with id (the event's
// inboundDocumentId). It needs scope ecf:read. API errors: NOT_FOUND.
func (c *Client) GetInboundDocument(ctx context.Context, id string) (*InboundDocumentResponse, error) {
	seg, err := pathID("inbound document", id)
	if err != nil {
		return nil, err
	}
	d, cid, err := get[InboundDocument](ctx, c, "/documentos-recibidos"+seg, "document")
	if err != nil {
		return nil, err
	}
	return &InboundDocumentResponse{Document: d, CorrelationID: cid}, nil
}

// GetInboundDocumentXML returns the inbound e-CF exactly as the supplier
// posted it, byte for byte. It needs scope ecf:read. API errors: NOT_FOUND.
func (c *Client) GetInboundDocumentXML(ctx context.Context, id string) ([]byte, error) {
	seg, err := pathID("inbound document", id)
	if err != nil {
		return nil, err
	}
	return c.file(ctx, "/documentos-recibidos"+seg+"/xml", "application/xml")
}

// GetInboundDocumentPDF returns the inbound e-CF's printed representation
// (PDF, with the supplier's timbre QR). It needs scope ecf:read. API
// errors: NOT_FOUND.
func (c *Client) GetInboundDocumentPDF(ctx context.Context, id string) ([]byte, error) {
	seg, err := pathID("inbound document", id)
	if err != nil {
		return nil, err
	}
	return c.file(ctx, "/documentos-recibidos"+seg+"/pdf", "application/pdf")
}
