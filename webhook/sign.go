package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
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
