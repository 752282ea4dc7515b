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
	// CreateUser stores u and sets its ID and CreatedAt. Returns CONFLICT if
	// the email is taken.
	CreateUser(ctx context.Context, u *User) error
	// FindUserByID and FindUserByEmail return NOT_FOUND.
	FindUserByID(ctx context.Context, id string) (*User, error)
	FindUserByEmail(ctx context.Context, email string) (*User, error)
	// UpdateUser stores u's password hash, language, TOTP secret and
	// confirmation, and recovery codes.
	UpdateUser(ctx context.Context, u *User) error

	// PutMembership gives the user the role in the tenant (adding or
	// changing it). Returns CONFLICT if it would leave the tenant without an
	// owner.
	PutMembership(ctx context.Context, m *Membership) error
	// DeleteMembership removes a user from a tenant. Returns NOT_FOUND, or
	// CONFLICT if the user is the tenant's last owner.
	DeleteMembership(ctx context.Context, tenantID, userID string) error
	// FindMemberships lists a tenant's members by email.
	FindMemberships(ctx context.Context, tenantID string) ([]*Membership, error)
	// FindUserMemberships lists the tenants a user belongs to.
	FindUserMemberships(ctx context.Context, userID string) ([]*Membership, error)

	// CreateSession stores s and sets its ID.
	CreateSession(ctx context.Context, s *Session) error
	// FindSessionByTokenHash returns the session, revoked or expired ones
	// included (the caller decides). Returns NOT_FOUND.
	FindSessionByTokenHash(ctx context.Context, hash []byte) (*Session, error)
	// TouchSession sets LastSeenAt (idle expiry counts from it).
	TouchSession(ctx context.Context, id string, now time.Time) error
	// UpdateSession stores s's tenant and SecondFactorAt.
	UpdateSession(ctx context.Context, s *Session) error
	// RevokeSession revokes one session; RevokeUserSessions every session
	// of a user but the one with id except ("" for all).
	RevokeSession(ctx context.Context, id string, now time.Time) error
	RevokeUserSessions(ctx context.Context, userID, except string, now time.Time) error

	// CreateLink stores l and sets its ID and CreatedAt.
	CreateLink(ctx context.Context, l *OneTimeLink) error
	// UseLink marks the unused, unexpired link with that hash used at now
	// and returns it, at most once however many callers race. Returns
	// NOT_FOUND for an unknown, used or expired link.
	UseLink(ctx context.Context, hash []byte, now time.Time) (*OneTimeLink, error)

	// AppendAudit appends e to its tenant's chain: it sets Seq, ID,
	// PrevHash and Hash (AuditHash) in the same transaction as it reads the
	// chain's last entry, so that concurrent appends never fork the chain.
	AppendAudit(ctx context.Context, e *AuditEntry) error
	// FindAudit lists a tenant's entries, newest first, filtered.
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
