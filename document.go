package sello

import (
	"encoding/base64"
	"encoding/json"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Status is a document's fiscal status (DESIGN §3).
type Status string

// The fiscal statuses. queued_for_signing → signed → submitted → accepted |
// accepted_conditional | rejected; or failed.
const (
	StatusQueuedForSigning    Status = "queued_for_signing"
	StatusSigned              Status = "signed"
	StatusSubmitted           Status = "submitted"
	StatusAccepted            Status = "accepted"
	StatusAcceptedConditional Status = "accepted_conditional"
	StatusRejected            Status = "rejected"
	StatusFailed              Status = "failed"
)

// Statuses lists every status in lifecycle order.
var Statuses = []Status{
	StatusQueuedForSigning, StatusSigned, StatusSubmitted, StatusAccepted,
	StatusAcceptedConditional, StatusRejected, StatusFailed,
}

// ParseStatus returns the status named s. Returns INVALID_REQUEST.
func ParseStatus(s string) (Status, error) {
	if st := Status(s); slices.Contains(Statuses, st) {
		return st, nil
	}
	return "", Errorf(CodeInvalidRequest, "Unknown status %q.", s)
}

// Final reports whether no further fiscal transition can happen.
func (s Status) Final() bool {
	switch s {
	case StatusAccepted, StatusAcceptedConditional, StatusRejected, StatusFailed:
		return true
	}
	return false
}

// Delivery statuses: the document's delivery to the buyer's receiver (see
// delivery.go). not_applicable: a type never exchanged, or a document that
// will not be accepted; not_sent: not accepted yet; pending: accepted, the
// delivery is under way; delivered, failed, not_electronic: its outcome.
// not_received is kept in the value set for rows of earlier versions; a
// buyer's "no recibido" is failed with the ARECF's code.
const (
	DeliveryNotApplicable = "not_applicable"
	DeliveryNotSent       = "not_sent"
	DeliveryPending       = "pending"
	DeliveryDelivered     = "delivered"
	DeliveryNotReceived   = "not_received"
	DeliveryFailed        = "failed"
	DeliveryNotElectronic = "not_electronic"
)

// Commercial approval statuses.
const (
	ApprovalPending  = "pending"
	ApprovalApproved = "approved"
	ApprovalRejected = "rejected"
	// ApprovalDisputed is a document's approval when signers of different
	// holders sent different verdicts (ReceivedApproval.Apply).
	ApprovalDisputed = "disputed"
)

// Document is an e-CF a tenant issued through Sello.
type Document struct {
	ID          string       `json:"id"`
	TenantID    string       `json:"tenantId"`
	Environment Environment  `json:"environment"`
	Type        DocumentType `json:"type"`
	ENCF        string       `json:"encf"`
	Status      Status       `json:"status"`
	// TrackID is DGII's tracking id, "" until DGII gives one.
	TrackID      string     `json:"trackId,omitempty"`
	SecurityCode string     `json:"securityCode,omitempty"`
	SignedAt     *time.Time `json:"signedAt,omitempty"`
	QRURL        string     `json:"qrUrl,omitempty"`
	// Total is MontoTotal, exact, with two decimals ("1180.00").
	Total string `json:"total"`
	// ITBIS is TotalITBIS, exact, with two decimals ("180.00"; "0.00"
	// when the e-CF has none).
	ITBIS              string              `json:"itbis,omitempty"`
	BuyerRNC           string              `json:"buyerRnc,omitempty"`
	IssueDate          Date                `json:"issueDate"`
	DGII               *DGIIResult         `json:"dgii,omitempty"`
	Delivery           Delivery            `json:"delivery"`
	CommercialApproval *CommercialApproval `json:"commercialApproval,omitempty"`
	// FailureReason says why a failed document cannot proceed.
	FailureReason string `json:"failureReason,omitempty"`
	// Contingency says the document was signed while its environment was
	// in contingency (Reachability.SignsInContingency): DGII was down.
	Contingency bool      `json:"contingency"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
	// Payload is the normalized e-CF as JSON ({"ECF":{…}}), with the e-NCF
	// and the computed totals filled in. It is what gets signed.
	Payload json.RawMessage `json:"-"`
}

// Delivery is the state of a document's delivery to the buyer's receiver.
type Delivery struct {
	Status string `json:"status"`
	// Code is the ARECF's CodigoMotivoNoRecibido when the buyer answered
	// that it did not receive the document.
	Code string `json:"code,omitempty"`
	// Reason says why a delivery failed.
	Reason string `json:"reason,omitempty"`
}

// DeliveryResource is the public form of a delivery: code and reason null
// unless the delivery failed with them.
type DeliveryResource struct {
	Status string  `json:"status"`
	Code   *string `json:"code"`
	Reason *string `json:"reason"`
}

// Resource returns the public form of d.
func (d Delivery) Resource() DeliveryResource {
	return DeliveryResource{Status: d.Status, Code: nullable(d.Code), Reason: nullable(d.Reason)}
}

// CommercialApproval is the buyer's commercial verdict on a document, as
// received in its signed ACECF (ReceivedApproval.Apply): the first verdict
// received, and every other verdict from another signer that differs from
// it.
type CommercialApproval struct {
	// Status is ApprovalApproved or ApprovalRejected, ApprovalDisputed
	// when verdicts differ.
	Status string `json:"status"`
	// Reason, BuyerRNC, DecidedAt, ReceivedAt and Signer are the first
	// verdict's.
	Reason string `json:"reason,omitempty"`
	// BuyerRNC is the RNCComprador of the buyer's ACECF.
	BuyerRNC string `json:"buyerRnc,omitempty"`
	// DecidedAt is the ACECF's FechaHoraAprobacionComercial.
	DecidedAt *time.Time `json:"decidedAt,omitempty"`
	// ReceivedAt is when Sello received the ACECF.
	ReceivedAt *time.Time `json:"receivedAt,omitempty"`
	Signer     *Signer    `json:"signer,omitempty"`
	// Verdicts are the verdicts received, first first; empty in an
	// approval recorded before Sello kept them (the fields above are its
	// one verdict: AllVerdicts).
	Verdicts []ApprovalVerdict `json:"verdicts,omitempty"`
}

// ApprovalVerdict is one signed ACECF's verdict on a document.
type ApprovalVerdict struct {
	// Status is ApprovalApproved or ApprovalRejected.
	Status     string     `json:"status"`
	Reason     string     `json:"reason,omitempty"`
	BuyerRNC   string     `json:"buyerRnc,omitempty"`
	DecidedAt  *time.Time `json:"decidedAt,omitempty"`
	ReceivedAt *time.Time `json:"receivedAt,omitempty"`
	// Signer is who signed the ACECF, nil when it was received before
	// Sello recorded signers.
	Signer *Signer `json:"signer,omitempty"`
}

// AllVerdicts returns a's verdicts, first first: none when a is nil.
func (a *CommercialApproval) AllVerdicts() []ApprovalVerdict {
	switch {
	case a == nil:
		return nil
	case len(a.Verdicts) > 0:
		return a.Verdicts
	case a.Status == ApprovalApproved || a.Status == ApprovalRejected:
		return []ApprovalVerdict{{Status: a.Status, Reason: a.Reason, BuyerRNC: a.BuyerRNC, DecidedAt: a.DecidedAt, ReceivedAt: a.ReceivedAt, Signer: a.Signer}}
	}
	return nil
}

// CommercialApprovalResource is the public form of a commercial approval
// (DocumentResource.CommercialApproval): null fields where the verdict did
// not say. Its reason, buyerRnc, decidedAt, receivedAt and signer are the
// first verdict's; verdicts lists them all.
type CommercialApprovalResource struct {
	Status     string                    `json:"status"`
	Reason     *string                   `json:"reason"`
	BuyerRNC   *string                   `json:"buyerRnc"`
	DecidedAt  *string                   `json:"decidedAt"`
	ReceivedAt *string                   `json:"receivedAt"`
	Signer     *SignerResource           `json:"signer"`
	Verdicts   []ApprovalVerdictResource `json:"verdicts"`
}

// ApprovalVerdictResource is the public form of an ApprovalVerdict.
type ApprovalVerdictResource struct {
	Status     string          `json:"status"`
	Reason     *string         `json:"reason"`
	BuyerRNC   *string         `json:"buyerRnc"`
	DecidedAt  *string         `json:"decidedAt"`
	ReceivedAt *string         `json:"receivedAt"`
	Signer     *SignerResource `json:"signer"`
}

// Resource returns the public form of v.
func (v ApprovalVerdict) Resource() ApprovalVerdictResource {
	return ApprovalVerdictResource{
		Status: v.Status, Reason: nullable(v.Reason), BuyerRNC: nullable(v.BuyerRNC),
		DecidedAt: formatTimePtr(v.DecidedAt), ReceivedAt: formatTimePtr(v.ReceivedAt), Signer: v.Signer.Resource(),
	}
}

// Resource returns the public form of a.
func (a *CommercialApproval) Resource() *CommercialApprovalResource {
	if a == nil {
		return nil
	}
	verdicts := a.AllVerdicts()
	r := &CommercialApprovalResource{
		Status: a.Status, Reason: nullable(a.Reason), BuyerRNC: nullable(a.BuyerRNC),
		DecidedAt: formatTimePtr(a.DecidedAt), ReceivedAt: formatTimePtr(a.ReceivedAt), Signer: a.Signer.Resource(),
		Verdicts: make([]ApprovalVerdictResource, len(verdicts)),
	}
	for i, v := range verdicts {
		r.Verdicts[i] = v.Resource()
	}
	return r
}

// B2B reports whether documents of type t travel to an electronic buyer
// (DGII: types 31, 33, 34 and 44) and so get a delivery and a commercial
// approval.
func (t DocumentType) B2B() bool {
	switch t {
	case TypeCreditoFiscal, TypeNotaDebito, TypeNotaCredito, TypeRegimenesEspeciales:
		return true
	}
	return false
}

// NewDocumentID returns a new document id: a UUIDv7, so ids sort by time.
func NewDocumentID() string { return NewID() }

// DocumentResource is the public form of a document in API responses and
// webhook events (DESIGN §3): times in UTC ISO 8601 with milliseconds, null
// where nothing is known yet.
type DocumentResource struct {
	ID           string  `json:"id"`
	Type         string  `json:"type"`
	ENCF         string  `json:"encf"`
	Status       Status  `json:"status"`
	TrackID      *string `json:"trackId"`
	SecurityCode *string `json:"securityCode"`
	SignedAt     *string `json:"signedAt"`
	QRURL        *string `json:"qrUrl"`
	// BuyerRNC is the e-CF's RNCComprador, null when it names none (a
	// type 32 under DOP 250,000 may leave it out; a foreign buyer has an
	// IdentificadorExtranjero instead).
	BuyerRNC           *string                     `json:"buyerRnc"`
	Total              string                      `json:"total"`
	DGII               *DGIIResult                 `json:"dgii"`
	Delivery           DeliveryResource            `json:"delivery"`
	CommercialApproval *CommercialApprovalResource `json:"commercialApproval"`
	FailureReason      *string                     `json:"failureReason"`
	Contingency        bool                        `json:"contingency"`
	CreatedAt          string                      `json:"createdAt"`
	UpdatedAt          string                      `json:"updatedAt"`
}

// Resource returns the public form of d.
func (d *Document) Resource() DocumentResource {
	r := DocumentResource{
		ID:            d.ID,
		Type:          d.Type.Code(),
		ENCF:          d.ENCF,
		Status:        d.Status,
		TrackID:       nullable(d.TrackID),
		SecurityCode:  nullable(d.SecurityCode),
		QRURL:         nullable(d.QRURL),
		BuyerRNC:      nullable(d.BuyerRNC),
		Total:         d.Total,
		DGII:          d.DGII,
		FailureReason: nullable(d.FailureReason),
		Contingency:   d.Contingency,
		CreatedAt:     FormatTime(d.CreatedAt),
		UpdatedAt:     FormatTime(d.UpdatedAt),
	}
	delivery, approval := d.buyerSide()
	r.Delivery = delivery.Resource()
	r.CommercialApproval = approval.Resource()
	if d.SignedAt != nil {
		s := FormatTime(*d.SignedAt)
		r.SignedAt = &s
	}
	return r
}

// buyerSide returns the delivery and commercial approval the resource
// shows, promising nothing Sello will not do: delivery not_applicable for
// the types that never travel to a buyer and for documents that will not be
// accepted (rejected, failed), else the delivery's outcome once there is
// one, pending while an accepted document's delivery is under way and
// not_sent until then; the approval only once the buyer gave a verdict,
// null before.
func (d *Document) buyerSide() (Delivery, *CommercialApproval) {
	if !d.Type.B2B() || d.Status == StatusRejected || d.Status == StatusFailed {
		return Delivery{Status: DeliveryNotApplicable}, nil
	}
	delivery := d.Delivery
	switch delivery.Status {
	case DeliveryDelivered, DeliveryNotReceived, DeliveryFailed, DeliveryNotElectronic:
	case DeliveryPending:
		if d.Status != StatusAccepted && d.Status != StatusAcceptedConditional {
			delivery = Delivery{Status: DeliveryNotSent}
		}
	default:
		delivery = Delivery{Status: DeliveryNotSent}
	}
	approval := d.CommercialApproval
	if approval != nil && approval.Status != ApprovalApproved && approval.Status != ApprovalRejected && approval.Status != ApprovalDisputed {
		approval = nil
	}
	return delivery, approval
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// DocumentFilter selects documents in ListDocuments.
type DocumentFilter struct {
	Status Status       // "" for any
	Type   DocumentType // "" for any
	// BuyerRNC keeps the documents of that buyer (RNCComprador, 9 or 11
	// digits), "" for any.
	BuyerRNC string
	// ENCF keeps the document of that e-NCF (at most one), "" for any.
	ENCF string
	// CreatedFrom and CreatedTo bound createdAt, inclusive and exclusive.
	CreatedFrom *time.Time
	CreatedTo   *time.Time
	// Cursor is the NextCursor of the previous page, "" for the first.
	Cursor string
	// Limit is the page size, 1 to MaxPageSize.
	Limit int
}

// PageSize is f's limit within 1 to MaxPageSize, DefaultPageSize when
// unset.
func (f DocumentFilter) PageSize() int { return pageSize(f.Limit) }

// NextDocumentPage cuts a page read with one row more than limit (the
// engines read limit+1 to know whether another page follows) and returns
// it with the cursor of the next page, "" on the last.
func NextDocumentPage(docs []*Document, limit int) ([]*Document, string) {
	return cutPage(docs, limit, func(d *Document) (time.Time, string) { return d.CreatedAt, d.ID })
}

// Page sizes of list endpoints.
const (
	DefaultPageSize = 50
	MaxPageSize     = 200
)

// FormatCursor returns the list cursor that resumes after the document
// created at at with id: base64url("<unix microseconds>.<id>"), the same in
// every engine.
func FormatCursor(at time.Time, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(at.UnixMicro(), 10) + "." + id))
}

// ParseCursor reads a cursor of FormatCursor. Returns INVALID_REQUEST.
func ParseCursor(c string) (time.Time, string, error) {
	bad := Errorf(CodeInvalidRequest, "Cursor %q is not valid: pass the nextCursor of the previous answer unchanged.", c)
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return time.Time{}, "", bad
	}
	micros, id, ok := strings.Cut(string(b), ".")
	if !ok || id == "" {
		return time.Time{}, "", bad
	}
	n, err := strconv.ParseInt(micros, 10, 64)
	if err != nil || n < 0 {
		return time.Time{}, "", bad
	}
	return time.UnixMicro(n).UTC(), id, nil
}

// rfceLimit is DGII's line: consumer invoices (type 32) under DOP 250,000
// go to DGII as an RFCE summary, not whole.
var rfceLimit = big.NewRat(250_000, 1)

// ViaRFCE reports whether the document goes to DGII as an RFCE summary: a
// type-32 invoice whose total is under DOP 250,000.
func (d *Document) ViaRFCE() bool {
	total, ok := new(big.Rat).SetString(d.Total)
	return d.Type == TypeConsumo && ok && total.Cmp(rfceLimit) < 0
}

// StoredTime is t as every store reads it back: UTC, to the microsecond
// (PostgreSQL's precision, which SQLite's text times follow); nil for nil.
func StoredTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC().Truncate(time.Microsecond)
	return &u
}
