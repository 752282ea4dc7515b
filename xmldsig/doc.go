// Package xmldsig signs and verifies XML documents in the XMLDSig profile
// DGII requires for e-CF, RFCE, ARECF, ACECF, ANECF and the authentication
// seed (FACTS §4):
//
//   - an enveloped, unprefixed <Signature xmlns="http://www.w3.org/2000/09/xmldsig#">
//     appended as the last child of the root element;
//   - one Reference URI="" (the whole document) with exactly one transform,
//     http://www.w3.org/2000/09/xmldsig#enveloped-signature;
//   - inclusive C14N 1.0, RSA-SHA256 and SHA-256;
//   - KeyInfo/X509Data/X509Certificate with the signer's certificate.
//
// Sign removes whitespace-only text nodes first, as DGII signs "sin
// preservación de espacios": signing a pretty-printed seed as is makes DGII
// answer "Firma del certificado invalida". It writes the canonical form of
// the document, so what is digested is exactly what is sent. Compact XML,
// as Sello writes it, is canonicalized in one pass over the bytes
// (fastpath.go); anything else goes through etree (c14n.go). The
// canonicalizer is Sello's own: goxmldsig's MakeC14N10RecCanonicalizer
// copies every subtree once per level (too slow for 300-item e-CFs) and,
// for an element detached from its document, lets the ancestors'
// namespaces and xml:* attributes override the element's own.
//
// Verify accepts that shape as produced by Sello, DGII, .NET's SignedXml or
// xmlsec1 (also with an explicit C14N transform after the enveloped one) and
// resists signature wrapping: the one Signature must be the root's last
// element child and its one Reference must cover the whole document, so
// everything in the verified bytes except the Signature itself, comments and
// the XML declaration is covered by the digest. Documents the one-pass
// canonicalizer reads (compact or not: it keeps the whitespace when
// verifying) are digested without a tree; only their Signature is built
// as etree would read it, and checked by the same code. Anything else, and any failure,
// goes through etree over the whole document, whose answer is the one
// returned: the fast path accepts nothing the etree path refuses.
//
// Before anything else, a UTF-8 byte order mark is skipped, and a document
// with an element of more than 16 attributes or more than 16 namespace
// declarations in all (xmlchar's limits; DGII's XSDs declare no attribute)
// is refused with ErrLimit: the fast path gives up at the element over them
// and the etree path is not tried. What is left costs time linear in the
// document.
//
// ParsePKCS12 reads the signer's .p12 file (modern AES/PBES2 or legacy
// 3DES/RC2 encryption); GenerateSelfSigned and EncodePKCS12 make test
// certificates in the same shape (RSA-2048, digitalSignature and
// nonRepudiation).
package xmldsig
