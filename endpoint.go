package sello

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"time"
)

// WebhookEndpoint is a URL of a tenant's that receives the events of one
// environment (spec §2.2, §6; DESIGN §5). It is configured in the portal.
type WebhookEndpoint struct {
	ID          string      `json:"id"`
	TenantID    string      `json:"tenantId"`
	Environment Environment `json:"environment"`
	URL         string      `json:"url"`
	// Events are the event types the endpoint receives; empty means all.
	Events []EventType           `json:"events"`
	Status WebhookEndpointStatus `json:"status"`
	// DisabledReason says why a disabled endpoint was disabled.
	DisabledReason string `json:"disabledReason,omitempty"`
	// FailingSince is the time of the first failed attempt after the last
	// successful one; nil while the endpoint succeeds (or was never tried).
	FailingSince *time.Time `json:"failingSince"`
	CreatedAt    time.Time  `json:"createdAt"`
	UpdatedAt    time.Time  `json:"updatedAt"`
	// Secrets sign the deliveries; newest first. More than one is active
	// while a rotated secret overlaps (see ActiveSecrets).
	Secrets []WebhookSecret `json:"-"`
}

// WebhookEndpointStatus is the state of an endpoint.
type WebhookEndpointStatus string

// Endpoint statuses. A paused endpoint gets its deliveries held and sent on
// resume; a disabled one gets none (DisableWebhookEndpoint).
const (
	WebhookEndpointActive   WebhookEndpointStatus = "active"
	WebhookEndpointPaused   WebhookEndpointStatus = "paused"
	WebhookEndpointDisabled WebhookEndpointStatus = "disabled"
)

// WebhookEndpointDeleted is the DisabledReason of a deleted endpoint, as
// the delivery job sees it, and the LastError of the deliveries its
// deletion failed (DeleteWebhookEndpoint).
const WebhookEndpointDeleted = "Endpoint deleted."

// WebhookSecret is one signing secret of an endpoint, sealed with the
// master key (WebhookSecretAAD binds it to its endpoint and id).
type WebhookSecret struct {
	ID        string
	Sealed    []byte
	CreatedAt time.Time
	// ExpiresAt is set when a newer secret replaced this one: it signs
	// until then (the rotation overlap). nil: no expiry.
	ExpiresAt *time.Time
}

// Webhook secret rules.
const (
	// MinWebhookSecretLen is the shortest secret a customer may supply.
	MinWebhookSecretLen = 32
	// MaxWebhookSecretLen bounds a supplied secret.
	MaxWebhookSecretLen = 256
	// WebhookSecretPrefix starts every generated secret.
	WebhookSecretPrefix = "whsec_"
	// WebhookSecretOverlap is how long a rotated secret keeps signing by
	// default (DESIGN §5).
	WebhookSecretOverlap = 24 * time.Hour
)

// WebhookSecretAAD binds a sealed secret to its endpoint and id, so a sealed
// secret copied onto another row does not open.
func WebhookSecretAAD(endpointID, secretID string) []byte {
	return []byte("sello/webhook-secret/v1\x00" + endpointID + "\x00" + secretID)
}

// GenerateWebhookSecret returns a new random secret: WebhookSecretPrefix and
// 32 random bytes in base64url (256 bits).
func GenerateWebhookSecret() string {
	b := make([]byte, 32)
	rand.Read(b)
	return WebhookSecretPrefix + base64.RawURLEncoding.EncodeToString(b)
}

// CheckWebhookSecret validates a customer-supplied secret. Returns
// INVALID_REQUEST unless it has MinWebhookSecretLen to MaxWebhookSecretLen
// printable ASCII characters.
func CheckWebhookSecret(plaintext string) error {
	if len(plaintext) < MinWebhookSecretLen {
		return Errorf(CodeInvalidRequest, "The webhook secret must have at least %d characters, not %d.", MinWebhookSecretLen, len(plaintext))
	} else if len(plaintext) > MaxWebhookSecretLen {
		return Errorf(CodeInvalidRequest, "The webhook secret must have at most %d characters.", MaxWebhookSecretLen)
	}
	for _, c := range []byte(plaintext) {
		if c < 0x21 || c > 0x7e {
			return Errorf(CodeInvalidRequest, "The webhook secret must be printable ASCII without spaces.")
		}
	}
	return nil
}

