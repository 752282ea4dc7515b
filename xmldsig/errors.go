package xmldsig

import "errors"

// Errors returned by Verify, wrapped with details; test them with errors.Is.
var (
	// ErrMalformed means the input is not a single well-formed UTF-8 XML
	// document.
	ErrMalformed = errors.New("malformed xml")
	// ErrLimit means an element carries more attributes, or the document
	// more namespace declarations, than any document of DGII's profile
	// (xmlchar.MaxAttrs, xmlchar.MaxNamespaces): refused before it is
	// parsed.
	ErrLimit = errors.New("over the parser's limits")
	// ErrDoctype means the input has a DOCTYPE (DTDs and entities are
	// refused).
	ErrDoctype = errors.New("doctype not allowed")
	// ErrNoSignature means no Signature element was found.
	ErrNoSignature = errors.New("no signature")
	// ErrMultipleSignatures means more than one Signature element was found.
	ErrMultipleSignatures = errors.New("more than one signature")
	// ErrSignaturePlacement means the Signature is not the last element
	// child of the root.
	ErrSignaturePlacement = errors.New("signature is not the last child of the root")
	// ErrStructure means the Signature does not have the profile's shape
	// (elements missing, repeated, unexpected or out of order).
	ErrStructure = errors.New("unexpected signature structure")
	// ErrReference means the Reference does not cover the whole document:
	// more than one Reference, or a URI other than "".
	ErrReference = errors.New("reference must be one URI=\"\"")
	// ErrTransform means a transform other than enveloped-signature
	// (optionally followed by inclusive C14N 1.0).
	ErrTransform = errors.New("unsupported transform")
	// ErrAlgorithm means a canonicalization, signature or digest algorithm
	// outside the profile (e.g. SHA-1).
	ErrAlgorithm = errors.New("unsupported algorithm")
	// ErrCertificate means KeyInfo has no usable RSA certificate.
	ErrCertificate = errors.New("bad certificate")
	// ErrDigestMismatch means the document does not match DigestValue: it
	// was changed after signing.
	ErrDigestMismatch = errors.New("digest mismatch")
	// ErrSignatureInvalid means SignatureValue does not verify with the key
	// in KeyInfo.
	ErrSignatureInvalid = errors.New("signature value does not verify")
)
