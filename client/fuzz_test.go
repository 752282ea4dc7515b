package client_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello/client"
)

// FuzzParseSignatureHeader feeds arbitrary headers to the parser and the
// verifier: they never panic, a parsed header has a t and a v1, every
// failure is one of the sentinel errors, and an arbitrary header never
// verifies under a secret it was not made with.
func FuzzParseSignatureHeader(f *testing.F) {
	ts := strconv.FormatInt(now.Unix(), 10)
	good := client.SignatureHeader(now, body, secret)
	for _, seed := range []string{
		good,
		client.SignatureHeader(now, body, secret, oldSecret),
		"t=" + ts + ",v0=abc," + strings.TrimPrefix(good, "t="+ts+","),
		"", "t=", "v1=", ",", "=", "t=abc,v1=00", "t=1,t=2,v1=00", "t=-1,v1=00",
		"t=99999999999999999999,v1=00", "t=1, v1=00 ,v1=", "t=1,v1=" + strings.Repeat("0", 64),
		"\x00t=1,v1=\xff",
	} {
		f.Add(seed)
	}
	sentinels := []error{client.ErrNoSignature, client.ErrMalformedHeader, client.ErrInvalidTimestamp, client.ErrTimestampOutOfTolerance, client.ErrSignatureMismatch}
	f.Fuzz(func(t *testing.T, header string) {
		s, err := client.ParseSignatureHeader(header)
		if err == nil {
			if s.Timestamp < 0 || len(s.V1) == 0 {
				t.Fatalf("parsed %q as %+v", header, s)
			}
		} else if s != nil {
			t.Fatalf("%q: both a result and an error", header)
		}
		err = client.VerifySignature(body, header, []string{"whsec_fuzz_not_the_secret"}, now)
		if err == nil {
			t.Fatalf("%q verified under a secret nobody signed with", header)
		}
		known := false
		for _, s := range sentinels {
			known = known || errors.Is(err, s)
		}
		if !known {
			t.Fatalf("%q: error %v is none of the sentinels", header, err)
		}
		// Whatever else the header says, adding a genuine signature to a
		// well-formed one makes it verify.
		if s != nil && s.Timestamp == now.Unix() {
			h := header + ",v1=" + client.Sign(secret, now.Unix(), body)
			if err := client.VerifySignature(body, h, []string{secret}, now.Add(time.Second)); err != nil {
				t.Fatalf("%q plus a valid v1: %v", h, err)
			}
		}
	})
}
