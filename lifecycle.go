package sello

import (
	"context"
	"slices"
	"strings"
	"time"
)

// DocumentChange is one step of a document's lifecycle. DocumentStore's
// UpdateDocument applies it atomically: the new fields, a status-history
// row, the event and the jobs it names, all in one transaction.
type DocumentChange struct {
	// From lists the statuses the document must be in for the change to
	// apply; UpdateDocument returns CONFLICT otherwise (another worker got
	// there first). Empty means any status.
	From []Status
	// Status is the new status; "" keeps the current one.
	Status Status
	// Reason goes to the history row; with StatusFailed it is also the
	// document's FailureReason.
	Reason string

	// Fields set when not zero; they are never cleared.
	SignedXML    []byte     // the signed e-CF, exactly as sent to DGII
	RFCEXML      []byte     // the signed RFCE summary (type 32 under DOP 250,000)
	SecurityCode string     // first 6 characters of the SignatureValue
	SignedAt     *time.Time // the signature's time (FechaHoraFirma)
	QRURL        string     // DGII's timbre URL for the printed representation
	TrackID      string     // DGII's tracking id
	DGII         *DGIIResult
	// Contingency marks the document signed in contingency when true.
	Contingency bool

	// DeliveryFrom lists the delivery statuses the document must have
	// stored for the change to apply (CONFLICT otherwise); empty means any.
	DeliveryFrom []string
	// Delivery, when set, replaces the document's delivery.
	Delivery *Delivery
	// ARECF is the buyer's signed acuse de recibo, set when not nil.
	ARECF []byte

	// Event, when EventType is set, is written with the document as it is
	// after the change (spec §2.4 snapshot).
	EventType EventType
	Severity  string // "info", "warning" or "error"; "info" when empty
	Message   string
	// Jobs are inserted in the same transaction.
	Jobs []Job
}

// StatusChange is one row of a document's status history.
type StatusChange struct {
	Status Status    `json:"status"`
	At     time.Time `json:"at"`
	Reason string    `json:"reason,omitempty"`
}

// LifecycleStore is what the background workers need of the store.
type LifecycleStore interface {
	// FindDocumentByID returns the document with its Payload. Returns
	// NOT_FOUND.
	FindDocumentByID(ctx context.Context, tenantID string, env Environment, id string) (*Document, error)
	// UpdateDocument applies ch to the document (see DocumentChange) and
	// returns it as it is after, without its Payload. Returns NOT_FOUND, or CONFLICT when its
	// status is not one of ch.From.
	UpdateDocument(ctx context.Context, tenantID string, env Environment, id string, ch DocumentChange) (*Document, error)
	// QueueJobs inserts js in a transaction of their own (a change that
	// calls for jobs inserts them with it: DocumentChange.Jobs).
	QueueJobs(ctx context.Context, js ...Job) error
	// FindDocumentXML returns the signed XML of a document by e-NCF.
	// Returns NOT_FOUND when there is no such document or it is not signed.
	FindDocumentXML(ctx context.Context, tenantID string, env Environment, encf string) ([]byte, error)
	// FindDocumentRFCE returns the signed RFCE of a type-32 document under
	// DOP 250,000, by id. Returns NOT_FOUND when there is none.
	FindDocumentRFCE(ctx context.Context, tenantID string, env Environment, id string) ([]byte, error)
	// FindDocumentHistory returns the status history, oldest first.
	FindDocumentHistory(ctx context.Context, tenantID string, env Environment, id string) ([]StatusChange, error)
	// FindDocumentARECF returns the buyer's signed acuse de recibo of a
	// delivered document, by id. Returns NOT_FOUND when there is none.
	FindDocumentARECF(ctx context.Context, tenantID string, env Environment, id string) ([]byte, error)
}

// Check refuses a change no store can apply: an unknown status, in Status or
// From, or an unknown event severity. Returns INVALID_REQUEST.
func (ch DocumentChange) Check() error {
	for _, s := range append([]Status{ch.Status}, ch.From...) {
		if s == "" {
			continue
		}
		if _, err := ParseStatus(string(s)); err != nil {
			return err
		}
	}
	switch ch.Severity {
	case "", "info", "warning", "error":
		return nil
	}
	return Errorf(CodeInvalidRequest, "Unknown event severity %q.", ch.Severity)
}

