package xmldsig_test

import (
	"testing"

	"github.com/sello-do/sello/xmldsig"
)

// TestVerify_Paths checks which documents Verify's fast path handles, and
// that those it does not are still verified, by the etree path.
func TestVerify_Paths(t *testing.T) {
	s := MustSigner(t)
	signed := MustSign(t, s, smallECF)
	for name, tc := range map[string]struct {
		doc  []byte
		fast bool
	}{
		"ECF":        {signed, true},
		"Items1000":  {MustSign(t, s, ecfWithItems(1000)), true},
		"Seed":       {MustSign(t, s, prettySeed), true},
		"Namespaces": {MustSign(t, s, roundTripDocs["Namespaces"]), true},
		"Comment":    {replaceOnce(t, signed, "<Version>", "<!-- x --><Version>"), true},
		// The same canonical form, outside the fast path.
		"CDATA":      {replaceOnce(t, signed, "<Version>1.0<", "<Version><![CDATA[1.0]]><"), false},
		"Standalone": {replaceOnce(t, signed, `encoding="utf-8"?>`, `encoding="utf-8" standalone="yes"?>`), false},
		"NonASCIIName": {
			replaceOnce(t, MustSign(t, s, `<ECF><Año>2026</Año></ECF>`), "<Año>", "<Año >"), false,
		},
	} {
		t.Run(name, func(t *testing.T) {
			cert, err := xmldsig.Verify(tc.doc)
			if err != nil || !cert.Equal(s.Cert) {
				t.Fatalf("Verify: %v, %v\n%s", cert, err, tc.doc)
			}
			if got := xmldsig.VerifyFast(tc.doc); got != tc.fast {
				t.Errorf("fast path: %v, want %v", got, tc.fast)
			}
		})
	}
}
