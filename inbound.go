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
	ITBIS       string // TotalITBIS as written, "" when the e-CF has none
	// XML is the e-CF as received, byte for byte.
	XML []byte
	// XMLSum is the SHA-256 of XML, what the stores key a document's
	// bytes by, when its maker has it (reception hashes the bytes to look
	// them up): StoreInboundDocument then does not hash them again (a
	// 287 KB e-CF takes about 0.3 ms). Zero when not known. It is input
	// only: the stores neither keep it as a field nor return it.
	XMLSum [32]byte
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

// InboundENCF is what a tenant holds under one issuer's e-NCF in an
// environment, as the receipt of a document needs it: found through
// indexes, with no other document's XML read, so that a receipt costs the
// same however many documents the e-NCF holds.
type InboundENCF struct {
	// Same is the document with the receipt's bytes (their SHA-256), whole,
	// nil when none.
	Same *InboundDocument
	// Accepted is the document DGII accepted, nil when none.
	Accepted *AcceptedInbound
	// Unconfirmed counts the documents DGII has not confirmed (pending or
	// not_found) received at or after the time asked; Earliest is the
	// receivedAt of the earliest of them, zero when none. What
	// ReceiverLimits.ENCFQuota counts.
	Unconfirmed int
	Earliest    time.Time
}

// AcceptedInbound is the document DGII accepted under an issuer's e-NCF,
// as reception and the confirmation name it.
type AcceptedInbound struct {
	ID           string
	SecurityCode string
	ReceivedAt   time.Time
}

// InboundTx is what StoreInboundDocument asks of the transaction that
// stores a received document: the statements, no rules.
type InboundTx interface {
	// LockInboundENCF holds the tenant's issuerRNC and encf in env until
	// the transaction ends, where the engine does not run one writer at a
	// time: receipts and confirmations of one e-NCF take turns.
	LockInboundENCF(ctx context.Context, tenantID string, env Environment, issuerRNC, encf string) error
	// InboundENCF returns what the tenant holds under issuerRNC and encf
	// in env for a receipt of the bytes whose SHA-256 is sum, counting the
	// unconfirmed documents received at or after since.
	InboundENCF(ctx context.Context, tenantID string, env Environment, issuerRNC, encf string, sum [32]byte, since time.Time) (*InboundENCF, error)
	// InsertInboundDocument writes d, whose XML's SHA-256 is sum, unless
	// the tenant already has the
	// same bytes under d.IssuerRNC and d.ENCF in d.Environment: inserted
	// is false then, and nothing is written. Returns NOT_FOUND when the
	// tenant does not exist.
	InsertInboundDocument(ctx context.Context, d *InboundDocument, sum [32]byte) (inserted bool, err error)
	// InsertEvent writes ev to the outbox with its webhook deliveries.
	InsertEvent(ctx context.Context, ev *Event) error
	// QueueInboundConfirm adds d to the confirmation queue, the store's
	// own table of documents whose InboundConfirmJob is not inserted yet
	// (QueueInboundConfirmJobs inserts it), once the transaction commits.
	QueueInboundConfirm(ctx context.Context, d *InboundDocument) error
	// AddIssuerReceipts adds n (1 or -1) to the tenant's count of
	// documents of issuerRNC received in env in the hour that starts at
	// hour (IssuerQuotaHour), creating it at n.
	AddIssuerReceipts(ctx context.Context, tenantID string, env Environment, issuerRNC string, hour time.Time, n int) error
}

// StoreInboundDocument stores d, received, in the one transaction inTx runs
// (the store's; now is the time read in it): the document with its ID,
// Approval (pending), DGII (pending), ReceivedAt and UpdatedAt set, its
// tax.public.receiver.ecf.received event, its entry in the confirmation
// queue (QueueInboundConfirm: the job runners turn it into its
// InboundConfirmJob, QueueInboundConfirmJobs) and one more in its issuer's
// count of the hour (AddIssuerReceipts), and returns it. When the tenant
// already holds, under d.IssuerRNC and d.ENCF in d.Environment, the same
// bytes or a document DGII accepted, it stores nothing and returns what it
// holds instead (InboundENCF: Same, else Accepted). Other documents under
// the e-NCF do not stop d, DGII's confirmation decides between them, unless
// quota (more than 0) of them are unconfirmed and received within
// ENCFQuotaWindow: then it stores nothing (ENCFQuotaExceeded). Stores implement
// InboundStore.CreateInboundDocument with it. Returns INVALID_REQUEST
// (CheckNew), RATE_LIMITED and NOT_FOUND when the tenant does not exist.
func StoreInboundDocument(ctx context.Context, d *InboundDocument, quota int, inTx func(fn func(tx InboundTx, now time.Time) error) error) (stored *InboundDocument, held *InboundENCF, err error) {
	if err := d.CheckNew(); err != nil {
		return nil, nil, err
	}
	sum := d.XMLSum
	if sum == ([32]byte{}) {
		sum = sha256.Sum256(d.XML)
	}
	err = inTx(func(tx InboundTx, now time.Time) error {
		stored, held = nil, nil
		n := *d
		n.XMLSum = [32]byte{}
		n.ID, n.Approval, n.ReceivedAt, n.UpdatedAt = NewID(), ApprovalPending, now, now
		n.DGII = &InboundDGII{Status: DGIIPending}
		if err := tx.LockInboundENCF(ctx, n.TenantID, n.Environment, n.IssuerRNC, n.ENCF); err != nil {
			return err
		}
		h, err := tx.InboundENCF(ctx, n.TenantID, n.Environment, n.IssuerRNC, n.ENCF, sum, now.Add(-ENCFQuotaWindow))
		if err != nil {
			return err
		}
		if h.Same != nil || h.Accepted != nil {
			held = h
			return nil
		}
		if err := h.CheckQuota(quota, n.IssuerRNC, n.ENCF, now); err != nil {
			return err
		}
		inserted, err := tx.InsertInboundDocument(ctx, &n, sum)
		if err != nil {
			return err
		}
		if !inserted {
			// The same bytes, stored meanwhile by an engine that does not
			// take the lock.
			if held, err = tx.InboundENCF(ctx, n.TenantID, n.Environment, n.IssuerRNC, n.ENCF, sum, now); err != nil {
				return err
			} else if held.Same == nil {
				return fmt.Errorf("store inbound document %s of RNC %s: not inserted, and no document holds its bytes", n.ENCF, n.IssuerRNC)
			}
			return nil
		}
		stored = &n
		// What a received document sets off, in the transaction that
		// stores it: its event and its entry in the confirmation queue,
		// whose job asks DGII to confirm it. The entry, not the job: River's
		// insert was the largest part of a receipt after the acuse's
		// signature (docs/decisions.md).
		if err := tx.InsertEvent(ctx, NewInboundReceivedEvent(&n, now)); err != nil {
			return err
		}
		if err := tx.QueueInboundConfirm(ctx, &n); err != nil {
			return err
		}
		// The issuer's count last: on an engine with row locks, receipts
		// of one issuer wait for each other's commit from here.
		return tx.AddIssuerReceipts(ctx, n.TenantID, n.Environment, n.IssuerRNC, IssuerQuotaHour(now), 1)
	})
	if err != nil {
		return nil, nil, err
	}
	return stored, held, nil
}

