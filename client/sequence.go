package client

import (
	"context"
	"iter"
	"net/http"
	"time"
)

// SequenceState is the state of a range of e-NCF numbers.
type SequenceState string

// The states of a range.
const (
	// SequenceActive: numbers are assigned from it.
	SequenceActive SequenceState = "active"
	// SequenceExpired: its expiry (in the Dominican Republic) has passed.
	SequenceExpired SequenceState = "expired"
	// SequenceExhausted: every number was assigned. Expired wins over
	// exhausted.
	SequenceExhausted SequenceState = "exhausted"
)

// Sequence is a range of e-NCF numbers DGII authorized the tenant, as
// registered in Sello (the OpenAPI's Sequence).
type Sequence struct {
	ID   string `json:"id"`
	Type string `json:"type"` // E31 … E47
	// From and To are the range's first and last sequential numbers.
	From int64 `json:"from"`
	To   int64 `json:"to"`
	// Next is the e-NCF Sello assigns next from the range; nil once every
	// number was assigned.
	Next *string `json:"next"`
	// Used and Left count the numbers assigned and not yet assigned.
	Used int64 `json:"used"`
	Left int64 `json:"left"`
	// ExpiresOn is the authorization's expiry, yyyy-MM-dd (usable through
	// that whole day in the Dominican Republic); nil for types 32 and 34.
	ExpiresOn *string       `json:"expiresOn"`
	State     SequenceState `json:"state"`
	CreatedAt time.Time     `json:"createdAt"`
}

// CreateSequenceRequest is a range to register.
type CreateSequenceRequest struct {
	// Type is the e-CF type, 31 or E31.
	Type string `json:"type"`
	// From and To are the range's first and last sequential numbers,
	// 1 ≤ From ≤ To ≤ 9999999999.
	From int64 `json:"from"`
	To   int64 `json:"to"`
	// ExpiresOn is the authorization's expiry (FechaVencimientoSecuencia),
	// yyyy-MM-dd (DGII's dd-MM-yyyy is taken too): required for every type
	// but 32 and 34, which must leave it empty.
	ExpiresOn string `json:"expiresOn,omitempty"`
}

// SequenceResponse is an answer carrying one range.
type SequenceResponse struct {
	Sequence      Sequence
	CorrelationID string
}

// CreateSequence registers a range DGII authorized the tenant (201), in the
// client's environment only. It needs scope tenant:admin.
//
// The API takes no Idempotency-Key here, and needs none: a range that
// overlaps a registered one is refused, so a retry whose first attempt's
// answer was lost gets VALIDATION_FAILED naming the range it registered
// (ListSequences shows it) instead of a second range.
//
// API errors: INVALID_REQUEST (an unknown type, From or To out of bounds,
// ExpiresOn missing, malformed or given for 32 or 34), VALIDATION_FAILED
// (the range has expired, or overlaps a registered range of its type).
func (c *Client) CreateSequence(ctx context.Context, req CreateSequenceRequest) (*SequenceResponse, error) {
	body, err := marshalBody(req)
	if err != nil {
		return nil, err
	}
	resp, err := c.do(ctx, request{method: http.MethodPost, path: "/secuencias", body: body})
	if err != nil {
		return nil, err
	}
	s, cid, err := one[Sequence](resp, "sequence")
	if err != nil {
		return nil, err
	}
	return &SequenceResponse{Sequence: s, CorrelationID: cid}, nil
}

// ListSequencesParams pages ListSequences.
type ListSequencesParams struct {
	// Cursor is the previous page's NextCursor; "" for the first page.
	Cursor string
	// Limit is the page size, 1 to 200; 0 for the server's default (50).
	Limit int
}

// ListSequences returns one page of the tenant's ranges in the environment,
// by type and start. It needs scope tenant:admin. API errors:
// INVALID_REQUEST (a malformed Cursor or Limit).
func (c *Client) ListSequences(ctx context.Context, p ListSequencesParams) (*Page[Sequence], error) {
	return list[Sequence](ctx, c, "/secuencias", pageQuery{}.page(p.Cursor, p.Limit))
}

// Sequences ranges over every range of the tenant in the environment,
// fetching page after page. It stops at the first error, which it yields.
func (c *Client) Sequences(ctx context.Context, p ListSequencesParams) iter.Seq2[*Sequence, error] {
	return every(p.Cursor, func(cursor string) (*Page[Sequence], error) {
		p.Cursor = cursor
		return c.ListSequences(ctx, p)
	})
}
