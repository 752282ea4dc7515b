package xmldsig_test

import (
	"bytes"
	"encoding/base64"
	"regexp"
	"strings"
	"testing"

	"github.com/sello-do/sello/xmldsig"
)

// roundTripDocs are documents Sign and Verify must handle.
var roundTripDocs = map[string]string{
	"ECF":  smallECF,
	"Seed": prettySeed,
	// Namespace context: a default namespace and xml:lang on the root are
	// in scope of SignedInfo, and inclusive C14N renders them there.
	"Namespaces": `<ARECF xmlns="urn:example:arecf" xmlns:z="urn:z" xml:lang="es"><DetalleAcusedeRecibo z:b="2" a="1"><Version>1.0</Version><Nota>José &amp; María &lt;3 ñ — 10 °C 'x' "y"</Nota><Vacio/><z:Otro xmlns="" >t</z:Otro></DetalleAcusedeRecibo></ARECF>`,
	"Pretty":     "<ECF>\n\t<Encabezado>\r\n    <Version>1.0</Version>\n  </Encabezado>\n  <Vacio>   </Vacio>\n  <!-- comentario -->\n</ECF>\n",
}

// shape is the Signature Sign writes, DigestValue, SignatureValue and
// X509Certificate elided.
var shape = regexp.MustCompile(`^<Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo>` +
	`<CanonicalizationMethod Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"></CanonicalizationMethod>` +
	`<SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"></SignatureMethod>` +
	`<Reference URI=""><Transforms><Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"></Transform></Transforms>` +
	`<DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"></DigestMethod><DigestValue>[A-Za-z0-9+/]{43}=</DigestValue></Reference></SignedInfo>` +
	`<SignatureValue>[A-Za-z0-9+/]{342}==</SignatureValue>` +
	`<KeyInfo><X509Data><X509Certificate>[A-Za-z0-9+/=]+</X509Certificate></X509Data></KeyInfo></Signature>$`)

func TestSign(t *testing.T) {
	s := MustSigner(t)
	for name, doc := range roundTripDocs {
		t.Run(name, func(t *testing.T) {
			signed := MustSign(t, s, doc)
			i := bytes.Index(signed, []byte("<Signature"))
			end := bytes.LastIndex(signed, []byte("</"))
			if i < 0 || end < i {
				t.Fatalf("no signature before the root's end tag:\n%s", signed)
			}
			if sig := string(signed[i:end]); !shape.MatchString(sig) {
				t.Errorf("signature shape:\n got %s\nwant %s", sig, shape)
			}
			body := signed
			if bytes.HasPrefix(body, []byte("<?xml")) {
				body = body[bytes.Index(body, []byte("?>"))+2:]
			}
			if bytes.ContainsAny(body, "\n\r\t") || bytes.Contains(body, []byte("> <")) || bytes.Contains(body, []byte("<!--")) {
				t.Errorf("output is not compact:\n%s", signed)
			}

			cert, err := xmldsig.Verify(signed)
			if err != nil {
				t.Fatalf("Verify: %v\n%s", err, signed)
			}
			if !cert.Equal(s.Cert) {
				t.Errorf("Verify returned %v, want the signer's certificate", cert.Subject)
			}
		})
	}
}

// TestSign_Whitespace checks the seed gotcha: the pretty-printed seed and
// its compact form give the same digest, so DGII, which signs without
// whitespace, accepts it.
func TestSign_Whitespace(t *testing.T) {
	s := MustSigner(t)
	compactSeed := regexp.MustCompile(`>\s+<`).ReplaceAllString(prettySeed, "><")
	compactSeed = strings.TrimSpace(compactSeed)
	pretty, compact := MustSign(t, s, prettySeed), MustSign(t, s, compactSeed)
	if !bytes.Equal(pretty, compact) {
		t.Errorf("signed pretty seed differs from signed compact seed:\n%s\n%s", pretty, compact)
	}
	// The output is canonical: namespace declarations sorted by prefix.
	if want := `<?xml version="1.0" encoding="utf-8"?><SemillaModel xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><valor>ZL/lUiT8ixOW`; !bytes.HasPrefix(pretty, []byte(want)) {
		t.Errorf("seed root or first child changed:\n%s", pretty)
	}
}