// InboundStore keeps the documents suppliers send to a tenant's receiver.
type InboundStore interface {
	// CreateInboundDocument stores d (StoreInboundDocument, with quota:
	// ReceiverLimits.ENCFQuota, 0 for none): the document, its acuse, its
	// tax.public.receiver.ecf.received event and its entry in the
	// confirmation queue in one transaction, and returns it; or, when the
	// tenant already holds d's bytes or a document DGII accepted under
	// d.IssuerRNC and d.ENCF in d.Environment, stores nothing and returns
	// what it holds (held.Same, else held.Accepted). Receipts of one e-NCF
	// take turns, so that quota is not passed. It reads no other
	// document's XML. Returns INVALID_REQUEST (CheckNew), RATE_LIMITED
	// (ENCFQuotaExceeded) and NOT_FOUND if the tenant does not exist.
	CreateInboundDocument(ctx context.Context, d *InboundDocument, quota int) (stored *InboundDocument, held *InboundENCF, err error)
	// FindInboundENCF returns what the tenant holds under issuerRNC and
	// encf in env for a receipt of the bytes whose SHA-256 is sum
	// (InboundENCF), counting the unconfirmed documents received at or
	// after since: two lookups and a count, each through an index, that
	// read no other document's XML.
	FindInboundENCF(ctx context.Context, tenantID string, env Environment, issuerRNC, encf string, sum [32]byte, since time.Time) (*InboundENCF, error)
	// FindInboundDocument returns NOT_FOUND if the tenant has no such
	// document in env.
	FindInboundDocument(ctx context.Context, tenantID string, env Environment, id string) (*InboundDocument, error)
	// FindInboundDocumentByENCF returns the tenant's document of issuerRNC
	// and encf in env: the one DGII accepted, else the first received.
	// Returns NOT_FOUND.
	FindInboundDocumentByENCF(ctx context.Context, tenantID string, env Environment, issuerRNC, encf string) (*InboundDocument, error)
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
	// CountInboundFromIssuer counts the tenant's documents of issuerRNC in
	// env received at or after since, and returns the receivedAt of the
	// earliest of them (zero when none): what IssuerQuota counts.
	CountInboundFromIssuer(ctx context.Context, tenantID string, env Environment, issuerRNC string, since time.Time) (n int, earliest time.Time, err error)
	// CountInboundFromIssuerHours is CountInboundFromIssuer's n counted
	// from the hour of since (IssuerQuotaHour) on, by the hour's counts
	// the receipts and DGII's acceptances keep (AddIssuerReceipts): never
	// less than n, more by the documents received in since's hour before
	// since. It reads at most the window's hours' rows, however many
	// documents they count.
	CountInboundFromIssuerHours(ctx context.Context, tenantID string, env Environment, issuerRNC string, since time.Time) (int, error)
	// PruneIssuerReceipts deletes the issuer counts of hours that end at
	// or before since, and returns how many.
	PruneIssuerReceipts(ctx context.Context, since time.Time) (int64, error)
	// QueueInboundConfirmJobs moves up to limit entries of the
	// confirmation queue, oldest first, into River's queue as their
	// InboundConfirmJobs, and returns how many (QueueInboundConfirmJobs):
	// each entry becomes one job, however many transactions run it at
	// once. Reading an empty queue writes nothing.
	QueueInboundConfirmJobs(ctx context.Context, limit int) (int, error)
}

// InboundFilter selects inbound documents in ListInboundDocuments.
type InboundFilter struct {
	IssuerRNC string // "" for any
	// ENCF keeps the documents of that e-NCF ("" for any): with IssuerRNC,
	// the documents under one issuer's e-NCF (one unless DGII has not
	// confirmed one of several).
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
