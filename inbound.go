package sello

import (
	"context"
	"crypto/sha256"
	"fmt"
	"time"
)

// InboundDocument is an e-CF a supplier posted to a tenant's receiver
// (DESIGN §6) and Sello acknowledged as received (ARECF Estado 0). It is
// unique per tenant, environment, issuer RNC and e-NCF. A refused one
// (Estado 1) is not kept: the supplier may post it again once corrected.
type InboundDocument struct {
	ID          string
	TenantID    string
	Environment Environment
	Type        DocumentType
	ENCF        string
	IssuerRNC   string
	IssuerName  string
	BuyerRNC    string
	IssueDate   Date
	Total       string // MontoTotal as written in the e-CF
	// XML is the e-CF as received, byte for byte.
	XML []byte
	// Acuse is the signed ARECF Sello answered.
	Acuse []byte
	// Signer is who signed the e-CF (CheckSigner), nil for a document
	// received before Sello recorded signers. What Sello can check of it
	// ends there; DGII's confirmation of the document (consultaestado,
	// FACTS §1.6) is to be recorded beside it.
	Signer *Signer
	// Approval is the tenant's commercial approval (ApprovalPending,
	// ApprovalApproved, ApprovalRejected).
	Approval   string
	ReceivedAt time.Time
	UpdatedAt  time.Time
}

// InboundStatusReceived is the status in the document snapshot of an
// inbound document's events: it has no fiscal status of Sello's own.
const InboundStatusReceived Status = "received"

// Same reports whether xml is the e-CF d holds, byte for byte: a supplier's
// retry, answered with the stored acuse, rather than another document
// under the same e-NCF (a duplicate, ARECF code 3).
func (d *InboundDocument) Same(xml []byte) bool {
	return sha256.Sum256(xml) == sha256.Sum256(d.XML)
}

// CheckNew refuses an inbound document a store cannot keep. Returns
// INVALID_REQUEST.
func (d *InboundDocument) CheckNew() error {
	switch {
	case d.TenantID == "":
		return Errorf(CodeInvalidRequest, "Inbound document: tenant required.")
	case d.Environment == "":
		return Errorf(CodeInvalidRequest, "Inbound document: environment required.")
	case d.ENCF == "" || d.IssuerRNC == "" || d.Type == "":
		return Errorf(CodeInvalidRequest, "Inbound document: issuer RNC, type and e-NCF required.")
	case len(d.XML) == 0 || len(d.Acuse) == 0:
		return Errorf(CodeInvalidRequest, "Inbound document %s: the e-CF and its acuse are required.", d.ENCF)
	}
	return nil
}

// NewInboundReceivedEvent is the tax.public.receiver.ecf.received event of
// d (spec §6.3): data.payload.inboundDocumentId is what a commercial
// approval names.
func NewInboundReceivedEvent(d *InboundDocument, now time.Time) *Event {
	return &Event{
		ID:          NewID(),
		Type:        EventInboundReceived,
		CreatedAt:   now,
		TenantID:    d.TenantID,
		Environment: d.Environment,
		Document: &EventDocument{
			ID:     d.ID,
			Type:   d.Type.Code(),
			ENCF:   d.ENCF,
			Status: InboundStatusReceived,
		},
		Data: EventData{
			Severity: "info",
			Message:  fmt.Sprintf("Document %s received from RNC %s.", d.ENCF, d.IssuerRNC),
			Payload: map[string]any{
				"inboundDocumentId": d.ID,
				"type":              d.Type.Code(),
				"encf":              d.ENCF,
				"issuer":            map[string]any{"rnc": d.IssuerRNC, "name": d.IssuerName},
			},
		},
	}
}

// InboundDocumentNotFound is the NOT_FOUND of a lookup by id.
func InboundDocumentNotFound(id string) error {
	return Errorf(CodeNotFound, "Inbound document %q not found.", id)
}

