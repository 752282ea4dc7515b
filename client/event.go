package client

import (
	"context"
	"time"
)

// EventType names an event. New types may be added: ignore those you do not
// handle (and answer 2xx to their deliveries).
type EventType string

// The event types.
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
	// Certificates of different holders sent different commercial
	// verdicts on a document (a warning; data.payload.verdicts).
	EventECFCommercialApprovalDisputed EventType = "ecf.commercial_approval.disputed"
	EventInboundReceived               EventType = "tax.public.receiver.ecf.received"
	EventSequenceLow                   EventType = "sequence.low"
	EventSequenceExpiring              EventType = "sequence.expiring"
	EventCertificateExpiring           EventType = "certificate.expiring"
	EventWebhookEndpointDisabled       EventType = "webhook_endpoint.disabled"
	EventVoidUpdated                   EventType = "void.updated"
	// DGII unreachable in the environment past the contingency threshold,
	// and reachable again (data.payload: since, until, waiting).
	EventDGIIUnavailable EventType = "dgii.unavailable"
	EventDGIIAvailable   EventType = "dgii.available"
)

// DGII's confirmation of a document a supplier sent to the tenant
// (documentos-recibidos' dgii): data.payload has inboundDocumentId, type,
// encf, issuer, securityCode and dgii (status, checkedAt, codigo,
// mensaje). Approve or reject a received document commercially only
// after EventInboundDGIIConfirmed: until then the API answers 422.
const (
	// DGII accepted the received document (dgii.status accepted).
	EventInboundDGIIConfirmed EventType = "inbound.dgii_confirmed"
	// DGII rejected it (dgii.status rejected, severity error), accepted
	// another document under its e-NCF (refuted, a warning: it is not the
	// issuer's), or had not confirmed it 72 hours after its receipt
	// (not_found, a warning).
	EventInboundDGIIRefuted EventType = "inbound.dgii_refuted"
)

// Event is the body of a webhook delivery, and an item of ListEvents (spec
// §2.3).
type Event struct {
	// ID equals the Sello-Event-Id header. Store it uniquely to apply each
	// event once (see Idempotent).
	ID        string    `json:"id"`
	Type      EventType `json:"type"`
	CreatedAt time.Time `json:"createdAt"`
	TenantID  string    `json:"tenantId"`
	// Environment is the event's environment. The wire spells it testecf,
	// certecf or ecf; decoding makes it EnvTest, EnvCert or EnvProd, so
	// compare it with those constants (Slug gives the wire's spelling).
	Environment Environment `json:"environment"`
	// Document is the document's snapshot at the time of the event; nil
	// for events about no document.
	Document *EventDocument `json:"document"`
	Data     EventData      `json:"data"`
}

// EventDocument is the document snapshot inside an event. It may be stale
// when it arrives: see Reconcile.
type EventDocument struct {
	ID      string  `json:"id"`
	Type    string  `json:"type"`
	ENCF    string  `json:"encf"`
	Status  Status  `json:"status"`
	TrackID *string `json:"trackId"`
}

// EventData is the data of an event.
type EventData struct {
	// Severity is info, warning or error.
	Severity string `json:"severity"`
	Message  string `json:"message"`
	// Payload is type-specific; for tax.public.receiver.ecf.received it has
	// inboundDocumentId.
	Payload map[string]any `json:"payload"`
}

// ListEventsParams selects events. Zero fields do not filter.
type ListEventsParams struct {
	// Cursor is the NextCursor of the previous answer; "" for the oldest
	// event kept (events are kept 30 days).
	Cursor string
	// Type keeps one type of event.
	Type EventType
	// Limit is the page size, 1 to 200; 0 for the server's default (50).
	Limit int
}

// ListEvents returns the environment's events after p.Cursor, oldest
// first, each exactly as its webhook delivery carries it. The events are a
// feed: the page's NextCursor is always set (with no events, it is the
// position asked for); pass it as Cursor to continue, at once when HasMore,
// later otherwise. It needs scope ecf:read. API errors: INVALID_REQUEST (a
// malformed Cursor, an unknown Type, a bad Limit).
func (c *Client) ListEvents(ctx context.Context, p ListEventsParams) (*Page[Event], error) {
	q := pageQuery{}
	q.set("type", string(p.Type))
	return list[Event](ctx, c, "/eventos", q.page(p.Cursor, p.Limit))
}
