package sello

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/mail"
	"strings"
	"time"
)

// NormalizeEmail returns the form a user's email is stored and looked up
// in: trimmed and in lower case. Returns INVALID_REQUEST for what is not a
// bare address (user@domain).
func NormalizeEmail(s string) (string, error) {
	e := strings.ToLower(strings.TrimSpace(s))
	a, err := mail.ParseAddress(e)
	if err != nil || a.Address != e || a.Name != "" || !strings.Contains(e[strings.LastIndexByte(e, '@')+1:], ".") {
		return "", Errorf(CodeInvalidRequest, "%q is not an email address.", s)
	}
	return e, nil
}

// ParseRole returns the role s names. Returns INVALID_REQUEST.
func ParseRole(s string) (Role, error) {
	for _, r := range Roles {
		if string(r) == s {
			return r, nil
		}
	}
	return "", Errorf(CodeInvalidRequest, "Unknown role %q: use owner, admin, developer or accountant.", s)
}

// NewToken returns a new random token for a session cookie or a one-time
// link (32 bytes, 256 bits, base64url without padding) and the hash the
// store keeps (HashToken).
func NewToken() (token string, hash []byte) {
	b := make([]byte, 32)
	rand.Read(b)
	token = base64.RawURLEncoding.EncodeToString(b)
	return token, HashToken(token)
}

// HashToken is the stored form of a session's or link's token: its
// SHA-256. A token has 256 random bits, so a fast hash is enough: a stolen
// database gives no usable token.
func HashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// InviteTTL is how long an invitation link works; ResetTTL a password
// reset link.
const (
	InviteTTL = 24 * time.Hour
	ResetTTL  = time.Hour
)

// LinkPath is the portal's path of a one-time link, followed by its token.
const LinkPath = "/enlace/"

// LinkURL is the address of the one-time link with token on the portal at
// base (e.g. "https://sello.example.com").
func LinkURL(base, token string) string {
	return strings.TrimRight(base, "/") + LinkPath + token
}

// A portal session's expiries: idle (from its last request) and absolute
// (from its login).
const (
	SessionIdle     = 30 * time.Minute
	SessionLifetime = 12 * time.Hour
)

// CheckLink checks a one-time link before it is stored and puts its email
// in NormalizeEmail's form: a token hash, a purpose, an expiry, and a
// tenant and a role for an invitation, neither for a reset. Returns
// INVALID_REQUEST.
func CheckLink(l *OneTimeLink) error {
	email, err := NormalizeEmail(l.Email)
	if err != nil {
		return err
	}
	switch {
	case len(l.TokenHash) == 0:
		return Errorf(CodeInvalidRequest, "Link token hash required.")
	case l.ExpiresAt.IsZero():
		return Errorf(CodeInvalidRequest, "Link expiry required.")
	}
	switch l.Purpose {
	case LinkInvite:
		if l.TenantID == "" {
			return Errorf(CodeInvalidRequest, "An invitation needs a tenant.")
		}
		if _, err := ParseRole(string(l.Role)); err != nil {
			return err
		}
	case LinkReset:
		if l.TenantID != "" || l.Role != "" {
			return Errorf(CodeInvalidRequest, "A password reset link has no tenant or role.")
		}
	default:
		return Errorf(CodeInvalidRequest, "Unknown link purpose %q.", l.Purpose)
	}
	l.Email = email
	return nil
}
