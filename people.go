package sello

import (
	"context"
	"net/netip"
	"time"
)

// This file is the contract between the portal (package portal) and the
// stores for the people who use the portal: users, their memberships in
// tenants, their sessions, one-time links and the audit log (spec §4.5,
// DESIGN §7). The stores implement PeopleStore; storetest holds the
// contract both engines must meet.

// Role is what a portal user may do in one tenant.
type Role string

// The portal's roles, from most to least powerful.
const (
	// RoleOwner may do everything, including managing users, requiring a
	// second factor and reading the audit log.
	RoleOwner Role = "owner"
	// RoleAdmin may do everything but manage users and read the audit log.
	RoleAdmin Role = "admin"
	// RoleDeveloper manages API keys and webhooks and reads everything else.
	RoleDeveloper Role = "developer"
	// RoleAccountant works with documents, received documents and their
	// approvals, and sequences, and reads everything else.
	RoleAccountant Role = "accountant"
)

// Roles lists every role, most powerful first.
var Roles = []Role{RoleOwner, RoleAdmin, RoleDeveloper, RoleAccountant}

// User is a person who logs in to the portal. A user may belong to several
// tenants (Membership), with one role in each.
type User struct {
	ID    string
	Email string // lower case, unique
	// PasswordHash is the argon2id encoding of the password ("" until the
	// user sets one through an invitation link).
	PasswordHash string
	// Language is the portal's language for this user: "es" (default) or "en".
	Language string
	// TOTPSecret is the sealed (MasterKey) TOTP secret; nil while the user
	// has no second factor.
	TOTPSecret []byte
	// TOTPConfirmedAt is when the user proved the second factor with a code;
	// the factor counts only once it is set.
	TOTPConfirmedAt *time.Time
	// TOTPLastStep is the last time step whose code the user used (0 for
	// none): a code of that step or an earlier one is refused, so a code
	// works once (RFC 6238 §5.2). Only UseTOTPStep changes it.
	TOTPLastStep int64
	// RecoveryCodeHashes are the SHA-256 hashes of the unused recovery codes.
	RecoveryCodeHashes [][]byte
	CreatedAt          time.Time
}

// Membership is a user's role in one tenant.
type Membership struct {
	TenantID  string
	UserID    string
	Email     string // the user's, for lists
	Role      Role
	CreatedAt time.Time
}

// Session is a logged-in browser. Only the SHA-256 hash of the cookie's
// random token is stored.
type Session struct {
	ID        string
	TokenHash []byte
	UserID    string
	// TenantID is the tenant the session is working in (the switcher).
	TenantID string
	// CSRFToken is the per-session token forms carry.
	CSRFToken string
	// SecondFactorAt is when the session passed TOTP; nil until then (and
	// for users without a second factor).
	SecondFactorAt *time.Time
	Address        netip.Addr
	UserAgent      string
	CreatedAt      time.Time
	LastSeenAt     time.Time
	// ExpiresAt is the absolute expiry (CreatedAt + 12 h).
	ExpiresAt time.Time
	RevokedAt *time.Time
}

// LinkPurpose is what a one-time link is for.
type LinkPurpose string

// The one-time links' purposes.
const (
	// LinkInvite lets a new or existing user join a tenant with a role (the
	// first owner's link, from the CLI, is one too).
	LinkInvite LinkPurpose = "invite"
	// LinkReset lets a user set a new password.
	LinkReset LinkPurpose = "reset"
)

// OneTimeLink is an invitation or a password reset. Only the SHA-256 hash
// of the link's random token is stored; it can be used once, before
// ExpiresAt.
type OneTimeLink struct {
	ID        string
	TokenHash []byte
	Purpose   LinkPurpose
	Email     string
	TenantID  string // invitations only
	Role      Role   // invitations only
	CreatedBy string // user id; "" when the operator's CLI made it
	ExpiresAt time.Time
	UsedAt    *time.Time
	CreatedAt time.Time
}

// AuditEntry is one change a user made. Entries are append-only and
// chained: Hash covers PrevHash and every other field, so an edited or
// removed entry breaks the chain (sello audit verify).
type AuditEntry struct {
	// Seq is the entry's place in its tenant's chain, from 1.
	Seq      int64
	ID       string
	TenantID string
	// ActorID and ActorEmail name the user ("" and "operator" for the CLI).
	ActorID    string
	ActorEmail string
	// Action is a dotted verb, e.g. "api_key.created", "user.role_changed".
	Action string
	// Target is the id of what changed.
	Target  string
	Address string
	// Before and After are JSON where the change has a before and after.
	Before, After []byte
	At            time.Time
	PrevHash      []byte
	Hash          []byte
}