func TestSign_Errors(t *testing.T) {
	s := MustSigner(t)
	for name, tc := range map[string]struct{ doc, want string }{
		"Empty":      {"", "malformed xml"},
		"NotXML":     {"hola", "malformed xml"},
		"TwoRoots":   {"<a></a><b></b>", "2 root elements"},
		"Doctype":    {`<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>`, "doctype not allowed"},
		"Unclosed":   {"<a><b></a>", "malformed xml"},
		"Latin1":     {`<?xml version="1.0" encoding="ISO-8859-1"?><a>x</a>`, "not utf-8"},
		"ProcInst":   {`<?pi x?><a>x</a>`, "processing instruction"},
		"TextAround": {`x<a></a>`, "malformed xml"},
		"EmptyNS":    {`<a xmlns:p=""></a>`, `namespace declaration xmlns:p=""`},
		"XMLNSNS":    {`<a xmlns:xmlns="urn:x"></a>`, "namespace declaration xmlns:xmlns"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := s.Sign([]byte(tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "sign xml: ") {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
	if _, err := (&xmldsig.Signer{}).Sign([]byte("<a></a>")); err == nil {
		t.Error("signer without a key: got no error")
	}
}

// SignCode returns the document Sign writes and the code SecurityCode reads
// from it.
func TestSignCode(t *testing.T) {
	s := MustSigner(t)
	for _, doc := range []string{smallECF, `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + smallECF} {
		signed, code, err := s.SignCode([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := xmldsig.Verify(signed); err != nil {
			t.Fatalf("Verify: %v", err)
		}
		want, err := xmldsig.SecurityCode(signed)
		if err != nil || code != want {
			t.Errorf("code %q, SecurityCode of the document %q (%v)", code, want, err)
		}
	}
	if _, _, err := (&xmldsig.Signer{}).SignCode([]byte("<a></a>")); err == nil {
		t.Error("signer without a key: got no error")
	}
}

func TestSecurityCode(t *testing.T) {
	signed := MustSign(t, MustSigner(t), smallECF)
	m := regexp.MustCompile(`<SignatureValue>([^<]+)</SignatureValue>`).FindSubmatch(signed)
	got, err := xmldsig.SecurityCode(signed)
	if err != nil {
		t.Fatal(err)
	}
	if want := string(m[1][:6]); got != want {
		t.Errorf("got %q, want %q", got, want)
	}

	t.Run("WhitespaceAndSymbols", func(t *testing.T) {
		doc := replaceOnce(t, signed, string(m[1]), "\n  +/A=\nb"+string(m[1][6:]))
		got, err := xmldsig.SecurityCode(doc)
		if err != nil || got != "+/A=b"+string(m[1][6:7]) {
			t.Errorf("got %q, %v; want %q", got, err, "+/A=b"+string(m[1][6:7]))
		}
	})
	t.Run("ErrNoSignature", func(t *testing.T) {
		if _, err := xmldsig.SecurityCode([]byte(smallECF)); err == nil || !strings.Contains(err.Error(), "no signature") {
			t.Errorf("got %v, want no signature", err)
		}
	})
	t.Run("ErrShort", func(t *testing.T) {
		doc := replaceOnce(t, signed, string(m[1]), "abc")
		if _, err := xmldsig.SecurityCode(doc); err == nil {
			t.Error("got no error for a 3-character SignatureValue")
		}
	})
}

// TestVerify_Tampering changes one thing in a signed document.
func TestVerify_Tampering(t *testing.T) {
	s := MustSigner(t)
	signed := MustSign(t, s, smallECF)
	sigValue := regexp.MustCompile(`<SignatureValue>([^<]+)</SignatureValue>`).FindSubmatch(signed)[1]
	digest := regexp.MustCompile(`<DigestValue>([^<]+)</DigestValue>`).FindSubmatch(signed)[1]
	other := MustOtherSigner(t)
	otherCert := base64.StdEncoding.EncodeToString(other.Cert.Raw)
	cert := base64.StdEncoding.EncodeToString(s.Cert.Raw)

	flip := func(b []byte) string {
		c := bytes.Clone(b)
		if c[10] == 'A' {
			c[10] = 'B'
		} else {
			c[10] = 'A'
		}
		return string(c)
	}
	for name, tc := range map[string]struct {
		doc  []byte
		want error
	}{
		"Content":           {replaceOnce(t, signed, "1180.00", "1180.01"), xmldsig.ErrDigestMismatch},
		"ContentAccent":     {replaceOnce(t, signed, "Ñandú", "Nandú"), xmldsig.ErrDigestMismatch},
		"ContentAttribute":  {replaceOnce(t, signed, "<Version>", `<Version a="1">`), xmldsig.ErrDigestMismatch},
		"ContentElement":    {replaceOnce(t, signed, "<Signature", "<Extra></Extra><Signature"), xmldsig.ErrDigestMismatch},
		"DigestValue":       {replaceOnce(t, signed, string(digest), flip(digest)), xmldsig.ErrDigestMismatch},
		"SignedInfo":        {replaceOnce(t, signed, "<SignedInfo>", "<SignedInfo> "), xmldsig.ErrSignatureInvalid},
		"SignedInfoURI":     {replaceOnce(t, signed, `<Reference URI="">`, `<Reference URI="" Type="x">`), xmldsig.ErrSignatureInvalid},
		"SignatureValue":    {replaceOnce(t, signed, string(sigValue), flip(sigValue)), xmldsig.ErrSignatureInvalid},
		"SignatureTruncate": {replaceOnce(t, signed, string(sigValue), string(sigValue[:40])), xmldsig.ErrSignatureInvalid},
		"Certificate":       {replaceOnce(t, signed, cert, otherCert), xmldsig.ErrSignatureInvalid},
		"CertificateGarble": {replaceOnce(t, signed, cert, cert[:100]), xmldsig.ErrCertificate},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := xmldsig.Verify(tc.doc)
			if !errorsIs(err, tc.want) {
				t.Errorf("got %v, want %v", err, tc.want)
			}
			if xmldsig.VerifyFast(tc.doc) {
				t.Error("the fast path accepts it")
			}
		})
	}

	t.Run("ResignedByOther", func(t *testing.T) {
		// A valid signature by another key verifies and returns that key's
		// certificate: trust is the caller's decision.
		got, err := xmldsig.Verify(MustSign(t, other, smallECF))
		if err != nil || !got.Equal(other.Cert) {
			t.Errorf("got %v, %v; want the other certificate", got, err)
		}
	})
	t.Run("CommentsNotCovered", func(t *testing.T) {
		// XMLDSig's URI="" excludes comments from the digest.
		if _, err := xmldsig.Verify(replaceOnce(t, signed, "<Version>", "<!-- x --><Version>")); err != nil {
			t.Errorf("comment added: %v", err)
		}
	})
}
