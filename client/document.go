package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"time"
)

// Status is a document's fiscal status.
type Status string

// The fiscal statuses. Accepted, AcceptedConditional, Rejected and Failed
// are final.
const (
	StatusQueuedForSigning    Status = "queued_for_signing"
	StatusSigned              Status = "signed"
	StatusSubmitted           Status = "submitted"
	StatusAccepted            Status = "accepted"
	StatusAcceptedConditional Status = "accepted_conditional"
	StatusRejected            Status = "rejected"
	StatusFailed              Status = "failed"
)

// Final reports whether s is a final status: DGII's verdict (accepted,
// accepted_conditional, rejected) or failed.
func (s Status) Final() bool {
	switch s {
	case StatusAccepted, StatusAcceptedConditional, StatusRejected, StatusFailed:
		return true
	}
	return false
}

// Document is the document resource: an e-CF as it is now.
type Document struct {
	ID   string `json:"id"`
	Type string `json:"type"` // E31 … E47
	ENCF string `json:"encf"`
	// Status is the fiscal status.
	Status Status `json:"status"`
	// TrackID is DGII's tracking id; nil until DGII gives one (always for
	// type 32 under DOP 250,000).
	TrackID *string `json:"trackId"`
	// SecurityCode, SignedAt and QRURL are nil until the document is signed.
	SecurityCode *string    `json:"securityCode"`
	SignedAt     *time.Time `json:"signedAt"`
	QRURL        *string    `json:"qrUrl"`
	// BuyerRNC is the e-CF's RNCComprador (the buyer's RNC or cédula); nil
	// when it names none (a type 32 under DOP 250,000 may leave it out; a
	// foreign buyer has an IdentificadorExtranjero instead).
	BuyerRNC *string `json:"buyerRnc"`
	// Total is Totales.MontoTotal as a decimal string ("1180.00").
	Total string `json:"total"`
	// DGII is DGII's verdict; nil until there is one.
	DGII     *DGIIResult `json:"dgii"`
	Delivery Delivery    `json:"delivery"`
	// CommercialApproval is nil until the buyer gives a verdict (its signed
	// ACECF reaches the issuer's receiver), and for the types that get none.
	CommercialApproval *CommercialApproval `json:"commercialApproval"`
	// FailureReason says why, with StatusFailed.
	FailureReason string `json:"failureReason,omitempty"`
	// Contingency is true when Sello signed the document while DGII was
	// unreachable in its environment (an e-CF issued in contingency); it
	// is sent, oldest first, when DGII answers again.
	Contingency bool      `json:"contingency"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// DGIIResult is DGII's answer, in the one shape the API gives it wherever
// DGII answered (docs/api.md, Conventions); on a document, its verdict.
type DGIIResult struct {
	// Codigo is DGII's codigo: for a verdict 1 Aceptado, 2 Rechazado, 3 En
	// Proceso, 4 Aceptado Condicional. A document's verdict always has
	// one (the API's null, for other answers, decodes as 0).
	Codigo int `json:"codigo"`
	// Estado is DGII's status text; "" when DGII gave none (null).
	Estado   string        `json:"estado"`
	Mensajes []DGIIMessage `json:"mensajes"`
	// SecuenciaUtilizada, for a rejected document: true when the e-NCF is
	// spent; nil when DGII did not say.
	SecuenciaUtilizada *bool `json:"secuenciaUtilizada"`
}

// DGIIMessage is one of DGII's messages.
type DGIIMessage struct {
	// Codigo is the message's code; nil for a message DGII gave as text
	// alone.
	Codigo *int   `json:"codigo"`
	Valor  string `json:"valor"`
}

// Delivery is the document's delivery to the buyer's electronic receiver.
type Delivery struct {
	// Status is not_applicable (types 32, 41, 43, 45, 46 and 47, and
	// rejected or failed documents); for the others not_sent until DGII
	// accepts the document, pending while Sello delivers it, then
	// delivered (the buyer acknowledged it), failed (the buyer did not
	// receive it, or could not be reached) or not_electronic (the buyer is
	// not in DGII's directory: hand it the printed representation).
	// not_received appears only on documents of earlier versions.
	Status string `json:"status"`
	// Code is the buyer's ARECF CodigoMotivoNoRecibido, with failed when
	// the buyer answered "no recibido".
	Code string `json:"code,omitempty"`
	// Reason says why, with failed.
	Reason string `json:"reason,omitempty"`
}

// CommercialApproval is the buyer's commercial verdict: the first verdict
// received, and Verdicts, every verdict kept.
type CommercialApproval struct {
	// Status is approved or rejected, or disputed when certificates of
	// different holders sent different verdicts (see Verdicts).
	Status string `json:"status"`
	// Reason is the buyer's DetalleMotivoRechazo on a rejection.
	Reason string `json:"reason,omitempty"`
	// BuyerRNC is the RNCComprador of the buyer's ACECF.
	BuyerRNC string `json:"buyerRnc,omitempty"`
	// DecidedAt is the ACECF's FechaHoraAprobacionComercial, ReceivedAt when
	// Sello received it; nil when unknown.
	DecidedAt  *time.Time `json:"decidedAt,omitempty"`
	ReceivedAt *time.Time `json:"receivedAt,omitempty"`
	// Signer signed the first verdict's ACECF; nil when unknown.
	Signer *Signer `json:"signer,omitempty"`
	// Verdicts are every verdict kept, first first: more than one when
	// disputed.
	Verdicts []ApprovalVerdict `json:"verdicts,omitempty"`
}

// ApprovalVerdict is one signed ACECF's verdict.
type ApprovalVerdict struct {
	// Status is approved or rejected.
	Status     string     `json:"status"`
	Reason     string     `json:"reason,omitempty"`
	BuyerRNC   string     `json:"buyerRnc,omitempty"`
	DecidedAt  *time.Time `json:"decidedAt,omitempty"`
	ReceivedAt *time.Time `json:"receivedAt,omitempty"`
	// Signer signed the ACECF; nil when unknown.
	Signer *Signer `json:"signer,omitempty"`
}

// Signer is the certificate that signed a document a receiver received.
type Signer struct {
	Subject string `json:"subject"`
	// SerialNumber is the subject's serialNumber, the holder's identity
	// (IDCDO-<cédula>); "" when it has none.
	SerialNumber string    `json:"serialNumber,omitempty"`
	Issuer       string    `json:"issuer"`
	NotBefore    time.Time `json:"notBefore"`
	NotAfter     time.Time `json:"notAfter"`
	// Fingerprint is the SHA-256 of the DER certificate, hex.
	Fingerprint string `json:"fingerprint"`
	// Trusted says the certificate chains to the receiver's trust roots.
	Trusted bool `json:"trusted"`
}

// DocumentResponse is an answer carrying one document.
type DocumentResponse struct {
	Document Document
	// Replayed is true when a create answered a repeat of an earlier create
	// with the same Idempotency-Key and body: nothing new was created.
	Replayed      bool
	CorrelationID string
}

// CreateDocumentRequest is a document to create.
type CreateDocumentRequest struct {
	// Document is the e-CF as the API takes it, {"ECF": {…}} with DGII's
	// XML element names: a struct, a map or a json.RawMessage.
	Document any
	// IdempotencyKey makes retries safe; a random UUID is used when empty.
	// Use your own (your invoice id, say) to be safe across restarts too.
	IdempotencyKey string
}

// CreateDocument creates a document (202): numbered, stored and queued for
// signing. The request carries an Idempotency-Key, the same on every retry,
// so at most one document is created however often it is retried.
//
// API errors: VALIDATION_FAILED (with Details), SEQUENCE_EXHAUSTED,
// CONFLICT, IDEMPOTENCY_KEY_REUSED, PAYLOAD_TOO_LARGE, INVALID_JSON, and the
// authentication errors.
func (c *Client) CreateDocument(ctx context.Context, req CreateDocumentRequest) (*DocumentResponse, error) {
	body, err := marshalDocument(req.Document)
	if err != nil {
		return nil, err
	}
	key := req.IdempotencyKey
	if key == "" {
		if key, err = newIdempotencyKey(); err != nil {
			return nil, err
		}
	}
	resp, err := c.do(ctx, request{method: http.MethodPost, path: "/documentos-ecf", body: body,
		header: http.Header{"Idempotency-Key": {key}}})
	if err != nil {
		return nil, err
	}
	out, err := documentResponse(resp)
	if err != nil {
		return nil, err
	}
	out.Replayed = resp.header.Get("Idempotent-Replayed") == "true"
	return out, nil
}

// ValidateResponse is the answer of ValidateDocument.
type ValidateResponse struct {
	Valid bool
	// Document is the normalized e-CF, {"ECF": {…}} with the computed
	// totals; no e-NCF unless the request gave one.
	Document      json.RawMessage
	CorrelationID string
}

// ValidateDocument checks a document as a create would, writing nothing and
// consuming no number (?validate=true). An invalid document is an *Error
// with code VALIDATION_FAILED and one Detail per problem.
func (c *Client) ValidateDocument(ctx context.Context, document any) (*ValidateResponse, error) {
	body, err := marshalDocument(document)
	if err != nil {
		return nil, err
	}
	resp, err := c.do(ctx, request{method: http.MethodPost, path: "/documentos-ecf", query: url.Values{"validate": {"true"}}, body: body})
	if err != nil {
		return nil, err
	}
	var v struct {
		Valid         bool            `json:"valid"`
		Document      json.RawMessage `json:"document"`
		CorrelationID string          `json:"correlationId"`
	}
	if err := decode(resp, &v); err != nil {
		return nil, err
	}
	return &ValidateResponse{Valid: v.Valid, Document: v.Document, CorrelationID: v.CorrelationID}, nil
}

func marshalDocument(doc any) ([]byte, error) {
	if doc == nil {
		return nil, errors.New("sello: no document")
	}
	if raw, ok := doc.(json.RawMessage); ok {
		if !json.Valid(raw) {
			return nil, errors.New("sello: document is not valid JSON")
		}
		return raw, nil
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("sello: encode document: %w", err)
	}
	return b, nil
}

// StatusResult is the status batch's answer for one e-NCF.
type StatusResult struct {
	ENCF  string `json:"encf"`
	Found bool   `json:"found"`
	// Document is nil when Found is false.
	Document *Document `json:"document,omitempty"`
}

// StatusBatchResponse is the answer of StatusBatch.
type StatusBatchResponse struct {
	// Results has one entry per requested e-NCF, in request order.
	Results       []StatusResult
	CorrelationID string
}

// MaxBatchENCFs is the most e-NCFs one StatusBatch may ask for.
const MaxBatchENCFs = 1000

// StatusBatch returns the current state of up to MaxBatchENCFs documents:
// the reconciliation source for webhook events. It needs scope status:read.
// A malformed e-NCF is a VALIDATION_FAILED detail at encfs[i]; an unknown
// one is a result with Found false.
func (c *Client) StatusBatch(ctx context.Context, encfs []string) (*StatusBatchResponse, error) {
	body, err := json.Marshal(struct {
		ENCFs []string `json:"encfs"`
	}{encfs})
	if err != nil {
		return nil, err
	}
	resp, err := c.do(ctx, request{method: http.MethodPost, path: "/documentos-ecf/status/batch", body: body})
	if err != nil {
		return nil, err
	}
	var v struct {
		Results       []StatusResult `json:"results"`
		CorrelationID string         `json:"correlationId"`
	}
	if err := decode(resp, &v); err != nil {
		return nil, err
	}
	return &StatusBatchResponse{Results: v.Results, CorrelationID: v.CorrelationID}, nil
}

// GetDocument returns the document with e-NCF encf. API errors: NOT_FOUND,
// INVALID_REQUEST (a malformed e-NCF).
func (c *Client) GetDocument(ctx context.Context, encf string) (*DocumentResponse, error) {
	resp, err := c.do(ctx, request{method: http.MethodGet, path: "/documentos-ecf/" + url.PathEscape(encf)})
	if err != nil {
		return nil, err
	}
	return documentResponse(resp)
}

func documentResponse(resp *response) (*DocumentResponse, error) {
	var v struct {
		Document      Document `json:"document"`
		CorrelationID string   `json:"correlationId"`
	}
	if err := decode(resp, &v); err != nil {
		return nil, err
	}
	return &DocumentResponse{Document: v.Document, CorrelationID: v.CorrelationID}, nil
}

// GetDocumentXML returns the signed e-CF XML exactly as sent to DGII.
// NOT_FOUND until the document is signed.
func (c *Client) GetDocumentXML(ctx context.Context, encf string) ([]byte, error) {
	resp, err := c.do(ctx, request{method: http.MethodGet, path: "/documentos-ecf/" + url.PathEscape(encf) + "/xml", accept: "application/xml"})
	if err != nil {
		return nil, err
	}
	return resp.body, nil
}

// GetDocumentPDF returns the printed representation (PDF, with DGII's QR).
// NOT_FOUND until the document is signed.
func (c *Client) GetDocumentPDF(ctx context.Context, encf string) ([]byte, error) {
	resp, err := c.do(ctx, request{method: http.MethodGet, path: "/documentos-ecf/" + url.PathEscape(encf) + "/pdf", accept: "application/pdf"})
	if err != nil {
		return nil, err
	}
	return resp.body, nil
}

// ListDocumentsParams filters ListDocuments. Zero fields do not filter.
type ListDocumentsParams struct {
	Status Status
	// Type is E31 … E47 (or 31 … 47).
	Type string
	// Buyer is the buyer's RNC or cédula (RNCComprador, 9 or 11 digits).
	Buyer string
	// ENCF is one document's e-NCF: the page then has at most that
	// document.
	ENCF string
	// From (inclusive) and To (exclusive) bound createdAt.
	From, To time.Time
	// Cursor is the previous page's NextCursor; "" for the first page.
	Cursor string
	// Limit is the page size, 1 to 200; 0 for the server's default (50).
	Limit int
}

// ListDocuments returns one page of documents, newest first. Pass
// NextCursor back as Cursor, with the same filters, for the next page; or use
// Documents to range over every page. API errors: INVALID_REQUEST.
func (c *Client) ListDocuments(ctx context.Context, p ListDocumentsParams) (*Page[Document], error) {
	q := pageQuery{}
	q.set("status", string(p.Status))
	q.set("type", p.Type)
	q.set("buyer", p.Buyer)
	q.set("encf", p.ENCF)
	q.setTime("from", p.From)
	q.setTime("to", p.To)
	return list[Document](ctx, c, "/documentos-ecf", q.page(p.Cursor, p.Limit))
}

// Documents ranges over every document p selects, newest first, fetching
// page after page. It stops at the first error, which it yields.
//
//	for d, err := range c.Documents(ctx, client.ListDocumentsParams{Status: client.StatusRejected}) {
//		if err != nil { return err }
//		…
//	}
func (c *Client) Documents(ctx context.Context, p ListDocumentsParams) iter.Seq2[*Document, error] {
	return every(p.Cursor, func(cursor string) (*Page[Document], error) {
		p.Cursor = cursor
		return c.ListDocuments(ctx, p)
	})
}
