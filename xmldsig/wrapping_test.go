package xmldsig_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/sello-do/sello/xmldsig"
)

// splitSigned returns the parts of a document signed by Sign: what comes
// before the Signature, the Signature, and the root's end tag.
func splitSigned(tb testing.TB, signed []byte) (head, sig, tail string) {
	tb.Helper()
	s := string(signed)
	i := strings.Index(s, "<Signature")
	j := strings.Index(s, "</Signature>") + len("</Signature>")
	if i < 0 || j < i {
		tb.Fatalf("no signature in %s", s)
	}
	return s[:i], s[i:j], s[j:]
}

// TestVerify_Wrapping tries the signature wrapping attacks: each keeps the
// original, valid Signature somewhere and changes what it would seem to
// cover.
func TestVerify_Wrapping(t *testing.T) {
	s := MustSigner(t)
	signed := MustSign(t, s, smallECF)
	head, sig, tail := splitSigned(t, signed)
	body := strings.TrimPrefix(head, `<?xml version="1.0" encoding="utf-8"?>`)
	inner := strings.TrimPrefix(body, "<ECF>")
	evil := strings.Replace(inner, "1180.00", "1.00", 1)
	sub := func(old, new string) string {
		t.Helper()
		if !strings.Contains(sig, old) {
			t.Fatalf("%q not in signature", old)
		}
		return head + strings.Replace(sig, old, new, 1) + tail
	}

	for name, tc := range map[string]struct {
		doc  string
		want error
		msg  string
	}{
		"SecondSignature": {
			head + sig + sig + tail, xmldsig.ErrMultipleSignatures, "more than one signature: found 2",
		},
		"SecondSignatureInChild": {
			strings.Replace(head, "<Encabezado>", "<Encabezado>"+sig, 1) + sig + tail, xmldsig.ErrMultipleSignatures, "found 2",
		},
		"SecondSignaturePrefixed": {
			strings.Replace(head, "<Encabezado>", `<Encabezado><ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#"></ds:Signature>`, 1) + sig + tail,
			xmldsig.ErrMultipleSignatures, "found 2",
		},
		"MovedIntoChild": {
			strings.Replace(head, "</Encabezado>", sig+"</Encabezado>", 1) + tail, xmldsig.ErrSignaturePlacement, "not a direct child of the root",
		},
		"NotLast": {
			head + sig + "<FechaHoraFirma>x</FechaHoraFirma>" + tail, xmldsig.ErrSignaturePlacement, "signature is not the last child of the root",
		},
		"NewRoot": {
			// The signed document wrapped in a new root with evil content first.
			"<ECF>" + evil + "<Original>" + body + sig + tail + "</Original></ECF>", xmldsig.ErrSignaturePlacement, "not a direct child",
		},
		"NewRootSignatureKept": {
			// Evil content at the root; the original moved into a child; the
			// Signature stays last at the root: the digest covers the evil.
			"<ECF>" + evil + "<Original>" + inner + "</Original>" + sig + tail, xmldsig.ErrDigestMismatch, "digest mismatch",
		},
		"OriginalInObject": {
			"<ECF>" + evil + strings.Replace(sig, "</Signature>", "<Object>"+body+"</ECF></Object></Signature>", 1) + tail,
			xmldsig.ErrStructure, "unexpected Object in Signature",
		},
		"SignatureIsRoot": {
			sig, xmldsig.ErrSignaturePlacement, "not a direct child",
		},
		"ReferenceToId": {
			strings.Replace(head, "<Encabezado>", `<Encabezado Id="x">`, 1) + strings.Replace(sig, `URI=""`, `URI="#x"`, 1) + tail,
			xmldsig.ErrReference, `URI "#x"`,
		},
		"ReferenceWithoutURI": {
			sub(`<Reference URI="">`, `<Reference>`), xmldsig.ErrReference, `URI "(absent)"`,
		},
		"ReferenceExternal": {
			sub(`URI=""`, `URI="http://example.com/ecf.xml"`), xmldsig.ErrReference, "example.com",
		},
		"TwoReferences": {
			sub(`</Reference>`, `</Reference><Reference URI="#x"><Transforms></Transforms><DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"></DigestMethod><DigestValue>AA==</DigestValue></Reference>`),
			xmldsig.ErrReference, "found 2 references",
		},
		"XPathTransform": {
			sub(`</Transforms>`, `<Transform Algorithm="http://www.w3.org/TR/1999/REC-xpath-19991116"><XPath>not(ancestor-or-self::Totales)</XPath></Transform></Transforms>`),
			xmldsig.ErrTransform, "REC-xpath",
		},
		"XSLTTransform": {
			sub(`<Transforms>`, `<Transforms><Transform Algorithm="http://www.w3.org/TR/1999/REC-xslt-19991116"><xsl:stylesheet xmlns:xsl="http://www.w3.org/1999/XSL/Transform" version="1.0"></xsl:stylesheet></Transform>`),
			xmldsig.ErrTransform, "REC-xslt",
		},
		"ExclusiveC14NTransform": {
			sub(`</Transforms>`, `<Transform Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"></Transform></Transforms>`),
			xmldsig.ErrTransform, "xml-exc-c14n",
		},
		"ThreeTransforms": {
			sub(`</Transforms>`, `<Transform Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"></Transform><Transform Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"></Transform></Transforms>`),
			xmldsig.ErrTransform, "3 transforms",
		},
		"NoEnvelopedTransform": {
			sub(`<Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"></Transform>`, `<Transform Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"></Transform>`),
			xmldsig.ErrTransform, "REC-xml-c14n",
		},
		"Doctype": {
			`<!DOCTYPE ECF [<!ENTITY total "1180.00">]>` + body + sig + tail, xmldsig.ErrDoctype, "doctype not allowed",
		},
		"DoctypeEntityUse": {
			`<?xml version="1.0"?><!DOCTYPE ECF [<!ENTITY e SYSTEM "file:///etc/passwd">]><ECF>&e;` + inner + sig + tail, xmldsig.ErrDoctype, "doctype not allowed",
		},
		"SignatureSHA1": {
			sub(`xmldsig-more#rsa-sha256`, `xmldsig#rsa-sha1`), xmldsig.ErrAlgorithm, "rsa-sha1",
		},
		"DigestSHA1": {
			sub(`http://www.w3.org/2001/04/xmlenc#sha256`, `http://www.w3.org/2000/09/xmldsig#sha1`), xmldsig.ErrAlgorithm, "xmldsig#sha1",
		},
		"CanonicalizationExclusive": {
			sub(`<CanonicalizationMethod Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315">`, `<CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#">`),
			xmldsig.ErrAlgorithm, "xml-exc-c14n",
		},
		"CanonicalizationWithComments": {
			sub(`REC-xml-c14n-20010315">`, `REC-xml-c14n-20010315#WithComments">`), xmldsig.ErrAlgorithm, "WithComments",
		},
		"HMAC": {
			sub(`xmldsig-more#rsa-sha256`, `xmldsig-more#hmac-sha256`), xmldsig.ErrAlgorithm, "hmac",
		},
		"NoSignature":         {body + tail, xmldsig.ErrNoSignature, "no signature"},
		"ForeignNamespace":    {head + strings.Replace(sig, nsDSigAttr, `xmlns="urn:evil"`, 1) + tail, xmldsig.ErrNoSignature, "no signature"},
		"SignedInfoForeignNS": {sub(`<SignedInfo>`, `<SignedInfo xmlns="urn:evil">`), xmldsig.ErrStructure, "SignedInfo in Signature"},
		"TwoRoots":            {body + sig + tail + "<ECF></ECF>", xmldsig.ErrMalformed, ""},
		"TextAfterRoot":       {body + sig + tail + "x", xmldsig.ErrMalformed, "text outside the root"},
		"ProcInst":            {body + sig + tail + "<?evil x?>", xmldsig.ErrMalformed, "processing instruction"},
		"Latin1":              {`<?xml version="1.0" encoding="ISO-8859-1"?>` + body + sig + tail, xmldsig.ErrMalformed, "not utf-8"},
		"NoKeyInfo":           {regexp.MustCompile(`<KeyInfo>.*</KeyInfo>`).ReplaceAllString(head+sig+tail, ""), xmldsig.ErrStructure, "Signature has no KeyInfo"},
		"TextInSignedInfo":    {sub(`<SignedInfo>`, `<SignedInfo>x`), xmldsig.ErrStructure, "text in SignedInfo"},
		"Empty":               {"", xmldsig.ErrMalformed, ""},
		"DuplicateAttribute":  {sub(`<Reference URI="">`, `<Reference URI="" URI="#x">`), xmldsig.ErrMalformed, "duplicate attribute URI on Reference"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := xmldsig.Verify([]byte(tc.doc))
			if !errorsIs(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("got %v, want %v with %q", err, tc.want, tc.msg)
			}
			if xmldsig.VerifyFast([]byte(tc.doc)) {
				t.Error("the fast path accepts it")
			}
		})
	}

	t.Run("ExplicitC14NTransform", func(t *testing.T) {
		// enveloped + inclusive C14N, as goxmldsig writes, is accepted; the
		// SignedInfo changed, so the signature (not the digest) fails.
		doc := sub(`</Transforms>`, `<Transform Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"></Transform></Transforms>`)
		if _, err := xmldsig.Verify([]byte(doc)); !errorsIs(err, xmldsig.ErrSignatureInvalid) {
			t.Errorf("got %v, want %v", err, xmldsig.ErrSignatureInvalid)
		}
	})
}

const nsDSigAttr = `xmlns="http://www.w3.org/2000/09/xmldsig#"`