// InboundTx is what StoreInboundDocument asks of the transaction that
// stores a received document: the statements, no rules.
type InboundTx interface {
	// InsertInboundDocument writes d unless the tenant already has a
	// document of d.IssuerRNC and d.ENCF in d.Environment: inserted is
	// false then, and nothing is written. Returns NOT_FOUND when the
	// tenant does not exist.
	InsertInboundDocument(ctx context.Context, d *InboundDocument) (inserted bool, err error)
	// InboundDocumentByENCF returns the tenant's document of issuerRNC and
	// encf in env. Returns NOT_FOUND.
	InboundDocumentByENCF(ctx context.Context, tenantID string, env Environment, issuerRNC, encf string) (*InboundDocument, error)
	// InsertEvent writes ev to the outbox with its webhook deliveries.
	InsertEvent(ctx context.Context, ev *Event) error
}

// StoreInboundDocument stores d, received, in the one transaction inTx runs
// (the store's; now is the time read in it): the document with its ID,
// Approval (pending), ReceivedAt and UpdatedAt set, and its
// tax.public.receiver.ecf.received event. When the tenant already has a
// document of d.IssuerRNC and d.ENCF in d.Environment it stores nothing
// and returns that one with existing = true. Stores implement
// InboundStore.CreateInboundDocument with it. Returns INVALID_REQUEST
// (CheckNew) and NOT_FOUND when the tenant does not exist.
func StoreInboundDocument(ctx context.Context, d *InboundDocument, inTx func(fn func(tx InboundTx, now time.Time) error) error) (stored *InboundDocument, existing bool, err error) {
	if err := d.CheckNew(); err != nil {
		return nil, false, err
	}
	err = inTx(func(tx InboundTx, now time.Time) error {
		n := *d
		n.ID, n.Approval, n.ReceivedAt, n.UpdatedAt = NewID(), ApprovalPending, now, now
		inserted, err := tx.InsertInboundDocument(ctx, &n)
		if err != nil {
			return err
		}
		if !inserted {
			existing = true
			stored, err = tx.InboundDocumentByENCF(ctx, n.TenantID, n.Environment, n.IssuerRNC, n.ENCF)
			return err
		}
		stored, existing = &n, false
		// What a received document sets off, in the transaction that
		// stores it: its event (and, where DGII is to confirm it, the job
		// that asks DGII's consultaestado).
		return tx.InsertEvent(ctx, NewInboundReceivedEvent(&n, now))
	})
	if err != nil {
		return nil, false, err
	}
	return stored, existing, nil
}

// InboundStore keeps the documents suppliers send to a tenant's receiver.
type InboundStore interface {
	// CreateInboundDocument stores d (StoreInboundDocument): the
	// document, its acuse and its tax.public.receiver.ecf.received event
	// in one transaction, or, when the tenant already has a document of
	// d.IssuerRNC and d.ENCF in d.Environment, that one with existing =
	// true. Returns INVALID_REQUEST (CheckNew) and NOT_FOUND if the tenant
	// does not exist.
	CreateInboundDocument(ctx context.Context, d *InboundDocument) (stored *InboundDocument, existing bool, err error)
	// FindInboundDocument returns NOT_FOUND if the tenant has no such
	// document in env.
	FindInboundDocument(ctx context.Context, tenantID string, env Environment, id string) (*InboundDocument, error)
	// FindInboundDocumentByENCF returns the tenant's document of issuerRNC
	// and encf in env. Returns NOT_FOUND.
	FindInboundDocumentByENCF(ctx context.Context, tenantID string, env Environment, issuerRNC, encf string) (*InboundDocument, error)
	// ListInboundDocuments returns a page of the tenant's inbound documents
	// in env, newest received first and without their XML and acuse, and
	// the cursor of the next page ("" on the last). Returns INVALID_REQUEST
	// for a malformed cursor.
	ListInboundDocuments(ctx context.Context, tenantID string, env Environment, f InboundFilter) (docs []*InboundDocument, next string, err error)
	// CountInboundFromIssuer counts the tenant's documents of issuerRNC in
	// env received at or after since, and returns the receivedAt of the
	// earliest of them (zero when none): what IssuerQuota counts.
	CountInboundFromIssuer(ctx context.Context, tenantID string, env Environment, issuerRNC string, since time.Time) (n int, earliest time.Time, err error)
}

