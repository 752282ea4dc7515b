package sello

import (
	"context"
	"crypto/sha256"
	"fmt"
	"time"
)

// InboundDocument is an e-CF a supplier posted to a tenant's receiver
// (DESIGN §6) and Sello acknowledged as received (ARECF Estado 0). Several
// different documents may be kept under one issuer RNC and e-NCF until DGII
// confirms one of them (DGII, inbound_dgii.go); the same bytes are kept
// once. A refused one (Estado 1) is not kept: the supplier may post it
// again once corrected.
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
	// ends there; DGII confirms the rest.
	Signer *Signer
	// SecurityCode is the e-CF's security code, the first six characters
	// of its SignatureValue, "" for a document received before Sello
	// asked DGII.
	SecurityCode string
	// DGII is DGII's confirmation of the document (RecordInboundDGII), nil
	// for a document received before Sello asked DGII.
	DGII *InboundDGII
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
	return d.event(EventInboundReceived, "info", fmt.Sprintf("Document %s received from RNC %s.", d.ENCF, d.IssuerRNC), now)
}

// event is d's event of type t: the document's snapshot (status
// received), and its id, type, e-NCF and issuer in the payload.
func (d *InboundDocument) event(t EventType, severity, msg string, now time.Time) *Event {
	return &Event{
		ID:          NewID(),
		Type:        t,
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
			Severity: severity,
			Message:  msg,
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
	// InsertInboundDocument writes d unless the tenant already has the
	// same bytes under d.IssuerRNC and d.ENCF in d.Environment (a
	// concurrent receipt of the same e-CF): inserted is false then, and
	// nothing is written. Returns NOT_FOUND when the tenant does not
	// exist.
	InsertInboundDocument(ctx context.Context, d *InboundDocument) (inserted bool, err error)
	// InboundDocumentsByENCF returns every document the tenant received
	// of issuerRNC and encf in env, oldest first.
	InboundDocumentsByENCF(ctx context.Context, tenantID string, env Environment, issuerRNC, encf string) ([]*InboundDocument, error)
	// InsertEvent writes ev to the outbox with its webhook deliveries.
	InsertEvent(ctx context.Context, ev *Event) error
	// InsertJobs inserts jobs, to run once the transaction commits.
	InsertJobs(ctx context.Context, jobs []Job) error
}

// sameOrConfirmed is, among docs, the one holding the same bytes as xml,
// else the one DGII accepted, else nil.
func sameOrConfirmed(docs []*InboundDocument, xml []byte) *InboundDocument {
	var accepted *InboundDocument
	for _, o := range docs {
		if o.Same(xml) {
			return o
		} else if o.DGII != nil && o.DGII.Status == DGIIAccepted {
			accepted = o
		}
	}
	return accepted
}

// StoreInboundDocument stores d, received, in the one transaction inTx runs
// (the store's; now is the time read in it): the document with its ID,
// Approval (pending), DGII (pending), ReceivedAt and UpdatedAt set, its
// tax.public.receiver.ecf.received event and its InboundConfirmJob. When
// the tenant already has, under d.IssuerRNC and d.ENCF in d.Environment,
// the same bytes, or a document DGII accepted, it stores nothing and
// returns that one with existing = true (the caller tells the two apart
// with Same). Other documents under the e-NCF do not stop d: DGII's
// confirmation decides between them. Stores implement
// InboundStore.CreateInboundDocument with it. Returns INVALID_REQUEST
// (CheckNew) and NOT_FOUND when the tenant does not exist.
func StoreInboundDocument(ctx context.Context, d *InboundDocument, inTx func(fn func(tx InboundTx, now time.Time) error) error) (stored *InboundDocument, existing bool, err error) {
	if err := d.CheckNew(); err != nil {
		return nil, false, err
	}
	err = inTx(func(tx InboundTx, now time.Time) error {
		n := *d
		n.ID, n.Approval, n.ReceivedAt, n.UpdatedAt = NewID(), ApprovalPending, now, now
		n.DGII = &InboundDGII{Status: DGIIPending}
		docs, err := tx.InboundDocumentsByENCF(ctx, n.TenantID, n.Environment, n.IssuerRNC, n.ENCF)
		if err != nil {
			return err
		}
		if stored = sameOrConfirmed(docs, n.XML); stored != nil {
			existing = true
			return nil
		}
		inserted, err := tx.InsertInboundDocument(ctx, &n)
		if err != nil {
			return err
		}
		if !inserted {
			// The same bytes, received at the same time.
			docs, err := tx.InboundDocumentsByENCF(ctx, n.TenantID, n.Environment, n.IssuerRNC, n.ENCF)
			if err != nil {
				return err
			}
			if stored = sameOrConfirmed(docs, n.XML); stored == nil {
				return fmt.Errorf("store inbound document %s of RNC %s: not inserted, and no document holds its bytes", n.ENCF, n.IssuerRNC)
			}
			existing = true
			return nil
		}
		stored, existing = &n, false
		// What a received document sets off, in the transaction that
		// stores it: its event and the job that asks DGII to confirm it.
		if err := tx.InsertEvent(ctx, NewInboundReceivedEvent(&n, now)); err != nil {
			return err
		}
		return tx.InsertJobs(ctx, []Job{InboundConfirmJob{TenantID: n.TenantID, Environment: n.Environment, InboundDocumentID: n.ID}})
	})
	if err != nil {
		return nil, false, err
	}
	return stored, existing, nil
}

// InboundStore keeps the documents suppliers send to a tenant's receiver.
type InboundStore interface {
	// CreateInboundDocument stores d (StoreInboundDocument): the
	// document, its acuse, its tax.public.receiver.ecf.received event and
	// its InboundConfirmJob in one transaction, or, when the tenant
	// already has d's bytes or a document DGII accepted under d.IssuerRNC
	// and d.ENCF in d.Environment, that one with existing = true. Returns
	// INVALID_REQUEST (CheckNew) and NOT_FOUND if the tenant does not
	// exist.
	CreateInboundDocument(ctx context.Context, d *InboundDocument) (stored *InboundDocument, existing bool, err error)
	// FindInboundDocument returns NOT_FOUND if the tenant has no such
	// document in env.
	FindInboundDocument(ctx context.Context, tenantID string, env Environment, id string) (*InboundDocument, error)
	// FindInboundDocumentByENCF returns the tenant's document of issuerRNC
	// and encf in env: the one DGII accepted, else the first received.
	// Returns NOT_FOUND.
	FindInboundDocumentByENCF(ctx context.Context, tenantID string, env Environment, issuerRNC, encf string) (*InboundDocument, error)
	// FindInboundDocumentsByENCF returns every document the tenant
	// received of issuerRNC and encf in env, oldest first; none is not an
	// error.
	FindInboundDocumentsByENCF(ctx context.Context, tenantID string, env Environment, issuerRNC, encf string) ([]*InboundDocument, error)
	// RecordInboundDGII records what the confirmation job learnt about the
	// tenant's inbound document id (RecordInboundDGII: the documents it
	// changes and their events in one transaction) and returns the
	// document after. Returns NOT_FOUND.
	RecordInboundDGII(ctx context.Context, tenantID string, env Environment, id string, ans InboundDGIIAnswer) (*InboundDocument, error)
	// ListInboundDocuments returns a page of the tenant's inbound documents
	// in env, newest received first and without their XML and acuse, and
	// the cursor of the next page ("" on the last). Returns INVALID_REQUEST
	// for a malformed cursor.
	ListInboundDocuments(ctx context.Context, tenantID string, env Environment, f InboundFilter) (docs []*InboundDocument, next string, err error)
	// IssuerQuotaReached reports whether the tenant holds quota (more than
	// 0) or more documents of issuerRNC in env, received at or after
	// since, that DGII has not accepted (what ReceiverLimits.IssuerQuota
	// bounds), and, when it does, the receivedAt of the earliest of the
	// latest quota of them: once that one leaves the window the issuer is
	// under the quota again. It need not tell which documents DGII
	// accepted while fewer than quota arrived at all, so the usual answer
	// costs a bounded range of an index.
	IssuerQuotaReached(ctx context.Context, tenantID string, env Environment, issuerRNC string, since time.Time, quota int) (reached bool, earliest time.Time, err error)
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
	// DGII is a confirmation state (DGIIPending, DGIIAccepted, …), ""
	// for any.
	DGII string
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
	Signer *SignerResource `json:"signer"`
	// SecurityCode is the e-CF's security code, null for a document
	// received before Sello asked DGII.
	SecurityCode *string `json:"securityCode"`
	// DGII is DGII's confirmation, null for a document received before
	// Sello asked DGII.
	DGII       *InboundDGIIResource `json:"dgii"`
	ReceivedAt string               `json:"receivedAt"`
	UpdatedAt  string               `json:"updatedAt"`
}

// InboundIssuer is the supplier who issued an inbound document.
type InboundIssuer struct {
	RNC  string `json:"rnc"`
	Name string `json:"name"`
}

// Resource returns the public form of d.
func (d *InboundDocument) Resource() InboundDocumentResource {
	return InboundDocumentResource{
		ID:           d.ID,
		Type:         d.Type.Code(),
		ENCF:         d.ENCF,
		Issuer:       InboundIssuer{RNC: d.IssuerRNC, Name: d.IssuerName},
		BuyerRNC:     d.BuyerRNC,
		IssueDate:    d.IssueDate.String(),
		Total:        d.Total,
		Approval:     d.Approval,
		Signer:       d.Signer.Resource(),
		SecurityCode: nullable(d.SecurityCode),
		DGII:         d.DGII.Resource(),
		ReceivedAt:   FormatTime(d.ReceivedAt),
		UpdatedAt:    FormatTime(d.UpdatedAt),
	}
}

// InboundDocumentByENCFNotFound is the NOT_FOUND of a lookup by issuer and
// e-NCF.
func InboundDocumentByENCFNotFound(issuerRNC, encf string) error {
	return Errorf(CodeNotFound, "No inbound document %s from RNC %s.", encf, issuerRNC)
}