// NewWebhookSecret checks plaintext (CheckWebhookSecret) and returns it
// sealed with mk for the endpoint endpointID, under a new secret id. The
// store sets CreatedAt. Returns INVALID_REQUEST.
func NewWebhookSecret(mk *MasterKey, endpointID, plaintext string) (WebhookSecret, error) {
	if err := CheckWebhookSecret(plaintext); err != nil {
		return WebhookSecret{}, err
	} else if endpointID == "" {
		return WebhookSecret{}, Errorf(CodeInvalidRequest, "Endpoint id required.")
	}
	id := NewID()
	return WebhookSecret{ID: id, Sealed: mk.Seal([]byte(plaintext), WebhookSecretAAD(endpointID, id))}, nil
}

// NewWebhookEndpoint returns a new active endpoint of a tenant in env, with
// a new id and secret sealed with mk, ready for CreateWebhookEndpoint.
// Returns INVALID_REQUEST (see Check and CheckWebhookSecret).
func NewWebhookEndpoint(mk *MasterKey, tenantID string, env Environment, rawURL string, events []EventType, secret string) (*WebhookEndpoint, error) {
	e := &WebhookEndpoint{ID: NewID(), TenantID: tenantID, Environment: env, URL: rawURL, Events: events, Status: WebhookEndpointActive}
	if err := e.Check(); err != nil {
		return nil, err
	}
	s, err := NewWebhookSecret(mk, e.ID, secret)
	if err != nil {
		return nil, err
	}
	e.Secrets = []WebhookSecret{s}
	return e, nil
}

// Check validates what the store keeps of e: tenant, environment, a URL
// CheckWebhookURL accepts, known event types and a status. Whether the URL's host is public is checked at
// dial time by the delivery client, not here. Returns INVALID_REQUEST.
func (e *WebhookEndpoint) Check() error {
	if e.TenantID == "" {
		return Errorf(CodeInvalidRequest, "Tenant required.")
	} else if _, err := ParseEnvironment(string(e.Environment)); err != nil {
		return err
	}
	if err := CheckWebhookURL(e.URL, e.Environment); err != nil {
		return err
	}
	for _, t := range e.Events {
		if !slices.Contains(WebhookEventTypes, t) {
			return Errorf(CodeInvalidRequest, "Unknown event type %q.", t)
		}
	}
	switch e.Status {
	case "", WebhookEndpointActive, WebhookEndpointPaused, WebhookEndpointDisabled:
	default:
		return Errorf(CodeInvalidRequest, "Unknown endpoint status %q: use active, paused or disabled.", e.Status)
	}
	return nil
}

// CheckNew refuses an endpoint a store cannot keep: Check's refusals, and
// an endpoint without an id or a sealed secret (see NewWebhookEndpoint).
// Returns INVALID_REQUEST.
func (e *WebhookEndpoint) CheckNew() error {
	if err := e.Check(); err != nil {
		return err
	} else if e.ID == "" {
		return Errorf(CodeInvalidRequest, "Endpoint id required (see sello.NewWebhookEndpoint).")
	} else if len(e.Secrets) == 0 {
		return Errorf(CodeInvalidRequest, "A webhook endpoint needs a secret.")
	}
	for _, s := range e.Secrets {
		if err := s.Check(); err != nil {
			return err
		}
	}
	return nil
}

// Check refuses a secret a store cannot keep: without an id or sealed
// bytes (see NewWebhookSecret). Returns INVALID_REQUEST.
func (s WebhookSecret) Check() error {
	if s.ID == "" || len(s.Sealed) == 0 {
		return Errorf(CodeInvalidRequest, "Sealed webhook secret required (see sello.NewWebhookSecret).")
	}
	return nil
}

