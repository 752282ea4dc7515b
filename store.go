package sello

import (
	"context"
	"time"
)

// Store is everything Sello keeps. The sqlite and postgres packages implement
// it; storetest.Run holds the contract both must meet. Every method that
// touches a tenant's rows takes the tenant id explicitly and never reads or
// changes another tenant's rows.
type Store interface {
	TenantStore
	APIKeyStore
	SequenceStore
	DocumentStore
	EventStore
	LifecycleStore
	CertificateStore
	WebhookStore
	InboundStore
	ReceivedApprovalStore
	ReceiverStore
	ApprovalStore
	VoidStore
	CertificationStore
	ReachabilityStore
	PeopleStore
	OverviewStore
	// Close releases the store's connections.
	Close() error
}

// TenantStore keeps tenants.
type TenantStore interface {
	// CreateTenant stores t and sets its ID and CreatedAt. Returns
	// INVALID_REQUEST if t is not valid and CONFLICT if its RNC exists.
	CreateTenant(ctx context.Context, t *Tenant) error
	// FindTenantByID returns NOT_FOUND if there is no such tenant.
	FindTenantByID(ctx context.Context, id string) (*Tenant, error)
	// FindTenantByRNC returns NOT_FOUND if there is no such tenant.
	FindTenantByRNC(ctx context.Context, rnc string) (*Tenant, error)
	// FindTenants lists every tenant by RNC.
	FindTenants(ctx context.Context) ([]*Tenant, error)
	// UpdateTenantPlan sets a tenant's rate plan. Returns NOT_FOUND or
	// INVALID_REQUEST.
	UpdateTenantPlan(ctx context.Context, tenantID string, plan RatePlan) error
}

// APIKeyStore keeps API keys (their hashes).
type APIKeyStore interface {
	// CreateAPIKey stores k and sets its ID and CreatedAt. Returns NOT_FOUND
	// if the tenant does not exist.
	CreateAPIKey(ctx context.Context, k *APIKey) error
	// FindAPIKeyByHash returns the key with that hash and its tenant, active
	// or not. Returns NOT_FOUND.
	FindAPIKeyByHash(ctx context.Context, hash []byte) (*APIKey, *Tenant, error)
	// FindAPIKey returns one of the tenant's keys, revoked or not. Returns
	// NOT_FOUND if the tenant has no such key.
	FindAPIKey(ctx context.Context, tenantID, keyID string) (*APIKey, error)
	// FindAPIKeys lists a tenant's keys, newest first, revoked ones included.
	FindAPIKeys(ctx context.Context, tenantID string) ([]*APIKey, error)
	// RecordAPIKeyUse notes that one of the tenant's keys authenticated a
	// request at `at` from addr: it sets the key's LastUsedAt and
	// LastUsedAddress, and its FirstUsedAt if it has none (a first use is
	// never overwritten). When the key's last recorded use is later than
	// at minus every, it changes nothing, so that the nodes sharing a
	// store write one key's use at most once per every between them (and
	// a late clock never moves it back). Reports whether it wrote; a key
	// that is not the tenant's is left alone (false, nil).
	RecordAPIKeyUse(ctx context.Context, tenantID, keyID string, at time.Time, addr string, every time.Duration) (bool, error)
	// RevokeAPIKey revokes one of the tenant's keys at now. Returns NOT_FOUND
	// if the tenant has no such key; revoking twice keeps the first time.
	RevokeAPIKey(ctx context.Context, tenantID, keyID string, now time.Time) error
}

// DocumentStore keeps documents.
type DocumentStore interface {
	// CreateDocument creates a document in status queued_for_signing, with
	// its ecf.queued event and its DocumentJob, in one transaction (stores
	// implement it with the domain's CreateDocument). It takes the e-NCF from
	// d.ENCF or, when that is empty, the next unused number of the oldest
	// usable range of d.Type; then calls d.Prepare and stores the result.
	// Concurrent creates never share a number and never skip one.
	//
	// With an idempotency key already used for the same request hash in the
	// last 24 hours it returns the document as first created and replayed =
	// true, creating nothing.
	//
	// Returns IDEMPOTENCY_KEY_REUSED if the key was used with another
	// request; SEQUENCE_EXHAUSTED if no usable range has a number left;
	// VALIDATION_FAILED if d.ENCF lies in no registered range or its range
	// expired; CONFLICT (naming the document) if d.ENCF is used; and any
	// error Prepare returns.
	CreateDocument(ctx context.Context, d DocumentDraft) (doc *Document, replayed bool, err error)
	// FindDocument returns NOT_FOUND if the tenant has no such document in env.
	FindDocument(ctx context.Context, tenantID string, env Environment, encf string) (*Document, error)
	// FindDocumentsByENCF returns the tenant's documents in env among encfs,
	// in no particular order, without their Payload; unknown numbers are
	// simply absent.
	FindDocumentsByENCF(ctx context.Context, tenantID string, env Environment, encfs []string) ([]*Document, error)
	// ListDocuments returns a page of the tenant's documents in env, newest
	// first and without their Payload, and the cursor of the next page ("" on the last). Returns
	// INVALID_REQUEST for a malformed cursor.
	ListDocuments(ctx context.Context, tenantID string, env Environment, f DocumentFilter) (docs []*Document, next string, err error)
}

// EventStore reads the outbox of events.
type EventStore interface {
	// ListEvents returns the tenant's events in env after position f.After,
	// in position order: an event listed is never followed, in a later call,
	// by one at an earlier position (on PostgreSQL only events of
	// transactions older than every running one are listed).
	ListEvents(ctx context.Context, tenantID string, env Environment, f EventFilter) ([]*Event, error)
	// FindDocumentEvents returns the events about the tenant's document
	// documentID in env (those whose Document is it) that are still kept
	// (EventRetention), in the feed's order. No index leads to them: it
	// reads the tenant's events in env (docs/benchmarks.md).
	FindDocumentEvents(ctx context.Context, tenantID string, env Environment, documentID string) ([]*Event, error)
}
