package sello

import (
	"context"
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
	// FindDocumentXML returns the signed XML of a document by e-NCF.
	// Returns NOT_FOUND when there is no such document or it is not signed.
	FindDocumentXML(ctx context.Context, tenantID string, env Environment, encf string) ([]byte, error)
	// FindDocumentRFCE returns the signed RFCE of a type-32 document under
	// DOP 250,000, by id. Returns NOT_FOUND when there is none.
	FindDocumentRFCE(ctx context.Context, tenantID string, env Environment, id string) ([]byte, error)
	// FindDocumentHistory returns the status history, oldest first.
	FindDocumentHistory(ctx context.Context, tenantID string, env Environment, id string) ([]StatusChange, error)
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
