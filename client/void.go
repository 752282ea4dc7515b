package client

import (
	"context"
	"iter"
	"net/http"
	"time"
)

// VoidState is the state of a void.
type VoidState string

// The states of a void. Its numbers stay out of numbering in every state.
const (
	// VoidPending: DGII has not answered yet.
	VoidPending VoidState = "pending"
	// VoidAccepted: DGII voided every number.
	VoidAccepted VoidState = "accepted"
	// VoidPartiallyAccepted: DGII voided all but the ranges its mensajes
	// list as used.
	VoidPartiallyAccepted VoidState = "partially_accepted"
	// VoidRejected: DGII's mensajes say why.
	VoidRejected VoidState = "rejected"
	// VoidFailed: DGII could not be reached, or the tenant has no
	// certificate to sign the ANECF with (FailureReason).
	VoidFailed VoidState = "failed"
)

// Void withdraws e-NCF numbers the tenant was authorized but will never use
// (DGII's anulación, the ANECF; the OpenAPI's Void).
type Void struct {
	ID    string    `json:"id"`
	State VoidState `json:"state"`
	// Ranges are by type (DGII's order), then by start.
	Ranges []VoidRange `json:"ranges"`
	// Count is the numbers voided in all.
	Count int64 `json:"count"`
	// DGII is DGII's answer; nil until it answers.
	DGII *DGIIResult `json:"dgii"`
	// FailureReason says why, with VoidFailed; nil otherwise.
	FailureReason *string   `json:"failureReason"`
	CreatedAt     time.Time `json:"createdAt"`
	UpdatedAt     time.Time `json:"updatedAt"`
}

// VoidRange is a range of numbers of one type in a void.
type VoidRange struct {
	Type  string `json:"type"` // E31 … E47
	From  int64  `json:"from"`
	To    int64  `json:"to"`
	Count int64  `json:"count"`
}

// VoidRangeRequest is a range of numbers to void.
type VoidRangeRequest struct {
	// Type is the e-CF type, 31 or E31.
	Type string `json:"type"`
	// From and To are the first and last sequential numbers to void,
	// 1 ≤ From ≤ To ≤ 9999999999.
	From int64 `json:"from"`
	To   int64 `json:"to"`
}

// CreateVoidRequest is the numbers to void.
type CreateVoidRequest struct {
	// Ranges are up to 10 types and 10,000 ranges per type, no number
	// twice.
	Ranges []VoidRangeRequest `json:"ranges"`
	// IdempotencyKey makes retries safe; a random UUID is used when empty.
	IdempotencyKey string `json:"-"`
}

// VoidResponse is an answer carrying one void.
type VoidResponse struct {
	Void Void
	// Replayed is true when a create answered a repeat of an earlier create
	// with the same Idempotency-Key and body: nothing new was created.
	Replayed      bool
	CorrelationID string
}

// CreateVoid voids ranges of numbers (202, the void pending): from then on
// Sello never assigns them, whatever DGII answers; a job signs the ANECF,
// sends it to DGII and tells the outcome with void.updated. The request
// carries an Idempotency-Key, the same on every retry. It needs scope
// tenant:admin.
//
// Numbers used by a document are cancelled with a credit note (E34), not
// voided.
//
// API errors: INVALID_REQUEST (no range, an unknown type, bounds out of
// order, a number twice, beyond DGII's limits), VALIDATION_FAILED (numbers
// in no registered range, assigned to a document or held by an earlier
// void), IDEMPOTENCY_KEY_REUSED.
func (c *Client) CreateVoid(ctx context.Context, req CreateVoidRequest) (*VoidResponse, error) {
	body, err := marshalBody(req)
	if err != nil {
		return nil, err
	}
	header, err := idempotencyHeader(req.IdempotencyKey)
	if err != nil {
		return nil, err
	}
	resp, err := c.do(ctx, request{method: http.MethodPost, path: "/anulaciones", body: body, header: header})
	if err != nil {
		return nil, err
	}
	v, cid, err := one[Void](resp, "void")
	if err != nil {
		return nil, err
	}
	return &VoidResponse{Void: v, Replayed: resp.header.Get("Idempotent-Replayed") == "true", CorrelationID: cid}, nil
}

// ListVoidsParams pages ListVoids.
type ListVoidsParams struct {
	// Cursor is the previous page's NextCursor; "" for the first page.
	Cursor string
	// Limit is the page size, 1 to 200; 0 for the server's default (50).
	Limit int
}

// ListVoids returns one page of the tenant's voids, newest first. It needs
// scope tenant:admin. API errors: INVALID_REQUEST (a malformed Cursor or
// Limit).
func (c *Client) ListVoids(ctx context.Context, p ListVoidsParams) (*Page[Void], error) {
	return list[Void](ctx, c, "/anulaciones", pageQuery{}.page(p.Cursor, p.Limit))
}

// Voids ranges over every void of the tenant in the environment, newest
// first, fetching page after page. It stops at the first error, which it
// yields.
func (c *Client) Voids(ctx context.Context, p ListVoidsParams) iter.Seq2[*Void, error] {
	return every(p.Cursor, func(cursor string) (*Page[Void], error) {
		p.Cursor = cursor
		return c.ListVoids(ctx, p)
	})
}

// GetVoid returns the void with id. It needs scope tenant:admin. API
// errors: NOT_FOUND.
func (c *Client) GetVoid(ctx context.Context, id string) (*VoidResponse, error) {
	seg, err := pathID("void", id)
	if err != nil {
		return nil, err
	}
	v, cid, err := get[Void](ctx, c, "/anulaciones"+seg, "void")
	if err != nil {
		return nil, err
	}
	return &VoidResponse{Void: v, CorrelationID: cid}, nil
}

// GetVoidXML returns the void's signed ANECF exactly as sent to DGII. It
// needs scope tenant:admin. API errors: NOT_FOUND (also until the job
// signed it).
func (c *Client) GetVoidXML(ctx context.Context, id string) ([]byte, error) {
	seg, err := pathID("void", id)
	if err != nil {
		return nil, err
	}
	return c.file(ctx, "/anulaciones"+seg+"/xml", "application/xml")
}