// InboundFilter selects inbound documents in ListInboundDocuments.
type InboundFilter struct {
	IssuerRNC string // "" for any
	// ENCF keeps the documents of that e-NCF ("" for any): with IssuerRNC,
	// at most one.
	ENCF string
	Type DocumentType // "" for any
	// Approval is ApprovalPending, ApprovalApproved or ApprovalRejected,
	// "" for any.
	Approval string
	// ReceivedFrom and ReceivedTo bound receivedAt, inclusive and
	// exclusive.
	ReceivedFrom *time.Time
	ReceivedTo   *time.Time
	// Cursor is the NextCursor of the previous page, "" for the first
	// (FormatCursor of receivedAt and id).
	Cursor string
	// Limit is the page size, 1 to MaxPageSize (DefaultPageSize when 0).
	Limit int
}

// PageSize is f's limit within 1 to MaxPageSize, DefaultPageSize when
// unset.
func (f InboundFilter) PageSize() int { return pageSize(f.Limit) }

// NextInboundPage cuts a page read with one row more than limit (the
// engines read limit+1 to know whether another page follows) and returns
// it with the cursor of the next page, "" on the last.
func NextInboundPage(docs []*InboundDocument, limit int) ([]*InboundDocument, string) {
	return cutPage(docs, limit, func(d *InboundDocument) (time.Time, string) { return d.ReceivedAt, d.ID })
}

// pageSize is limit within 1 to MaxPageSize, DefaultPageSize when unset.
func pageSize(limit int) int {
	if limit <= 0 {
		return DefaultPageSize
	}
	return min(limit, MaxPageSize)
}

// cutPage cuts a page of a keyset list read with one item more than limit
// and returns it with the cursor of the next page (FormatCursor of the
// last item's key), "" on the last.
func cutPage[T any](items []T, limit int, key func(T) (time.Time, string)) ([]T, string) {
	if len(items) <= limit {
		return items, ""
	}
	items = items[:limit]
	return items, FormatCursor(key(items[limit-1]))
}

// ParseApprovalState returns the commercial approval state named s
// (pending, approved, rejected). Returns INVALID_REQUEST.
func ParseApprovalState(s string) (string, error) {
	switch s {
	case ApprovalPending, ApprovalApproved, ApprovalRejected:
		return s, nil
	}
	return "", Errorf(CodeInvalidRequest, "Unknown approval state %q: use pending, approved or rejected.", s)
}

// InboundDocumentResource is the public form of an inbound document in the
// API (GET /{env}/documentos-recibidos): times in UTC ISO 8601 with
// milliseconds.
type InboundDocumentResource struct {
	ID        string        `json:"id"`
	Type      string        `json:"type"`
	ENCF      string        `json:"encf"`
	Issuer    InboundIssuer `json:"issuer"`
	BuyerRNC  string        `json:"buyerRnc"`
	IssueDate string        `json:"issueDate"`
	Total     string        `json:"total"`
	Approval  string        `json:"approval"`
	// Signer is who signed the e-CF, null for a document received before
	// Sello recorded signers.
	Signer     *SignerResource `json:"signer"`
	ReceivedAt string          `json:"receivedAt"`
	UpdatedAt  string          `json:"updatedAt"`
}

// InboundIssuer is the supplier who issued an inbound document.
type InboundIssuer struct {
	RNC  string `json:"rnc"`
	Name string `json:"name"`
}

// Resource returns the public form of d.
func (d *InboundDocument) Resource() InboundDocumentResource {
	return InboundDocumentResource{
		ID:         d.ID,
		Type:       d.Type.Code(),
		ENCF:       d.ENCF,
		Issuer:     InboundIssuer{RNC: d.IssuerRNC, Name: d.IssuerName},
		BuyerRNC:   d.BuyerRNC,
		IssueDate:  d.IssueDate.String(),
		Total:      d.Total,
		Approval:   d.Approval,
		Signer:     d.Signer.Resource(),
		ReceivedAt: FormatTime(d.ReceivedAt),
		UpdatedAt:  FormatTime(d.UpdatedAt),
	}
}

// InboundDocumentByENCFNotFound is the NOT_FOUND of a lookup by issuer and
// e-NCF.
func InboundDocumentByENCFNotFound(issuerRNC, encf string) error {
	return Errorf(CodeNotFound, "No inbound document %s from RNC %s.", encf, issuerRNC)
}