// PeopleStore keeps the portal's users, memberships, sessions, one-time
// links, login attempts and audit log.
type PeopleStore interface {
	// CreateUser stores u and sets its ID and CreatedAt; the email is kept
	// as NormalizeEmail gives it. Returns INVALID_REQUEST for an email that
	// is not one, CONFLICT if the email is taken.
	CreateUser(ctx context.Context, u *User) error
	// FindUserByID and FindUserByEmail return NOT_FOUND. The email is
	// looked up as NormalizeEmail gives it.
	FindUserByID(ctx context.Context, id string) (*User, error)
	FindUserByEmail(ctx context.Context, email string) (*User, error)
	// UpdateUser stores u's password hash, language, TOTP secret and
	// confirmation, and recovery codes (not TOTPLastStep). It overwrites
	// them all: read the user again just before. Returns NOT_FOUND.
	UpdateUser(ctx context.Context, u *User) error
	// UseTOTPStep records that the user used the code of step: it sets
	// TOTPLastStep to step if step is later, atomically, and returns
	// CONFLICT otherwise (the code, or an earlier one, was used: a replay).
	// Returns NOT_FOUND for an unknown user.
	UseTOTPStep(ctx context.Context, userID string, step int64) error
	// UseRecoveryCode removes the recovery code with that hash from the
	// user's unused ones, atomically, at most once however many callers
	// race. Returns NOT_FOUND if the user has no such unused code.
	UseRecoveryCode(ctx context.Context, userID string, hash []byte) error

	// PutMembership gives the user the role in the tenant (adding or
	// changing it) and sets m's CreatedAt (the first membership's, on a
	// change) and Email. A tenant with members always has an owner: returns
	// CONFLICT if the change would leave it without one (the last owner's
	// demotion, or a first member who is not an owner), checked in the
	// same transaction as the change. Returns INVALID_REQUEST for an
	// unknown role, NOT_FOUND for an unknown tenant or user.
	PutMembership(ctx context.Context, m *Membership) error
	// DeleteMembership removes a user from a tenant. Returns NOT_FOUND, or
	// CONFLICT if the user is the tenant's last owner.
	DeleteMembership(ctx context.Context, tenantID, userID string) error
	// FindMemberships lists a tenant's members by email.
	FindMemberships(ctx context.Context, tenantID string) ([]*Membership, error)
	// FindUserMemberships lists the tenants a user belongs to.
	FindUserMemberships(ctx context.Context, userID string) ([]*Membership, error)

	// SetSecondFactorRequired sets whether the tenant requires every
	// member to log in with a second factor (an owner's choice); a new
	// tenant does not. SecondFactorRequired reads it. Both return
	// NOT_FOUND for an unknown tenant.
	SetSecondFactorRequired(ctx context.Context, tenantID string, required bool) error
	SecondFactorRequired(ctx context.Context, tenantID string) (bool, error)

	// CreateSession stores s and sets its ID; a zero CreatedAt is the
	// store's clock, a zero LastSeenAt CreatedAt, a zero ExpiresAt
	// SessionLifetime after CreatedAt. Returns INVALID_REQUEST
	// without a token hash, NOT_FOUND for an unknown user or tenant,
	// CONFLICT if the token hash exists.
	CreateSession(ctx context.Context, s *Session) error
	// FindSessionByTokenHash returns the session, revoked or expired ones
	// included (the caller decides). Returns NOT_FOUND.
	FindSessionByTokenHash(ctx context.Context, hash []byte) (*Session, error)
	// TouchSession sets LastSeenAt (idle expiry counts from it). Returns
	// NOT_FOUND.
	TouchSession(ctx context.Context, id string, now time.Time) error
	// UpdateSession stores s's tenant and SecondFactorAt. Returns
	// NOT_FOUND.
	UpdateSession(ctx context.Context, s *Session) error
	// RevokeSession revokes one session (NOT_FOUND; revoking twice keeps
	// the first time); RevokeUserSessions every session of a user but the
	// one with id except ("" for all).
	RevokeSession(ctx context.Context, id string, now time.Time) error
	RevokeUserSessions(ctx context.Context, userID, except string, now time.Time) error
	// PruneSessions deletes the sessions no one can use any more: revoked,
	// expired (ExpiresAt at or before now) or idle (LastSeenAt before
	// idleBefore), and returns how many.
	PruneSessions(ctx context.Context, now, idleBefore time.Time) (int64, error)

	// CreateLink stores l and sets its ID and CreatedAt. An invitation
	// needs a tenant and a role, a reset neither. Returns INVALID_REQUEST,
	// NOT_FOUND for an unknown tenant, CONFLICT if the token hash exists.
	CreateLink(ctx context.Context, l *OneTimeLink) error
	// UseLink marks the unused, unexpired link with that hash used at now
	// and returns it, at most once however many callers race. Returns
	// NOT_FOUND for an unknown, used or expired link.
	UseLink(ctx context.Context, hash []byte, now time.Time) (*OneTimeLink, error)
	// FindLink returns the unused, unexpired link with that hash without
	// using it (the page a link opens reads it; only its form uses it, so
	// that a mail scanner that follows the link does not spend it). Returns
	// NOT_FOUND for an unknown, used or expired link.
	FindLink(ctx context.Context, hash []byte, now time.Time) (*OneTimeLink, error)
	// PruneLinks deletes the links used or expired before now and returns
	// how many.
	PruneLinks(ctx context.Context, now time.Time) (int64, error)

	// AppendAudit appends e to its tenant's chain: it sets Seq, ID,
	// PrevHash and Hash (AuditHash) in the same transaction as it reads the
	// chain's last entry, so that concurrent appends never fork the chain.
	// At is the store's clock when zero, and is kept to the microsecond.
	// Returns INVALID_REQUEST without an action, NOT_FOUND for an unknown
	// tenant.
	AppendAudit(ctx context.Context, e *AuditEntry) error
	// FindAudit lists a tenant's entries, newest first, filtered.
	// Limit defaults to DefaultAuditLimit and is at most MaxAuditLimit.
	FindAudit(ctx context.Context, tenantID string, f AuditFilter) ([]*AuditEntry, error)
	// AuditChain returns every entry of a tenant's chain in Seq order, for
	// VerifyAuditChain.
	AuditChain(ctx context.Context, tenantID string) ([]*AuditEntry, error)
}

// AuditFilter narrows FindAudit.
type AuditFilter struct {
	ActorID string
	Action  string // prefix, e.g. "api_key."
	Since   time.Time
	Before  int64 // Seq cursor: entries with Seq < Before; 0 for the newest
	Limit   int
}

// FindAudit's page sizes.
const (
	DefaultAuditLimit = 50
	MaxAuditLimit     = 500
)
