package sello

import (
	"crypto/rand"
	"crypto/sha256"
	"slices"
	"strings"
	"time"
)

// APIKey is a secret that authenticates a customer system in one environment
// with a set of scopes (spec §2.1, §5). Only its SHA-256 hash is stored; the
// plaintext is shown once, when it is created.
type APIKey struct {
	ID          string      `json:"id"`
	TenantID    string      `json:"tenantId"`
	Environment Environment `json:"environment"`
	Name        string      `json:"name"`
	Scopes      []Scope     `json:"scopes"`
	// Hash is SHA-256 of the plaintext key.
	Hash []byte `json:"-"`
	// Last4 is the plaintext's last four characters, to tell keys apart.
	Last4     string     `json:"last4"`
	ExpiresAt *time.Time `json:"expiresAt"`
	RevokedAt *time.Time `json:"revokedAt"`
	CreatedAt time.Time  `json:"createdAt"`
	// FirstUsedAt is when the key first authenticated a request; set once,
	// never changed after. Nil until then.
	FirstUsedAt *time.Time `json:"firstUsedAt"`
	// LastUsedAt is when the key last authenticated a request, to within
	// APIKeyUseInterval (use is written at most that often). Nil until the
	// first use.
	LastUsedAt *time.Time `json:"lastUsedAt"`
	// LastUsedAddress is the client address of the request at LastUsedAt,
	// as the API sees it (behind trusted proxies, the address they were
	// called from); "" until the first use.
	LastUsedAddress string `json:"lastUsedAddress"`
}

// HasScope reports whether the key carries scope.
func (k *APIKey) HasScope(scope Scope) bool { return slices.Contains(k.Scopes, scope) }

// Active reports whether the key may authenticate at now.
func (k *APIKey) Active(now time.Time) bool {
	return k.RevokedAt == nil && (k.ExpiresAt == nil || now.Before(*k.ExpiresAt))
}

const (
	apiKeyRandomLen = 32
	base62          = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

// APIKeyPrefix is the prefix of every key of env: sk_testecf_, sk_certecf_ or sk_ecf_.
func APIKeyPrefix(env Environment) string { return "sk_" + env.Slug() + "_" }

// GenerateAPIKey returns a new plaintext key for env: its prefix and 32
// random base62 characters (about 190 bits).
func GenerateAPIKey(env Environment) string {
	var b strings.Builder
	b.WriteString(APIKeyPrefix(env))
	buf := make([]byte, 1)
	for b.Len() < len(APIKeyPrefix(env))+apiKeyRandomLen {
		rand.Read(buf)
		if buf[0] < 248 { // 248 = 4*62: reject to avoid modulo bias
			b.WriteByte(base62[int(buf[0])%62])
		}
	}
	return b.String()
}

// HashAPIKey returns the stored form of a plaintext key.
func HashAPIKey(plaintext string) []byte {
	h := sha256.Sum256([]byte(plaintext))
	return h[:]
}

// APIKeyEnvironment returns the environment a plaintext key's prefix names,
// or "" when the prefix is not one of Sello's.
func APIKeyEnvironment(plaintext string) Environment {
	for _, env := range Environments {
		if strings.HasPrefix(plaintext, APIKeyPrefix(env)) {
			return env
		}
	}
	return ""
}

// NewAPIKey builds a key record for a new plaintext key.
func NewAPIKey(tenantID string, env Environment, name string, scopes []Scope, expiresAt *time.Time) (key *APIKey, plaintext string) {
	plaintext = GenerateAPIKey(env)
	return &APIKey{
		TenantID:    tenantID,
		Environment: env,
		Name:        name,
		Scopes:      scopes,
		Hash:        HashAPIKey(plaintext),
		Last4:       plaintext[len(plaintext)-4:],
		ExpiresAt:   expiresAt,
	}, plaintext
}