// EventSeverity is the severity of the change's event: "info" when unset.
func (ch DocumentChange) EventSeverity() string {
	if ch.Severity == "" {
		return "info"
	}
	return ch.Severity
}

// Allows reports whether the change applies to a document in status (see
// From).
func (ch DocumentChange) Allows(status Status) bool {
	return len(ch.From) == 0 || slices.Contains(ch.From, status)
}

// Refusal is the CONFLICT of the change to doc, whose status or delivery it
// does not allow.
func (ch DocumentChange) Refusal(doc *Document) error {
	if ch.Allows(doc.Status) {
		return ch.deliveryRefusal(doc)
	}
	names := make([]string, len(ch.From))
	for i, s := range ch.From {
		names[i] = string(s)
	}
	return Errorf(CodeConflict, "Document %s is %s, not %s.", doc.ENCF, doc.Status, orJoin(names))
}

// AllowsDelivery reports whether the change applies to a document whose
// stored delivery status is status (see DeliveryFrom).
func (ch DocumentChange) AllowsDelivery(status string) bool {
	return len(ch.DeliveryFrom) == 0 || slices.Contains(ch.DeliveryFrom, status)
}

// deliveryRefusal is the CONFLICT of a change to doc whose delivery it does
// not allow.
func (ch DocumentChange) deliveryRefusal(doc *Document) error {
	return Errorf(CodeConflict, "Delivery of document %s is %s, not %s.", doc.ENCF, doc.Delivery.Status, orJoin(ch.DeliveryFrom))
}

// orJoin is words joined by "or", in the reader's language: "a or b or c".
func orJoin(words []string) Text {
	if n := len(words); n > 1 {
		return Textf("%s or %s", orJoin(words[:n-1]), words[n-1])
	}
	return Textf("%s", strings.Join(words, ""))
}

// FailureReason is the failure reason the change records: its Reason when
// it fails the document, else "" (the stored one is kept).
func (ch DocumentChange) FailureReason() string {
	if ch.Status == StatusFailed {
		return ch.Reason
	}
	return ""
}

// Apply sets on doc the fields the change sets, as of now; it never clears
// one. Times are kept as stores keep them (StoredTime).
func (ch DocumentChange) Apply(doc *Document, now time.Time) {
	if ch.Status != "" {
		doc.Status = ch.Status
	}
	if r := ch.FailureReason(); r != "" {
		doc.FailureReason = r
	}
	if ch.SecurityCode != "" {
		doc.SecurityCode = ch.SecurityCode
	}
	if ch.SignedAt != nil {
		doc.SignedAt = StoredTime(ch.SignedAt)
	}
	if ch.QRURL != "" {
		doc.QRURL = ch.QRURL
	}
	if ch.TrackID != "" {
		doc.TrackID = ch.TrackID
	}
	if ch.Delivery != nil {
		doc.Delivery = *ch.Delivery
	}
	if ch.Contingency {
		doc.Contingency = true
	}
	if ch.DGII != nil {
		r := *ch.DGII
		r.Mensajes = slices.Clone(r.Mensajes)
		doc.DGII = &r
	}
	doc.UpdatedAt = now
}

// Event is the event the change writes, with doc as it is after the
// change, or nil when it writes none.
func (ch DocumentChange) Event(doc *Document, now time.Time) *Event {
	if ch.EventType == "" {
		return nil
	}
	return NewDocumentEvent(ch.EventType, doc, ch.EventSeverity(), ch.Message, now)
}

// DocumentNotFound is the NOT_FOUND error of a document's e-NCF in env.
func DocumentNotFound(encf string, env Environment) error {
	return Errorf(CodeNotFound, "Document %s not found in %s.", encf, env)
}

// DocumentIDNotFound is the NOT_FOUND error of a document id in env.
func DocumentIDNotFound(id string, env Environment) error {
	return Errorf(CodeNotFound, "Document %q not found in %s.", id, env)
}
