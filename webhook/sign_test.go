package webhook_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello/webhook"
)

// hmacHex is the signature a receiver computes (spec §6.2), written out
// independently of Sign.
func hmacHex(secret, t string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(t + "." + string(body)))
	return hex.EncodeToString(m.Sum(nil))
}

// parseSignature splits a Sello-Signature header into t and its v1 values,
// in order, failing on anything else.
func parseSignature(tb testing.TB, h string) (string, []string) {
	tb.Helper()
	parts := strings.Split(h, ",")
	t, ok := strings.CutPrefix(parts[0], "t=")
	if !ok {
		tb.Fatalf("signature %q does not start with t=", h)
	}
	if _, err := strconv.ParseInt(t, 10, 64); err != nil {
		tb.Fatalf("signature %q: t is not a number", h)
	}
	var v1 []string
	for _, p := range parts[1:] {
		v, ok := strings.CutPrefix(p, "v1=")
		if !ok {
			tb.Fatalf("signature %q: unexpected part %q", h, p)
		}
		v1 = append(v1, v)
	}
	return t, v1
}

func TestSign(t *testing.T) {
	body := []byte(`{"id":"0b7c1f2e-0000-4000-8000-000000000001","type":"ecf.queued"}`)
	at := time.Unix(1767225600, 999_000_000) // fractions are dropped
	newSecret, oldSecret := "whsec_new-secret-0123456789abcdefghijkl", "whsec_old-secret-0123456789abcdefghijkl"

	t.Run("OneSecret", func(t *testing.T) {
		got := webhook.Sign([]string{newSecret}, at, body)
		want := "t=1767225600,v1=" + hmacHex(newSecret, "1767225600", body)
		if got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	})
	t.Run("TwoSecretsNewestFirst", func(t *testing.T) {
		ts, v1 := parseSignature(t, webhook.Sign([]string{newSecret, oldSecret}, at, body))
		if ts != "1767225600" || len(v1) != 2 {
			t.Fatalf("t=%s v1=%v", ts, v1)
		}
		if v1[0] != hmacHex(newSecret, ts, body) || v1[1] != hmacHex(oldSecret, ts, body) {
			t.Fatalf("v1 = %v, want the new secret's then the old one's", v1)
		}
	})
	t.Run("BodyBytesMatter", func(t *testing.T) {
		a := webhook.Sign([]string{newSecret}, at, body)
		b := webhook.Sign([]string{newSecret}, at, append([]byte(" "), body...))
		if a == b {
			t.Fatal("a leading space did not change the signature")
		}
	})
	t.Run("NoSecrets", func(t *testing.T) {
		if got := webhook.Sign(nil, at, body); got != "t=1767225600" {
			t.Fatalf("got %q", got)
		}
	})
}

// TestSignExample is the worked example of docs/webhooks.md, computed
// independently (Python's hmac).
func TestSignExample(t *testing.T) {
	got := webhook.Sign([]string{"whsec_4e3Yq0pZr2mXJ8vTt1aNwHkG5sLdUc9bVfQxR7oPiEy"}, time.Unix(1767225600, 0),
		[]byte(`{"id":"0b7c1f2e-4a5d-4c3b-9e8f-1a2b3c4d5e6f","type":"ecf.queued"}`))
	if want := "t=1767225600,v1=5d8d17d944f025bfc0886f2422b7eb2bc6804d27f153814f9a1def5a03b0e0af"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
