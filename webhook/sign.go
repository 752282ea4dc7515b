package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/sello-do/sello"
)

// SecretPrefix begins every secret GenerateSecret returns.
const SecretPrefix = "whsec_"

// Limits on a customer-supplied secret (ValidateSecret).
const (
	MinSecretLen = 32
	MaxSecretLen = 256
)

// Sign returns the value of the Sello-Signature header for body sent at t:
// "t=<unix seconds>,v1=<hex>" with one v1 per secret, in the order given
// (newest secret first while a rotated secret overlaps). Each v1 is the
// lowercase hex HMAC-SHA256, keyed with the secret's bytes exactly as
// stored (prefix included), of "<t>.<body>" (spec §6.2). With no secrets
// it returns only "t=<unix seconds>".
func Sign(secrets []string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	var b strings.Builder
	b.WriteString("t=")
	b.WriteString(ts)
	for _, s := range secrets {
		m := hmac.New(sha256.New, []byte(s))
		m.Write([]byte(ts))
		m.Write([]byte{'.'})
		m.Write(body)
		b.WriteString(",v1=")
		b.WriteString(hex.EncodeToString(m.Sum(nil)))
	}
	return b.String()
}

// GenerateSecret returns a new endpoint secret: "whsec_" followed by 32
// random bytes in unpadded base64url (43 characters, 49 in all). base64url
// rather than hex keeps the secret shorter for the same 256 bits and needs
// no escaping in URLs, shells or environment variables; receivers use the
// whole string, prefix included, as the HMAC key and never decode it.
func GenerateSecret() string {
	var b [32]byte
	rand.Read(b[:]) // never fails (crypto/rand, Go 1.24+)
	return SecretPrefix + base64.RawURLEncoding.EncodeToString(b[:])
}

// ValidateSecret checks a customer-supplied secret: 32 to 256 printable
// ASCII characters, no spaces. Returns INVALID_REQUEST otherwise.
func ValidateSecret(s string) error {
	if len(s) < MinSecretLen || len(s) > MaxSecretLen {
		return sello.Errorf(sello.CodeInvalidRequest, "The webhook secret must be %d to %d characters long, not %d; leave it empty to have one generated.", MinSecretLen, MaxSecretLen, len(s))
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return sello.Errorf(sello.CodeInvalidRequest, "The webhook secret must be printable ASCII without spaces.")
		}
	}
	return nil
}