// CheckSecretRotation refuses a rotation to secret after which the older
// secrets keep signing for overlap: a negative overlap, or a secret a store
// cannot keep. Returns INVALID_REQUEST.
func CheckSecretRotation(secret WebhookSecret, overlap time.Duration) error {
	if overlap < 0 {
		return Errorf(CodeInvalidRequest, "The overlap of a secret rotation cannot be negative.")
	}
	return secret.Check()
}

// EndpointDisabledFailure is the LastError of the pending and held
// deliveries an endpoint's disabling fails, when they have none.
func EndpointDisabledFailure(reason string) string { return "Endpoint disabled: " + reason }

// WebhookEndpointNotFound is the NOT_FOUND error of an endpoint id.
func WebhookEndpointNotFound(id string) error {
	return Errorf(CodeNotFound, "Webhook endpoint %q not found.", id)
}

// WebhookDeliveryNotFound is the NOT_FOUND error of a delivery id.
func WebhookDeliveryNotFound(id string) error {
	return Errorf(CodeNotFound, "Webhook delivery %q not found.", id)
}

// WebhookEndpointIsDisabled is the CONFLICT error of an action a disabled
// endpoint refuses until it is resumed.
func WebhookEndpointIsDisabled(id string) error {
	return Errorf(CodeConflict, "Webhook endpoint %q is disabled; resume it first.", id)
}

// EndpointTakesDeliveries refuses a new delivery (a replay, a test) to
// endpoint id in status: CONFLICT while it is disabled.
func EndpointTakesDeliveries(id string, status WebhookEndpointStatus) error {
	if status == WebhookEndpointDisabled {
		return WebhookEndpointIsDisabled(id)
	}
	return nil
}

// NewTestWebhookDelivery is a test delivery to endpoint id of a tenant's
// environment, whose status is status, with its webhook.test event and the
// job that attempts it (nil when held). Returns CONFLICT when the endpoint
// is disabled.
func NewTestWebhookDelivery(tenantID string, env Environment, id string, status WebhookEndpointStatus, now time.Time) (*WebhookDelivery, *Event, Job, error) {
	if err := EndpointTakesDeliveries(id, status); err != nil {
		return nil, nil, nil, err
	}
	ev := NewTestWebhookEvent(tenantID, env, id, now)
	d := &WebhookDelivery{
		ID: NewID(), EndpointID: id, TenantID: tenantID, Environment: env,
		EventID: ev.ID, EventType: ev.Type, Trigger: WebhookTriggerTest, CreatedAt: now, UpdatedAt: now,
	}
	return d, ev, d.QueueOrHold(status, now), nil
}

// NewWebhookEndpointDisabledEvent is the webhook.endpoint.disabled event of
// endpoint id (at url) of a tenant's environment, disabled for reason.
func NewWebhookEndpointDisabledEvent(tenantID string, env Environment, id, url, reason string, now time.Time) *Event {
	return &Event{
		ID:          NewID(),
		Type:        EventWebhookEndpointDisabled,
		CreatedAt:   now,
		TenantID:    tenantID,
		Environment: env,
		Data: EventData{
			Severity: "warning",
			Message:  fmt.Sprintf("The webhook endpoint %s was disabled: %s", url, reason),
			Payload:  map[string]any{"endpointId": id, "url": url, "reason": reason},
		},
	}
}

// WebhookEventTypes are the event types an endpoint can subscribe to: every
// type of event.go. A type added there must be added here.
var WebhookEventTypes = []EventType{
	EventECFQueued, EventECFSigned, EventECFSubmitted, EventECFAccepted, EventECFAcceptedConditional,
	EventECFRejected, EventECFFailed, EventECFDelivered, EventECFDeliveryFailed, EventECFCommercialApproval, EventECFCommercialApprovalDisputed,
	EventInboundReceived, EventInboundApprovalSent, EventInboundApprovalFailed, EventSequenceLow, EventSequenceExpiring, EventCertificateExpiring,
	EventWebhookEndpointDisabled,
	EventVoidUpdated,
	EventDGIIUnavailable, EventDGIIAvailable,
	EventInboundDGIIConfirmed, EventInboundDGIIRefuted,
}

