package sello

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"time"
)

// The lifetimes of the receiver's authentication (FACTS §1.2, §2.2): a
// seed must come back signed within ReceiverSeedTTL, and the token it buys
// is good for ReceiverTokenTTL, DGII's own hour.
const (
	ReceiverSeedTTL  = 5 * time.Minute
	ReceiverTokenTTL = time.Hour
)

// ReceiverToken is a bearer token Sello issued, for a signed seed, to a
// caller of a tenant's receiver services. Only its SHA-256 is kept.
type ReceiverToken struct {
	TenantID    string
	Environment Environment
	Hash        []byte
	IssuedAt    time.Time
	ExpiresAt   time.Time
	// Signer is who signed the seed the token was issued for: in eCF the
	// documents posted with the token must be signed by the same holder
	// (CheckTokenHolder).
	Signer *Signer
}

// NewReceiverSeed returns a fresh random seed value (26 base32 characters,
// 130 bits).
func NewReceiverSeed() string { return rand.Text() }

// NewReceiverToken returns a token of the tenant's receiver in env issued
// at now to the signer of its seed, and its plaintext, shown once.
func NewReceiverToken(tenantID string, env Environment, signer *Signer, now time.Time) (*ReceiverToken, string) {
	plain := rand.Text() + rand.Text()
	return &ReceiverToken{
		TenantID: tenantID, Environment: env, Hash: HashReceiverToken(plain),
		IssuedAt: now, ExpiresAt: now.Add(ReceiverTokenTTL), Signer: signer,
	}, plain
}

// HashReceiverToken is what the store keeps of a token's plaintext.
func HashReceiverToken(plain string) []byte {
	sum := sha256.Sum256([]byte(plain))
	return sum[:]
}

// receiverRefusal is the one answer to a seed or token that does not hold,
// whatever the reason, so a caller learns nothing from it.
func receiverRefusal(what string) error {
	return Errorf(CodeUnauthenticated, "The %s is not one this receiver issued, or it was used or expired.", what)
}

// ReceiverSeedRefused is RedeemReceiverSeed's refusal.
func ReceiverSeedRefused() error { return receiverRefusal("seed") }

// ReceiverTokenRefused is CheckReceiverToken's refusal.
func ReceiverTokenRefused() error { return receiverRefusal("token") }

// ReceiverStore keeps the seeds and tokens of the tenants' receiver
// services (DESIGN §6) and whether they require a token.
type ReceiverStore interface {
	// CreateReceiverSeed records a seed issued to a caller of the tenant's
	// receiver in env, good until expiresAt (and forgets the tenant's
	// expired ones). Returns NOT_FOUND if the tenant does not exist.
	CreateReceiverSeed(ctx context.Context, tenantID string, env Environment, value string, expiresAt time.Time) error
	// RedeemReceiverSeed uses the seed value, issued by
	// CreateReceiverSeed to the tenant in env, unused and unexpired at now,
	// and stores tok in the same transaction. Returns UNAUTHENTICATED
	// (ReceiverSeedRefused) otherwise.
	RedeemReceiverSeed(ctx context.Context, tenantID string, env Environment, value string, tok *ReceiverToken, now time.Time) error
	// CheckReceiverToken returns the token of that hash issued to the
	// tenant in env, with its signer, when it is unexpired at now, else
	// UNAUTHENTICATED (ReceiverTokenRefused).
	CheckReceiverToken(ctx context.Context, tenantID string, env Environment, hash []byte, now time.Time) (*ReceiverToken, error)
	// SetReceiverAuth sets whether the tenant's receiver services require
	// a token (Tenant.ReceiverAuthOff is its opposite). Returns NOT_FOUND.
	SetReceiverAuth(ctx context.Context, tenantID string, required bool) error
}
