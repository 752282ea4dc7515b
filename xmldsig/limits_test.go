package xmldsig_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello/xmldsig"
)

// manyAttrs returns n attributes a0="1"…, or namespace declarations
// xmlns:p0="urn:p0"… when ns.
func manyAttrs(n int, ns bool) string {
	var b strings.Builder
	for i := range n {
		if ns {
			fmt.Fprintf(&b, ` xmlns:p%d="urn:p%d"`, i, i)
		} else {
			fmt.Fprintf(&b, ` a%d="1"`, i)
		}
	}
	return b.String()
}

// withRootAttrs returns signed with attrs added to its root's start tag.
func withRootAttrs(tb testing.TB, signed []byte, attrs string) []byte {
	tb.Helper()
	return replaceOnce(tb, signed, "<ECF>", "<ECF"+attrs+">")
}

// TestVerify_Limits: an element with more than 16 attributes, or a
// document with more than 16 namespace declarations, is refused before it
// is parsed, at a cost that does not grow with their number (the old
// duplicate check was quadratic: 200,000 root attributes took 111 s).
func TestVerify_Limits(t *testing.T) {
	s := MustSigner(t)
	signed := MustSign(t, s, smallECF)
	for name, tc := range map[string]struct {
		doc []byte
		msg string
	}{
		"RootAttributes17":      {withRootAttrs(t, signed, manyAttrs(17, false)), "over the parser's limits: <ECF> carries more than 16 attributes"},
		"RootAttributes200k":    {withRootAttrs(t, signed, manyAttrs(200_000, false)), "<ECF> carries more than 16 attributes"},
		"Namespaces20k":         {withRootAttrs(t, signed, manyAttrs(20_000, true)), "more than 16 namespace declarations (the last on <ECF>)"},
		"NamespacesSpread":      {replaceOnce(t, signed, "<Version>", strings.Repeat(`<x xmlns="urn:x"></x>`, 17)+"<Version>"), "more than 16 namespace declarations (the last on <x>)"},
		"SignatureAttributes17": {replaceOnce(t, signed, `<Reference URI=""`, `<Reference URI=""`+manyAttrs(16, false)), "<Reference> carries more than 16 attributes"},
		"AfterBOM":              {append([]byte("\xef\xbb\xbf"), withRootAttrs(t, signed, manyAttrs(17, false))...), "<ECF> carries more than 16 attributes"},
	} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			_, err := xmldsig.Verify(tc.doc)
			took := time.Since(start)
			if !errorsIs(err, xmldsig.ErrLimit) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("got %v, want %v with %q", err, xmldsig.ErrLimit, tc.msg)
			}
			if took > time.Second { // ~1 ms; the old code took 111 s on 200k
				t.Errorf("refusing %d bytes took %v", len(tc.doc), took)
			}
			if _, err := xmldsig.SecurityCode(tc.doc); !errorsIs(err, xmldsig.ErrLimit) && !strings.Contains(fmt.Sprint(err), "over the parser's limits") {
				t.Errorf("SecurityCode: %v, want %v", err, xmldsig.ErrLimit)
			}
		})
	}

	t.Run("OKAtTheLimit", func(t *testing.T) {
		// 16 attributes, or 15 declarations beside the Signature's, are
		// read (and signed: they are part of the document).
		for _, attrs := range []string{manyAttrs(16, false), manyAttrs(15, true)} {
			doc := MustSign(t, s, strings.Replace(smallECF, "<ECF>", "<ECF"+attrs+">", 1))
			if _, err := xmldsig.Verify(doc); err != nil {
				t.Errorf("Verify: %v", err)
			}
		}
	})
	t.Run("OKMarkupInComment", func(t *testing.T) {
		// What looks like attributes in a comment is not counted.
		doc := replaceOnce(t, signed, "<Version>", "<!-- <x"+manyAttrs(100, true)+"> --><Version>")
		if _, err := xmldsig.Verify(doc); err != nil {
			t.Errorf("Verify: %v", err)
		}
	})
}

// TestVerify_BOM: a UTF-8 byte order mark before the document, as .NET
// writes it, is skipped by Verify (either path), Sign and SecurityCode; it
// is not part of the document, so the signature holds either way.
func TestVerify_BOM(t *testing.T) {
	const bom = "\xef\xbb\xbf"
	s := MustSigner(t)
	for name, doc := range map[string]string{"ECF": smallECF, "Seed": prettySeed, "NoDeclaration": strings.TrimPrefix(smallECF, `<?xml version="1.0" encoding="utf-8"?>`)} {
		t.Run(name, func(t *testing.T) {
			signed := MustSign(t, s, doc)
			withBOM := append([]byte(bom), signed...)
			if cert, err := xmldsig.Verify(withBOM); err != nil || !cert.Equal(s.Cert) {
				t.Errorf("Verify: %v, %v", cert, err)
			}
			if !xmldsig.VerifyFast(withBOM) {
				t.Error("the fast path refuses it")
			}
			if _, err := xmldsig.VerifySlow(withBOM); err != nil {
				t.Errorf("etree path: %v", err)
			}
			if got, err := xmldsig.SecurityCode(withBOM); err != nil || got != mustSecurityCode(t, signed) {
				t.Errorf("SecurityCode = %q, %v", got, err)
			}
			resigned, err := s.Sign([]byte(bom + doc))
			if err != nil {
				t.Fatalf("Sign: %v", err)
			}
			if bytes.HasPrefix(resigned, []byte(bom)) {
				t.Error("Sign wrote the byte order mark")
			}
			if _, err := xmldsig.Verify(resigned); err != nil {
				t.Errorf("Verify(Sign(BOM+doc)): %v", err)
			}
		})
	}
	t.Run("ErrTwoMarks", func(t *testing.T) {
		// One mark is skipped, not any number.
		signed := MustSign(t, s, smallECF)
		if _, err := xmldsig.Verify(append([]byte(bom+bom), signed...)); !errorsIs(err, xmldsig.ErrMalformed) {
			t.Errorf("got %v, want %v", err, xmldsig.ErrMalformed)
		}
	})
}

// mustSecurityCode is SecurityCode of signed, which must have one.
func mustSecurityCode(tb testing.TB, signed []byte) string {
	tb.Helper()
	code, err := xmldsig.SecurityCode(signed)
	if err != nil {
		tb.Fatal(err)
	}
	return code
}
