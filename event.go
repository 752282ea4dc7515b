package sello

import (
	"time"
)

// EventType names an event (DESIGN §5).
type EventType string

// Event types.
const (
	EventECFQueued              EventType = "ecf.queued"
	EventECFSigned              EventType = "ecf.signed"
	EventECFSubmitted           EventType = "ecf.submitted"
	EventECFAccepted            EventType = "ecf.accepted"
	EventECFAcceptedConditional EventType = "ecf.accepted_conditional"
	EventECFRejected            EventType = "ecf.rejected"
	EventECFFailed              EventType = "ecf.failed"
	EventECFDelivered           EventType = "ecf.delivered"
	EventECFDeliveryFailed      EventType = "ecf.delivery_failed"
	EventECFCommercialApproval  EventType = "ecf.commercial_approval.received"
	// EventECFCommercialApprovalDisputed: signers of different holders sent
	// different verdicts on one document (ReceivedApproval.Apply).
	EventECFCommercialApprovalDisputed EventType = "ecf.commercial_approval.disputed"
	EventInboundReceived               EventType = "tax.public.receiver.ecf.received"
	EventInboundApprovalSent           EventType = "inbound.approval.sent"
	EventInboundApprovalFailed         EventType = "inbound.approval.failed"
	EventSequenceLow                   EventType = "sequence.low"
	EventSequenceExpiring              EventType = "sequence.expiring"
	EventCertificateExpiring           EventType = "certificate.expiring"
	EventWebhookEndpointDisabled       EventType = "webhook_endpoint.disabled"
	// DGII's reachability in an environment (contingency.go): sent to every
	// tenant with a certificate there.
	EventDGIIUnavailable EventType = "dgii.unavailable"
	EventDGIIAvailable   EventType = "dgii.available"
	// EventWebhookEndpointTest is the type of the synthetic event of a test
	// delivery (CreateTestWebhookDelivery). It is never written to the
	// events outbox, so no endpoint subscribes to it and the events API
	// never lists it.
	EventWebhookEndpointTest EventType = "webhook_endpoint.test"
)

// Event is something that happened to a tenant's resources in one
// environment. Events are written in the same transaction as the change they
// describe (the outbox) and delivered later.
type Event struct {
	ID          string
	Type        EventType
	CreatedAt   time.Time
	TenantID    string
	Environment Environment
	Document    *EventDocument
	Data        EventData
	// Pos orders a tenant's events; it is the events API's cursor.
	Pos EventPosition
}

// EventPosition is the place of an event in its tenant's feed, the order of
// ListEvents: by Tx, then by Seq. Seq numbers events in the order they are
// written. Tx is 0 on SQLite, whose single writer commits in Seq order; on
// PostgreSQL it is the writing transaction's id, 0 for events written
// before it was recorded, so that concurrent writers need no common lock
// (docs/decisions.md).
type EventPosition struct {
	Tx  int64
	Seq int64
}

// Less reports whether p comes before q in the feed.
func (p EventPosition) Less(q EventPosition) bool {
	return p.Tx < q.Tx || (p.Tx == q.Tx && p.Seq < q.Seq)
}

// EventDocument is the document snapshot inside an event (spec §2.4).
type EventDocument struct {
	ID      string  `json:"id"`
	Type    string  `json:"type"`
	ENCF    string  `json:"encf"`
	Status  Status  `json:"status"`
	TrackID *string `json:"trackId"`
}

// EventData is the data of an event (spec §2.5).
type EventData struct {
	Severity string         `json:"severity"`
	Message  string         `json:"message"`
	Payload  map[string]any `json:"payload"`
}

// NewDocumentEvent returns an event of type typ about d, as d is now.
func NewDocumentEvent(typ EventType, d *Document, severity, message string, now time.Time) *Event {
	return &Event{
		ID:          NewID(),
		Type:        typ,
		CreatedAt:   now,
		TenantID:    d.TenantID,
		Environment: d.Environment,
		Document: &EventDocument{
			ID:      d.ID,
			Type:    d.Type.Code(),
			ENCF:    d.ENCF,
			Status:  d.Status,
			TrackID: nullable(d.TrackID),
		},
		Data: EventData{Severity: severity, Message: message, Payload: contingencyPayload(d)},
	}
}

// contingencyPayload is the payload of a document's events: contingency
// true for a document signed in contingency (Document.Contingency), empty
// otherwise.
func contingencyPayload(d *Document) map[string]any {
	if d.Contingency {
		return map[string]any{"contingency": true}
	}
	return map[string]any{}
}

// EventResource is the JSON body of a webhook delivery and of the events API
// (spec §2.3).
type EventResource struct {
	ID          string         `json:"id"`
	Type        EventType      `json:"type"`
	CreatedAt   string         `json:"createdAt"`
	TenantID    string         `json:"tenantId"`
	Environment string         `json:"environment"`
	Document    *EventDocument `json:"document"`
	Data        EventData      `json:"data"`
}

// Resource returns the public form of e.
func (e *Event) Resource() EventResource {
	data := e.Data
	data.Payload = nullEmpty(data.Payload)
	return EventResource{
		ID:          e.ID,
		Type:        e.Type,
		CreatedAt:   FormatTime(e.CreatedAt),
		TenantID:    e.TenantID,
		Environment: e.Environment.Slug(),
		Document:    e.Document,
		Data:        data,
	}
}

// nullEmpty returns payload with every "" string in it (in nested objects
// and lists too) made null, the API's one way of saying no value (docs/api.md,
// Conventions): events written before the rule read the same as new ones.
// A nil payload is {}.
func nullEmpty(payload map[string]any) map[string]any {
	out := make(map[string]any, len(payload))
	for k, v := range payload {
		out[k] = nullEmptyValue(v)
	}
	return out
}

func nullEmptyValue(v any) any {
	switch v := v.(type) {
	case string:
		if v == "" {
			return nil
		}
	case map[string]any:
		return nullEmpty(v)
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = nullEmptyValue(x)
		}
		return out
	}
	return v
}

// EventFilter selects events in ListEvents.
type EventFilter struct {
	After EventPosition // the zero position for the oldest kept
	Type  EventType     // "" for any
	Limit int
}

// EventVoidUpdated is written when a void gets its outcome (accepted,
// partially_accepted, rejected or failed): the tenant learns DGII's answer
// without polling GET /{env}/anulaciones/{id}.
const EventVoidUpdated EventType = "void.updated"

// The events of DGII's confirmation of an inbound document
// (inbound_dgii.go): confirmed when DGII accepted it; refuted when DGII
// rejected it, accepted another document under its e-NCF, or never
// confirmed it.
const (
	EventInboundDGIIConfirmed EventType = "inbound.dgii_confirmed"
	EventInboundDGIIRefuted   EventType = "inbound.dgii_refuted"
)