// Subscribes reports whether e receives events of type t: every type when
// e.Events is empty.
func (e *WebhookEndpoint) Subscribes(t EventType) bool {
	return len(e.Events) == 0 || slices.Contains(e.Events, t)
}

// SigningSecrets are the secrets that sign at now, still sealed, newest
// first: every secret but the expired ones (ExpiresAt at or before now).
func (e *WebhookEndpoint) SigningSecrets(now time.Time) []WebhookSecret {
	var out []WebhookSecret
	for _, s := range e.Secrets {
		if s.ExpiresAt == nil || now.Before(*s.ExpiresAt) {
			out = append(out, s)
		}
	}
	slices.SortStableFunc(out, func(a, b WebhookSecret) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return out
}

// ActiveSecrets opens the secrets that sign at now (SigningSecrets), newest
// first. It fails if a secret does not open (wrong master key, or a sealed
// value moved to another row).
func (e *WebhookEndpoint) ActiveSecrets(mk *MasterKey, now time.Time) ([]string, error) {
	var out []string
	for _, s := range e.SigningSecrets(now) {
		p, err := mk.Open(s.Sealed, WebhookSecretAAD(e.ID, s.ID))
		if err != nil {
			return nil, fmt.Errorf("webhook secret %s of endpoint %s: %w", s.ID, e.ID, err)
		}
		out = append(out, string(p))
	}
	return out, nil
}

// WebhookDelivery is one event to be delivered to one endpoint: at most
// MaxWebhookAttempts attempts (WebhookAttempt).
type WebhookDelivery struct {
	ID          string                `json:"id"`
	EndpointID  string                `json:"endpointId"`
	TenantID    string                `json:"tenantId"`
	Environment Environment           `json:"environment"`
	EventID     string                `json:"eventId"`
	EventType   EventType             `json:"eventType"`
	Status      WebhookDeliveryStatus `json:"status"`
	// Attempts is how many attempts were made.
	Attempts int `json:"attempts"`
	// NextAttemptAt is when a pending delivery is due; nil otherwise.
	NextAttemptAt *time.Time `json:"nextAttemptAt"`
	// LastError describes the last failed attempt; "" after a success.
	LastError string         `json:"lastError,omitempty"`
	Trigger   WebhookTrigger `json:"trigger"`
	// ReplayOf is the delivery a replay repeats; "" otherwise.
	ReplayOf  string    `json:"replayOf,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	// Attempts made, oldest first; only FindWebhookDelivery fills it.
	AttemptLog []*WebhookAttempt `json:"attemptLog,omitempty"`
}

// NewEventDelivery is the delivery of ev to endpoint e, with the job that
// attempts it (see QueueOrHold), or nil, nil when e does not subscribe to
// ev's type or is disabled. Only the endpoint's ID, Status and Events are
// read.
func NewEventDelivery(ev *Event, e *WebhookEndpoint) (*WebhookDelivery, Job) {
	if e.Status == WebhookEndpointDisabled || !e.Subscribes(ev.Type) {
		return nil, nil
	}
	d := &WebhookDelivery{
		ID: NewID(), EndpointID: e.ID, TenantID: ev.TenantID, Environment: ev.Environment,
		EventID: ev.ID, EventType: ev.Type, Trigger: WebhookTriggerEvent,
		CreatedAt: ev.CreatedAt, UpdatedAt: ev.CreatedAt,
	}
	return d, d.QueueOrHold(e.Status, ev.CreatedAt)
}

// QueueOrHold sets a new delivery's status for an endpoint in status: held
// for a paused endpoint (no job), else pending and due at now, with the job
// that attempts it.
func (d *WebhookDelivery) QueueOrHold(status WebhookEndpointStatus, now time.Time) Job {
	if status == WebhookEndpointPaused {
		d.Status, d.NextAttemptAt = WebhookHeld, nil
		return nil
	}
	d.Status, d.NextAttemptAt = WebhookPending, &now
	return WebhookJob{DeliveryID: d.ID}
}

// WebhookDeliveryStatus is the state of a delivery.
type WebhookDeliveryStatus string

// Delivery statuses.
const (
	// WebhookPending: a job will attempt it (at NextAttemptAt).
	WebhookPending WebhookDeliveryStatus = "pending"
	// WebhookHeld: its endpoint is paused; resuming it queues the delivery.
	WebhookHeld WebhookDeliveryStatus = "held"
	// WebhookSucceeded: an attempt got a 2xx.
	WebhookSucceeded WebhookDeliveryStatus = "succeeded"
	// WebhookFailed: attempts exhausted, a final failure, or its endpoint
	// was disabled.
	WebhookFailed WebhookDeliveryStatus = "failed"
)

// WebhookTrigger says why a delivery exists.
type WebhookTrigger string

// Delivery triggers.
const (
	WebhookTriggerEvent  WebhookTrigger = "event"  // fan-out of an event
	WebhookTriggerReplay WebhookTrigger = "replay" // ReplayWebhookDelivery(ies)
	WebhookTriggerTest   WebhookTrigger = "test"   // CreateTestWebhookDelivery
)

// MaxWebhookAttempts is how many attempts a delivery gets (spec §6.4).
const MaxWebhookAttempts = 8

// WebhookResponseBodyLimit is how much of a response body an attempt keeps.
const WebhookResponseBodyLimit = 4 << 10

// WebhookAttempt is one HTTP attempt of a delivery, as the delivery log
// shows it.
type WebhookAttempt struct {
	DeliveryID string `json:"deliveryId"`
	// N numbers the delivery's attempts from 1; the store assigns it.
	N              int                 `json:"n"`
	At             time.Time           `json:"at"`
	RequestHeaders map[string][]string `json:"requestHeaders"`
	RequestBody    []byte              `json:"requestBody"`
	// ResponseStatus is 0 when no response came.
	ResponseStatus  int                 `json:"responseStatus"`
	ResponseHeaders map[string][]string `json:"responseHeaders"`
	// ResponseBody is the first WebhookResponseBodyLimit bytes; the store
	// truncates longer ones.
	ResponseBody []byte        `json:"responseBody"`
	Latency      time.Duration `json:"latency"`
	// DialedIP is the address actually connected to; "" if none was.
	DialedIP string `json:"dialedIp"`
	// ErrorClass classifies a failure (dns, connect, tls, timeout,
	// blocked, http_status: the delivery client's classes, see
	// docs/webhooks.md); "" on success.
	ErrorClass string `json:"errorClass,omitempty"`
	Error      string `json:"error,omitempty"`
}

// WebhookOutcome is what an attempt means for its delivery.
type WebhookOutcome struct {
	// Status is WebhookSucceeded, WebhookPending (try again at
	// NextAttemptAt) or WebhookFailed (no more attempts).
	Status        WebhookDeliveryStatus
	NextAttemptAt time.Time
}

// WebhookJob is the job that attempts a delivery (River's JobArgs).
type WebhookJob struct {
	DeliveryID string `json:"delivery_id"`
}

// Kind implements Job.
func (WebhookJob) Kind() string { return "sello.webhook" }

// WebhookJobMaxAttempts bounds the failed runs of a WebhookJob. A run fails
// only when the store does (attempts at the receiver are counted by the
// delivery, not by the job), and a job River discards would leave its
// delivery pending for good: with the worker's retry delay (at most five
// minutes) this is about a month of retries.
const WebhookJobMaxAttempts = 10_000

// MaxAttempts implements JobMaxAttempts.
func (WebhookJob) MaxAttempts() int { return WebhookJobMaxAttempts }

// WebhookWork is what the job of a delivery needs to attempt it.
type WebhookWork struct {
	Delivery *WebhookDelivery
	// Endpoint has its secrets.
	Endpoint *WebhookEndpoint
	// Event is the event delivered: from the outbox, or the synthetic event
	// of a test delivery. Its Resource is the body.
	Event *Event
}

// WebhookDeliveryFilter selects deliveries in ListWebhookDeliveries.
type WebhookDeliveryFilter struct {
	EndpointID string // "" for every endpoint
	FailedOnly bool
	// Since bounds createdAt, inclusive; zero for no bound.
	Since time.Time
	// Cursor resumes after a delivery: FormatCursor of its CreatedAt and
	// ID (the next cursor WebhookDeliveryPage returns); "" for the first
	// page.
	Cursor string
	// Limit is the page size; 0 means DefaultPageSize, capped at
	// MaxPageSize.
	Limit int
}

// EventRetention is how long events (and the deliveries of them, with their
// attempt logs) are kept.
const EventRetention = 30 * 24 * time.Hour

// WebhookStore keeps webhook endpoints and deliveries. Every event the store
// writes to its outbox fans out, in the same transaction, to one delivery
// per endpoint of the event's tenant and environment that subscribes to its
// type: pending with a WebhookJob when the endpoint is active, held (no job)
// when it is paused, none when it is disabled.
//
// Methods that take a tenant id touch only that tenant's rows and return
// NOT_FOUND for another tenant's. FindWebhookWork, HoldWebhookDelivery and
// RecordWebhookAttempt serve the delivery job, which knows only a delivery
// id; DeleteEventsBefore is the retention job's, across tenants.
type WebhookStore interface {
	// CreateWebhookEndpoint stores e (built by NewWebhookEndpoint: ID and
	// one sealed secret set) and sets its CreatedAt, UpdatedAt and its
	// secrets' CreatedAt; an empty Status is active. Returns
	// INVALID_REQUEST if e is not valid, has no ID or no secret, NOT_FOUND
	// if the tenant does not exist, CONFLICT if the id exists.
	CreateWebhookEndpoint(ctx context.Context, e *WebhookEndpoint) error
	// FindWebhookEndpoints lists the tenant's endpoints in env, oldest
	// first, with their secrets.
	FindWebhookEndpoints(ctx context.Context, tenantID string, env Environment) ([]*WebhookEndpoint, error)
	// FindWebhookEndpoint returns one of the tenant's endpoints with its
	// secrets (newest first). Returns NOT_FOUND.
	FindWebhookEndpoint(ctx context.Context, tenantID, id string) (*WebhookEndpoint, error)
	// FindWebhookEndpointByID returns the endpoint with that id, whichever
	// tenant's it is (its TenantID says), with its secrets (newest first),
	// for the operator who knows only the id. Returns NOT_FOUND, also for a
	// deleted endpoint.
	FindWebhookEndpointByID(ctx context.Context, id string) (*WebhookEndpoint, error)
	// PauseWebhookEndpoint pauses an active endpoint: from then on its new
	// deliveries are held, and a job that finds a pending delivery of it
	// holds it (HoldWebhookDelivery). Pausing a paused endpoint does
	// nothing. Returns NOT_FOUND, or CONFLICT if the endpoint is disabled.
	PauseWebhookEndpoint(ctx context.Context, tenantID, id string) error
	// ResumeWebhookEndpoint makes a paused or disabled endpoint active
	// (clearing DisabledReason and FailingSince) and, in the same
	// transaction, makes every held delivery of it pending with a
	// WebhookJob each; it returns how many. Resuming an active endpoint
	// re-queues nothing. Returns NOT_FOUND.
	ResumeWebhookEndpoint(ctx context.Context, tenantID, id string) (int, error)
	// RotateWebhookSecret adds secret (sealed for this endpoint by
	// NewWebhookSecret) as the newest, with CreatedAt now; the secrets
	// that were active expire at now+overlap (overlap 0: at once, so only
	// the new one signs), and secrets already expired at now are deleted.
	// Returns NOT_FOUND, or INVALID_REQUEST for a negative overlap or an
	// empty secret.
	RotateWebhookSecret(ctx context.Context, tenantID, id string, secret WebhookSecret, overlap time.Duration, now time.Time) error
	// DisableWebhookEndpoint disables the endpoint for reason and, in the
	// same transaction, fails its pending and held deliveries and writes a
	// webhook_endpoint.disabled event (payload endpointId, url, reason),
	// which fans out to the tenant's other endpoints. It returns false,
	// changing nothing, if the endpoint was already disabled. Returns
	// NOT_FOUND.
	DisableWebhookEndpoint(ctx context.Context, tenantID, id, reason string, now time.Time) (bool, error)
	// DeleteWebhookEndpoint deletes the endpoint softly, in one
	// transaction: from then on no method that takes its id finds it
	// (NOT_FOUND), FindWebhookEndpoints does not list it, no event fans
	// out to it, and its pending and held deliveries are failed (LastError
	// "Endpoint deleted."). Its past deliveries and their attempts stay in
	// the delivery log until retention deletes them; FindWebhookWork still
	// returns its deliveries, with the endpoint disabled, so a job already
	// queued ends without an attempt. No event is written. Returns
	// NOT_FOUND, also for an endpoint already deleted.
	DeleteWebhookEndpoint(ctx context.Context, tenantID, id string, now time.Time) error

	// FindWebhookDelivery returns one of the tenant's deliveries with its
	// attempts (AttemptLog, oldest first). Returns NOT_FOUND.
	FindWebhookDelivery(ctx context.Context, tenantID, id string) (*WebhookDelivery, error)
	// ListWebhookDeliveries lists the tenant's deliveries in env, newest
	// first (by createdAt, then id), without their attempts; FailedOnly
	// keeps failed ones; Cursor starts after the delivery it names. Returns
	// INVALID_REQUEST for a malformed cursor.
	ListWebhookDeliveries(ctx context.Context, tenantID string, env Environment, f WebhookDeliveryFilter) ([]*WebhookDelivery, error)
	// FindEventWebhookDeliveries lists the tenant's deliveries of the
	// events eventIDs (replays included), oldest first (by createdAt,
	// then id), without their attempts.
	FindEventWebhookDeliveries(ctx context.Context, tenantID string, eventIDs []string) ([]*WebhookDelivery, error)
	// ReplayWebhookDelivery creates a new delivery (trigger replay, ReplayOf
	// the original) of the same event to the same endpoint: pending with a
	// WebhookJob, or held if the endpoint is paused. Any delivery can be
	// replayed, whatever its status. Returns NOT_FOUND, or CONFLICT if the
	// endpoint is disabled.
	ReplayWebhookDelivery(ctx context.Context, tenantID, deliveryID string, now time.Time) (*WebhookDelivery, error)
	// ReplayFailedWebhookDeliveries replays, in one transaction, every
	// failed delivery of the tenant in env created at or after since (of
	// endpointID only, unless it is "") that was not replayed before, to
	// endpoints that are not disabled; it returns how many. Calling it
	// twice replays each failed delivery once. Returns NOT_FOUND for an
	// unknown endpointID, CONFLICT if that endpoint is disabled.
	ReplayFailedWebhookDeliveries(ctx context.Context, tenantID string, env Environment, endpointID string, since, now time.Time) (int, error)
	// CreateTestWebhookDelivery creates a delivery (trigger test) of a
	// synthetic EventWebhookEndpointTest event to the endpoint, whatever
	// its event filter: pending with a WebhookJob, or held if the endpoint
	// is paused. The event is kept with the delivery, not in the events
	// outbox. Returns NOT_FOUND, or CONFLICT if the endpoint is disabled.
	CreateTestWebhookDelivery(ctx context.Context, tenantID, endpointID string, now time.Time) (*WebhookDelivery, error)

	// FindWebhookWork returns a delivery by id with its endpoint (and
	// secrets) and event, for the delivery job. Returns NOT_FOUND.
	FindWebhookWork(ctx context.Context, deliveryID string) (*WebhookWork, error)
	// HoldWebhookDelivery makes a pending delivery held, for the job that
	// finds its endpoint paused; it returns false, changing nothing, if the
	// delivery is not pending or its endpoint is no longer paused (resumed
	// meanwhile: the job should attempt it). Returns NOT_FOUND.
	HoldWebhookDelivery(ctx context.Context, deliveryID string) (bool, error)
	// RecordWebhookAttempt, in one transaction, appends a (numbered by the
	// store, ResponseBody truncated to WebhookResponseBodyLimit), counts
	// it on its delivery and applies o: WebhookSucceeded makes the
	// delivery succeeded, whatever it was; WebhookFailed makes a pending
	// or held delivery failed; WebhookPending makes a pending delivery
	// due at o.NextAttemptAt. A delivery that is already final (or held,
	// unless succeeded) keeps its status. On success the endpoint's
	// FailingSince is cleared; on failure it is set to a.At unless already
	// set. LastError is a.Error (or the response status) after a failure,
	// "" after a success. It returns the delivery as it is after. Returns
	// NOT_FOUND, or INVALID_REQUEST for an unknown o.Status or a pending
	// outcome without NextAttemptAt.
	RecordWebhookAttempt(ctx context.Context, a *WebhookAttempt, o WebhookOutcome) (*WebhookDelivery, error)
	// DeleteEventsBefore deletes, across tenants, the events created
	// before t together with their deliveries and attempt logs, and test
	// deliveries created before t. Events that a pending or held delivery
	// still needs are kept, with all their deliveries, until it is final.
	// It returns how many events it deleted.
	DeleteEventsBefore(ctx context.Context, t time.Time) (int, error)
}

// CheckWebhookOutcome validates o. Returns INVALID_REQUEST.
func CheckWebhookOutcome(o WebhookOutcome) error {
	switch o.Status {
	case WebhookSucceeded, WebhookFailed:
		return nil
	case WebhookPending:
		if o.NextAttemptAt.IsZero() {
			return Errorf(CodeInvalidRequest, "A pending outcome needs the time of the next attempt.")
		}
		return nil
	}
	return Errorf(CodeInvalidRequest, "Unknown webhook outcome %q: use succeeded, pending or failed.", o.Status)
}

// ApplyWebhookOutcome is the rule of RecordWebhookAttempt: the status and
// next attempt time of a delivery in status after attempt a with outcome o,
// and its LastError. Success always wins; a failure ends a pending or held
// delivery; a retry reschedules a pending one; anything else keeps status.
func ApplyWebhookOutcome(status WebhookDeliveryStatus, a *WebhookAttempt, o WebhookOutcome) (WebhookDeliveryStatus, *time.Time, string) {
	switch {
	case o.Status == WebhookSucceeded:
		return WebhookSucceeded, nil, ""
	case o.Status == WebhookFailed && (status == WebhookPending || status == WebhookHeld):
		status = WebhookFailed
	case o.Status == WebhookPending && status == WebhookPending:
		next := o.NextAttemptAt.UTC().Truncate(time.Microsecond)
		return WebhookPending, &next, a.describeFailure()
	}
	if status == WebhookSucceeded {
		return status, nil, ""
	}
	return status, nil, a.describeFailure()
}

// describeFailure is the LastError of a failed attempt: its Error, else its
// response status, else its error class.
func (a *WebhookAttempt) describeFailure() string {
	switch {
	case a.Error != "":
		return a.Error
	case a.ResponseStatus != 0:
		return fmt.Sprintf("HTTP %d", a.ResponseStatus)
	case a.ErrorClass != "":
		return a.ErrorClass
	}
	return "failed"
}

// TruncateWebhookBody returns the first WebhookResponseBodyLimit bytes of b.
func TruncateWebhookBody(b []byte) []byte {
	if len(b) > WebhookResponseBodyLimit {
		return b[:WebhookResponseBodyLimit:WebhookResponseBodyLimit]
	}
	return b
}

// NewTestWebhookEvent is the synthetic event of a test delivery to an
// endpoint: type EventWebhookEndpointTest, no document, payload
// {endpointId}.
func NewTestWebhookEvent(tenantID string, env Environment, endpointID string, now time.Time) *Event {
	return &Event{
		ID:          NewID(),
		Type:        EventWebhookEndpointTest,
		CreatedAt:   now,
		TenantID:    tenantID,
		Environment: env,
		Data: EventData{
			Severity: "info",
			Message:  "A test event from Sello.",
			Payload:  map[string]any{"endpointId": endpointID},
		},
	}
}
