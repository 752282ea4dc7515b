package sello

import (
	"context"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// The rules of issuing and rotating API keys, shared by the operator's CLI
// (sello keys create) and the portal (Claves API), so that both refuse and
// accept the same keys.

// MaxAPIKeyNameLength bounds a key's name (in characters).
const MaxAPIKeyNameLength = 100

// APIKeyRequest is what a person asks for when issuing a key.
type APIKeyRequest struct {
	Environment Environment
	// Name tells the key apart (the integration it is for); may be empty.
	Name string
	// Scopes are the key's permissions: at least one.
	Scopes []Scope
	// ExpiresOn is the last day, in the Dominican Republic, on which the
	// key works; nil for a key that does not expire (spec §2.1: keys do
	// not expire unless a policy says so).
	ExpiresOn *Date
}

// APIKeyExpiry is the instant a key whose last day is d stops working:
// the end of d in the Dominican Republic, so that it works through the
// whole day.
func APIKeyExpiry(d Date) time.Time {
	return time.Date(d.Year, d.Month, d.Day+1, 0, 0, 0, 0, DRZone).UTC()
}

// IssueAPIKey checks req and stores a new key of the tenant made from it,
// at now. It returns the stored key and its plaintext, which is shown
// once and never stored. Returns INVALID_REQUEST for an unknown
// environment, no scope or an unknown one, a name over
// MaxAPIKeyNameLength, or a last day before today; NOT_FOUND for an
// unknown tenant.
func IssueAPIKey(ctx context.Context, s APIKeyStore, tenantID string, req APIKeyRequest, now time.Time) (*APIKey, string, error) {
	if _, err := ParseEnvironment(string(req.Environment)); err != nil {
		return nil, "", err
	}
	if len(req.Scopes) == 0 {
		return nil, "", Errorf(CodeInvalidRequest, "A key needs at least one scope: %s.", JoinScopes(Scopes))
	}
	scopes, err := ParseScopes(JoinScopes(req.Scopes))
	if err != nil {
		return nil, "", err
	}
	name := strings.TrimSpace(req.Name)
	if n := utf8.RuneCountInString(name); n > MaxAPIKeyNameLength {
		return nil, "", Errorf(CodeInvalidRequest, "A key's name must be at most %d characters (got %d).", MaxAPIKeyNameLength, n)
	}
	var exp *time.Time
	if req.ExpiresOn != nil {
		at := APIKeyExpiry(*req.ExpiresOn)
		if !at.After(now) {
			return nil, "", Errorf(CodeInvalidRequest, "Expiry %s is in the past.", *req.ExpiresOn)
		}
		exp = &at
	}
	k, plaintext := NewAPIKey(tenantID, req.Environment, name, scopes, exp)
	if err := s.CreateAPIKey(ctx, k); err != nil {
		return nil, "", err
	}
	return k, plaintext, nil
}

// RotateAPIKey issues the key that replaces the tenant's key oldID (spec
// §5, rule 6): a new key with the old one's environment, name, scopes and
// expiry. The old key keeps working until it is revoked, so that the
// clients can move to the new one; CheckAPIKeyRotation then says whether
// they have. Returns the new key and its plaintext, shown once. Returns
// NOT_FOUND if the tenant has no such key, and CONFLICT if it is revoked
// or expired (nothing is using it: issue a new key instead).
func RotateAPIKey(ctx context.Context, s APIKeyStore, tenantID, oldID string, now time.Time) (*APIKey, string, error) {
	old, err := s.FindAPIKey(ctx, tenantID, oldID)
	if err != nil {
		return nil, "", err
	}
	if !old.Active(now) {
		return nil, "", Errorf(CodeConflict, "Key %s is revoked or expired: there is nothing to rotate; create a new key instead.", old.ID)
	}
	var exp *time.Time
	if old.ExpiresAt != nil {
		at := *old.ExpiresAt
		exp = &at
	}
	k, plaintext := NewAPIKey(tenantID, old.Environment, old.Name, slices.Clone(old.Scopes), exp)
	if err := s.CreateAPIKey(ctx, k); err != nil {
		return nil, "", err
	}
	return k, plaintext, nil
}
