package sello

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"sync"
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

// ReceiverSeed is a seed of a tenant's receiver (DGII's SemillaModel): its
// valor and its fecha, the time it was issued.
//
// Seeds are stateless: the valor is a random nonce and a MAC, under a
// server key every node shares (MasterKey.DeriveKey), of the nonce, the
// environment, the receiver's RNC and the fecha. Issuing one stores
// nothing, so a flood of semilla calls writes nothing; a seed is recorded
// only when it is redeemed (RedeemReceiverSeed), once.
type ReceiverSeed struct {
	Value    string
	IssuedAt time.Time
}

// The seed's valor: seedNonceSize random bytes then seedMACSize bytes of
// HMAC-SHA256, in unpadded base32 (52 characters of A–Z and 2–7).
const (
	seedNonceSize = 16
	seedMACSize   = 16
	// seedPrecision is the fecha's: seven fractional digits.
	seedPrecision = 100 * time.Nanosecond
)

var seedEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// IssueReceiverSeed returns a fresh seed of the receiver at rnc in env,
// issued at now, under key.
func IssueReceiverSeed(key []byte, env Environment, rnc string, now time.Time) ReceiverSeed {
	nonce := make([]byte, seedNonceSize, seedNonceSize+seedMACSize)
	rand.Read(nonce)
	at := now.Round(0).Truncate(seedPrecision)
	return ReceiverSeed{Value: seedEncoding.EncodeToString(append(nonce, seedMAC(key, env, rnc, nonce, at)...)), IssuedAt: at}
}

// ExpiresAt is when the seed can no longer be redeemed: ReceiverSeedTTL
// after its fecha.
func (s ReceiverSeed) ExpiresAt() time.Time { return s.IssuedAt.Add(ReceiverSeedTTL) }

// Check reports whether s, valor and fecha, is a seed IssueReceiverSeed
// gave the receiver at rnc in env under key, unexpired at now (and not
// issued more than ReceiverClockSkew after it). Whether it was used is the
// store's to say. Returns UNAUTHENTICATED (ReceiverSeedRefused).
func (s ReceiverSeed) Check(key []byte, env Environment, rnc string, now time.Time) error {
	raw, err := seedEncoding.DecodeString(s.Value)
	if err != nil || len(raw) != seedNonceSize+seedMACSize {
		return ReceiverSeedRefused()
	}
	nonce, mac := raw[:seedNonceSize], raw[seedNonceSize:]
	if !hmac.Equal(mac, seedMAC(key, env, rnc, nonce, s.IssuedAt)) {
		return ReceiverSeedRefused()
	}
	if !now.Before(s.ExpiresAt()) || s.IssuedAt.After(now.Add(ReceiverClockSkew)) {
		return ReceiverSeedRefused()
	}
	return nil
}

// seedMAC is the MAC of a seed's nonce for the receiver at rnc in env,
// issued at at.
func seedMAC(key []byte, env Environment, rnc string, nonce []byte, at time.Time) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("sello receiver seed\x00" + string(env) + "\x00" + rnc + "\x00"))
	m.Write(nonce)
	m.Write(binary.BigEndian.AppendUint64(nil, uint64(at.UnixNano())))
	return m.Sum(nil)[:seedMACSize]
}

// NewReceiverToken returns a token of the tenant's receiver in env issued
// at now to the signer of its seed, and its plaintext, shown once.
func NewReceiverToken(tenantID string, env Environment, signer *Signer, now time.Time) (*ReceiverToken, string) {
	plain := rand.Text() + rand.Text()
	return &ReceiverToken{
		TenantID: tenantID, Environment: env, Hash: HashReceiverToken(plain),
		IssuedAt: now, ExpiresAt: now.Add(ReceiverTokenTTL), Signer: signer,
	}, plain
}

// TokenCache keeps the receiver tokens the store found, by hash, for the
// calls after: a token's row never changes and nothing withdraws a token
// before it expires (the prune deletes only expired ones), so a supplier's
// hour of deliveries need look its token up once. Each use is still
// checked: the tenant, the environment and the expiry at that call. Only
// tokens found are kept, so unknown ones do not fill it. The zero value is
// ready; a nil *TokenCache asks the store every time.
type TokenCache struct {
	mu sync.Mutex
	m  map[string]*ReceiverToken // hash → token
}

// maxCachedTokens bounds a TokenCache: past it, the expired tokens are
// forgotten, and all of them if none is.
const maxCachedTokens = 10_000

// Check is ReceiverStore.CheckReceiverToken through the cache.
func (c *TokenCache) Check(ctx context.Context, store ReceiverStore, tenantID string, env Environment, hash []byte, now time.Time) (*ReceiverToken, error) {
	if c == nil {
		return store.CheckReceiverToken(ctx, tenantID, env, hash, now)
	}
	c.mu.Lock()
	tok := c.m[string(hash)]
	c.mu.Unlock()
	if tok != nil && tok.TenantID == tenantID && tok.Environment == env && now.Before(tok.ExpiresAt) {
		return tok, nil
	}
	tok, err := store.CheckReceiverToken(ctx, tenantID, env, hash, now)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxCachedTokens {
		for h, t := range c.m {
			if !now.Before(t.ExpiresAt) {
				delete(c.m, h)
			}
		}
	}
	if c.m == nil || len(c.m) >= maxCachedTokens {
		c.m = map[string]*ReceiverToken{}
	}
	c.m[string(hash)] = tok
	return tok, nil
}

// HashReceiverToken is what the store keeps of a token's plaintext.
func HashReceiverToken(plain string) []byte {
	sum := sha256.Sum256([]byte(plain))
	return sum[:]
}

// ReceiverSeedRefused is RedeemReceiverSeed's refusal.
func ReceiverSeedRefused() error {
	return Errorf(CodeUnauthenticated, "The seed is not one this receiver issued, or it was used or expired.")
}

// ReceiverTokenRefused is CheckReceiverToken's refusal.
func ReceiverTokenRefused() error {
	return Errorf(CodeUnauthenticated, "The token is not one this receiver issued, or it was used or expired.")
}

// ReceiverStore keeps the seeds and tokens of the tenants' receiver
// services (DESIGN §6) and whether they require a token.
type ReceiverStore interface {
	// RedeemReceiverSeed records the seed value of the tenant's receiver
	// in env as used, kept until expiresAt (the seed's own expiry), and
	// stores tok in the same transaction. Returns UNAUTHENTICATED
	// (ReceiverSeedRefused) when the seed was redeemed before, and
	// NOT_FOUND if the tenant does not exist.
	RedeemReceiverSeed(ctx context.Context, tenantID string, env Environment, value string, expiresAt time.Time, tok *ReceiverToken) error
	// CheckReceiverToken returns the token of that hash issued to the
	// tenant in env, with its signer, when it is unexpired at now, else
	// UNAUTHENTICATED (ReceiverTokenRefused).
	CheckReceiverToken(ctx context.Context, tenantID string, env Environment, hash []byte, now time.Time) (*ReceiverToken, error)
	// DeleteExpiredReceiverAuth forgets, across tenants, the used seeds
	// and the tokens expired at now (a range of an index on their expiry),
	// and returns how many of each it deleted.
	DeleteExpiredReceiverAuth(ctx context.Context, now time.Time) (seeds, tokens int64, err error)
	// SetReceiverAuth sets whether the tenant's receiver services require
	// a token (Tenant.ReceiverAuthOff is its opposite). Returns NOT_FOUND.
	SetReceiverAuth(ctx context.Context, tenantID string, required bool) error
}
