package sello

import (
	"context"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"errors"
	"fmt"
	"strings"
	"time"
)

// What the tenants' receiver services answer (DESIGN §6, FACTS §2;
// docs/receptor.md): a token for a signed seed (ValidateSeed), a signed
// acuse for an e-CF (ReceiveECF), 200 or 400 for an ACECF
// (ReceiveApproval). The HTTP handlers read the request and write the
// answer; the rules are here. The XML of DGII's formats is read and
// written by a ReceptionXML, since the packages that know it (ecf,
// xmldsig) are adapters the root does not import.

// ReceptionXML reads and writes the XML of the receiver services in DGII's
// formats. Reception asks each reading only when an answer depends on it.
type ReceptionXML interface {
	// ReadECFHeader reads the key fields of a received e-CF, and whether it
	// holds to its XSD's structure (InboundHeader.Invalid), in one pass. Returns
	// VALIDATION_FAILED when one is missing or malformed, and
	// INVALID_REQUEST or PAYLOAD_TOO_LARGE when data is not an e-CF at
	// all.
	ReadECFHeader(data []byte) (*InboundHeader, error)
	// ECFIdentity returns the issuer's RNC and the e-NCF of an e-CF whose
	// header does not read, "" when it does not say.
	ECFIdentity(data []byte) (issuerRNC, encf string)
	// ReadSeed returns the valor and fecha of a signed SemillaModel,
	// which must be the document issued with its signature added. Returns
	// INVALID_REQUEST and PAYLOAD_TOO_LARGE.
	ReadSeed(data []byte) (*ReceiverSeed, error)
	// ReadApproval reads a signed ACECF's fields. Returns INVALID_REQUEST
	// (with a detail per bad field) or PAYLOAD_TOO_LARGE.
	ReadApproval(data []byte) (*ReceivedApproval, error)
	// Verify checks data's enveloped signature in DGII's profile and
	// returns the certificate that made it.
	Verify(data []byte) (*x509.Certificate, error)
	// SignAcuse writes the ARECF a and signs it with key and cert.
	SignAcuse(a Acuse, key *rsa.PrivateKey, cert *x509.Certificate) ([]byte, error)
}

// InboundHeader is what reception reads of a received e-CF before its
// signature.
type InboundHeader struct {
	Type       DocumentType
	ENCF       string
	IssuerRNC  string // RNCEmisor
	IssuerName string // RazonSocialEmisor
	BuyerRNC   string // RNCComprador, "" when absent
	IssueDate  Date   // FechaEmision
	Total      string // MontoTotal as written
	ITBIS      string // TotalITBIS as written, "" when absent
	// SignedAt is FechaHoraFirma.
	SignedAt time.Time
	// SecurityCode is the first six characters of the SignatureValue, ""
	// when the document has none.
	SecurityCode string
	// Invalid says why the e-CF does not read into its type's model held
	// to its XSD's structure; nil when it does. ReadECFHeader reads it in
	// the same pass as the header.
	Invalid error
}

// ReceiptCode is an acuse's CodigoMotivoNoRecibido (FACTS §2.3): why an
// e-CF was not received; 0 when it was.
type ReceiptCode int

// The reasons an e-CF is not received.
const (
	ReceiptSpecification ReceiptCode = 1 // Error de especificación
	ReceiptSignature     ReceiptCode = 2 // Error de Firma Digital
	ReceiptDuplicate     ReceiptCode = 3 // Envío duplicado
	ReceiptWrongBuyer    ReceiptCode = 4 // RNC Comprador no corresponde
)

// Acuse is the ARECF a tenant's receiver answers an e-CF with, before its
// signature: Estado 0 (received) when Code is 0, else 1 with Code.
type Acuse struct {
	RNCEmisor    string
	RNCComprador string
	ENCF         string
	Code         ReceiptCode
	At           time.Time // FechaHoraAcuseRecibo
}

// ReceptionStore is what the receiver services ask of storage.
type ReceptionStore interface {
	ReceiverStore
	InboundStore
	ReceivedApprovalStore
	// FindSigningCertificate is CertificateStore's: the tenant's
	// certificate that signs its acuses.
	FindSigningCertificate(ctx context.Context, tenantID string, env Environment, now time.Time) (*Certificate, error)
	// FindTenantByRNC is TenantStore's.
	FindTenantByRNC(ctx context.Context, rnc string) (*Tenant, error)
}

// Reception answers the calls to the tenants' receiver services.
type Reception struct {
	Store ReceptionStore
	XML   ReceptionXML
	// Trust are the CAs whose certificates the receivers trust, nil for
	// none: then every signer is recorded untrusted, in eCF too
	// (CheckSigner).
	Trust *TrustRoots
	// MasterKey opens the tenants' certificates, which sign their acuses.
	MasterKey *MasterKey
	// Keys keeps the opened keys across calls; nil opens each every time.
	Keys *KeyCache
	// Tokens keeps the tokens found across calls; nil looks each up every
	// time.
	Tokens *TokenCache
	// SeedKey makes and checks the seeds (IssueReceiverSeed); every node
	// must have the same.
	SeedKey []byte
	// IssuerQuota is ReceiverLimits.IssuerQuota: 0 for none.
	IssuerQuota int
	// ENCFQuota is ReceiverLimits.ENCFQuota: 0 for none.
	ENCFQuota int
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

func (rc *Reception) now() time.Time {
	if rc.Now != nil {
		return rc.Now()
	}
	return time.Now()
}

// Authenticate checks the bearer token (plain, "" when the call presented
// none) of a call to the tenant's reception or commercial approval service
// in env and returns it, with its signer; nil, nil when the tenant's
// receiver takes calls without a token (Tenant.ReceiverAuthOff). t is nil
// at an RNC that is no tenant's: the call is refused as at a tenant's, the
// token looked up as any other (and found in no tenant's). Returns
// UNAUTHENTICATED.
func (rc *Reception) Authenticate(ctx context.Context, t *Tenant, env Environment, plain string) (*ReceiverToken, error) {
	tenantID := ""
	if t != nil {
		if t.ReceiverAuthOff {
			return nil, nil
		}
		tenantID = t.ID
	}
	if plain == "" {
		return nil, Errorf(CodeUnauthenticated,
			"This receiver requires Authorization: Bearer with a token from its fe/autenticacion/api/validacioncertificado service.")
	}
	return rc.Tokens.Check(ctx, rc.Store, tenantID, env, HashReceiverToken(plain), rc.now())
}

// IssueSeed answers the semilla service of the receiver at rnc in env: a
// fresh seed (IssueReceiverSeed), stored nowhere, whether or not rnc is a
// tenant's.
func (rc *Reception) IssueSeed(env Environment, rnc string) ReceiverSeed {
	return IssueReceiverSeed(rc.SeedKey, env, rnc, rc.now())
}

// ValidateSeed answers a signed seed posted to the validacioncertificado
// service of the receiver at rnc in env: a token of the tenant at rnc, and
// its plaintext, for a seed the receiver issued (IssueSeed), signed as
// issued (ReceptionXML.ReadSeed), unused and unexpired, whose signature
// holds and whose signer CheckSigner accepts now. The token records the
// signer. The seed is checked before its signature, and the signature
// before the tenant is looked up: at an RNC that is no tenant's, the seed
// costs the same work and is refused as a signer the receiver does not
// accept. Returns INVALID_REQUEST (not a seed as issued) and
// UNAUTHENTICATED, whose Err (logged, never answered) says why a seed,
// signature or signer was refused.
func (rc *Reception) ValidateSeed(ctx context.Context, env Environment, rnc string, data []byte) (*ReceiverToken, string, error) {
	seed, err := rc.XML.ReadSeed(data)
	if err != nil {
		return nil, "", err
	}
	now := rc.now()
	if err := seed.Check(rc.SeedKey, env, rnc, now); err != nil {
		return nil, "", err
	}
	if err := CallExpired(ctx); err != nil {
		return nil, "", err
	}
	cert, err := rc.XML.Verify(data)
	if err != nil {
		return nil, "", &Error{Code: CodeUnauthenticated, Message: "The seed's signature is not valid.", Err: err}
	}
	t, err := rc.Store.FindTenantByRNC(ctx, rnc)
	if ErrorCodeOf(err) == CodeNotFound {
		return nil, "", &Error{Code: CodeUnauthenticated, Message: seedSignerRefused, Err: fmt.Errorf("no tenant has RNC %s", rnc)}
	} else if err != nil {
		return nil, "", err
	}
	signer, err := rc.Trust.CheckSigner(cert, env, now, now)
	if err != nil {
		return nil, "", &Error{Code: CodeUnauthenticated, Message: seedSignerRefused, Err: err}
	}
	tok, plain := NewReceiverToken(t.ID, env, signer, now.UTC().Truncate(time.Second))
	if err := rc.Store.RedeemReceiverSeed(ctx, t.ID, env, seed.Value, seed.ExpiresAt(), tok); err != nil {
		return nil, "", err
	}
	return tok, plain, nil
}

// seedSignerRefused is the answer to a seed whose signer the receiver does
// not accept, or signed for an RNC that is no tenant's.
const seedSignerRefused = "This receiver does not accept the seed's signer."

// ReceivedECF is an e-CF posted to a tenant's reception service.
type ReceivedECF struct {
	Tenant      *Tenant
	Environment Environment
	// Token is the call's token (Authenticate), nil when the tenant's
	// receiver takes calls without one.
	Token *ReceiverToken
	XML   []byte
	// FileName is the xml part's file name, "" when it has none.
	FileName string
}

// ECFReceipt is ReceiveECF's answer.
type ECFReceipt struct {
	// Acuse is the signed ARECF to answer with.
	Acuse []byte
	// Code is why the e-CF was not received, 0 when it was.
	Code ReceiptCode
	// Why says why, for the log: never in the answer.
	Why error
	// Document is the document stored, nil when not received.
	Document *InboundDocument
}

// ReceiveECF answers an e-CF posted to a tenant's reception service with
// its signed acuse (FACTS §2.3), having stored the document and the acuse
// when received. The checks, in order (the first that fails decides the
// code). What the tenant holds under the issuer's e-NCF is looked up by
// the bytes' SHA-256 and DGII's acceptance (FindInboundENCF), so a receipt
// costs the same however many documents the e-NCF holds:
//
//   - the key fields read (code 1; an e-CF without even its issuer and
//     e-NCF is an error, not an acuse);
//   - the same bytes received before get the stored acuse again (a
//     supplier's retry, or the same e-CF from anyone: it proves nothing
//     new);
//   - the issuer is within its quota (IssuerQuota; RATE_LIMITED, not an
//     acuse: the document was not judged), and, unless DGII accepted a
//     document under the e-NCF, so is the e-NCF (ENCFQuota, RATE_LIMITED);
//   - the file is named {RNCEmisor}{eNCF}.xml, when named (code 1);
//   - the signature holds (code 2), its signer passes CheckSigner at
//     FechaHoraFirma (code 2) and, in eCF, holds the call's token
//     (CheckTokenHolder, code 2);
//   - the document reads into its type's model (code 1), of a type
//     exchanged between taxpayers (code 1), bought by the tenant (code 4);
//   - DGII has not confirmed another document under the issuer's e-NCF
//     (code 3). Until DGII confirms one, different documents under one
//     e-NCF are all received: a forgery posted first does not keep the
//     genuine one out, and DGII's answer (RecordInboundDGII) refutes it.
//
// Returns UNAVAILABLE when the tenant has no certificate to sign its acuse
// with or ctx ended first (nothing is signed or stored after), RATE_LIMITED,
// and the errors of the e-CF that cannot be answered.
func (rc *Reception) ReceiveECF(ctx context.Context, in ReceivedECF) (*ECFReceipt, error) {
	t, env, data := in.Tenant, in.Environment, in.XML
	h, err := rc.XML.ReadECFHeader(data)
	if ErrorCodeOf(err) == CodeValidationFailed {
		// Readable enough to answer: a specification error.
		if rnc, encf := rc.XML.ECFIdentity(data); rnc != "" {
			return rc.refuseECF(ctx, t, env, Acuse{RNCEmisor: rnc, ENCF: encf}, ReceiptSpecification, err)
		}
		return nil, err
	} else if err != nil {
		return nil, err
	}
	a := Acuse{RNCEmisor: h.IssuerRNC, ENCF: h.ENCF}
	sum := sha256.Sum256(data)
	held, err := rc.Store.FindInboundENCF(ctx, t.ID, env, h.IssuerRNC, h.ENCF, sum, rc.now().Add(-ENCFQuotaWindow))
	if err != nil {
		return nil, err
	}
	if held.Same != nil {
		return &ECFReceipt{Acuse: held.Same.Acuse, Document: held.Same}, nil // a retry: the same answer
	}
	if err := rc.checkIssuerQuota(ctx, t, env, h.IssuerRNC); err != nil {
		return nil, err
	}
	if held.Accepted == nil {
		if err := held.CheckQuota(rc.ENCFQuota, h.IssuerRNC, h.ENCF, rc.now()); err != nil {
			return nil, err
		}
	}
	if want := h.IssuerRNC + h.ENCF + ".xml"; in.FileName != "" && !strings.EqualFold(in.FileName, want) {
		return rc.refuseECF(ctx, t, env, a, ReceiptSpecification, fmt.Errorf("file named %q, not %s", in.FileName, want))
	}
	if err := CallExpired(ctx); err != nil {
		return nil, err
	}
	// The signature before the structure: a wrapped or tampered document
	// is a signature problem (code 2), whatever else it carries.
	cert, err := rc.XML.Verify(data)
	if err != nil {
		return rc.refuseECF(ctx, t, env, a, ReceiptSignature, err)
	}
	signer, err := rc.Trust.CheckSigner(cert, env, h.SignedAt, rc.now())
	if err == nil {
		err = CheckTokenHolder(in.Token, env, signer)
	}
	if err != nil {
		return rc.refuseECF(ctx, t, env, a, ReceiptSignature, err)
	}
	if err := CallExpired(ctx); err != nil {
		return nil, err
	}
	if h.Invalid != nil {
		// The ARECF has no room for the problem: code 1 says it all.
		return rc.refuseECF(ctx, t, env, a, ReceiptSpecification, h.Invalid)
	}
	switch {
	case !h.Type.B2B():
		return rc.refuseECF(ctx, t, env, a, ReceiptSpecification, fmt.Errorf("type %s is not exchanged between taxpayers", h.Type.Code()))
	case h.BuyerRNC != t.RNC:
		return rc.refuseECF(ctx, t, env, a, ReceiptWrongBuyer, fmt.Errorf("RNCComprador %q is not the tenant's %s", h.BuyerRNC, t.RNC))
	case held.Accepted != nil:
		return rc.refuseECF(ctx, t, env, a, ReceiptDuplicate, fmt.Errorf("DGII confirmed another document %s of RNC %s, received at %s (security code %s, not %s)",
			h.ENCF, h.IssuerRNC, FormatTime(held.Accepted.ReceivedAt), held.Accepted.SecurityCode, h.SecurityCode))
	}
	acuse, err := rc.signAcuse(ctx, t, env, a, 0)
	if err != nil {
		return nil, err
	}
	d := &InboundDocument{
		TenantID: t.ID, Environment: env, Type: h.Type, ENCF: h.ENCF,
		IssuerRNC: h.IssuerRNC, IssuerName: h.IssuerName, BuyerRNC: h.BuyerRNC,
		IssueDate: h.IssueDate, Total: h.Total, ITBIS: h.ITBIS, XML: data, XMLSum: sum, Acuse: acuse, Signer: signer,
		SecurityCode: h.SecurityCode,
	}
	stored, held, err := rc.Store.CreateInboundDocument(ctx, d, rc.ENCFQuota)
	switch {
	case err != nil:
		return nil, err
	case held != nil && held.Same != nil: // the same bytes, received meanwhile
		return &ECFReceipt{Acuse: held.Same.Acuse, Document: held.Same}, nil
	case held != nil:
		return rc.refuseECF(ctx, t, env, a, ReceiptDuplicate, fmt.Errorf("DGII confirmed another document %s of RNC %s meanwhile", h.ENCF, h.IssuerRNC))
	}
	return &ECFReceipt{Acuse: stored.Acuse, Document: stored}, nil
}

// refuseECF is the receipt of an e-CF not received, for code, why.
func (rc *Reception) refuseECF(ctx context.Context, t *Tenant, env Environment, a Acuse, code ReceiptCode, why error) (*ECFReceipt, error) {
	acuse, err := rc.signAcuse(ctx, t, env, a, code)
	if err != nil {
		return nil, err
	}
	return &ECFReceipt{Acuse: acuse, Code: code, Why: why}, nil
}

// signAcuse completes a (its RNCEmisor and eNCF set) as the tenant's acuse
// now, for code, and signs it with the tenant's certificate. Returns
// UNAVAILABLE when the tenant has no valid certificate in env.
func (rc *Reception) signAcuse(ctx context.Context, t *Tenant, env Environment, a Acuse, code ReceiptCode) ([]byte, error) {
	if err := CallExpired(ctx); err != nil {
		return nil, err
	}
	now := rc.now()
	a.RNCComprador, a.At, a.Code = t.RNC, now, code
	cert, err := rc.Keys.SigningCertificate(ctx, rc.Store.FindSigningCertificate, t.ID, env, now)
	if ErrorCodeOf(err) == CodeNotFound {
		e := Errorf(CodeUnavailable, "This receiver cannot sign its acuse now: it has no valid certificate in %s.", env)
		e.Err = err
		return nil, e
	} else if err != nil {
		return nil, err
	}
	key, x, err := rc.Keys.Open(cert, rc.MasterKey)
	if err != nil {
		return nil, err
	}
	signed, err := rc.XML.SignAcuse(a, key, x)
	if err != nil {
		return nil, fmt.Errorf("sign arecf: %w", err)
	}
	return signed, nil
}

// ReceivedACECF is an ACECF posted to a tenant's commercial approval
// service.
type ReceivedACECF struct {
	Tenant      *Tenant
	Environment Environment
	// Token is the call's token (Authenticate), nil when the tenant's
	// receiver takes calls without one.
	Token *ReceiverToken
	XML   []byte
	// FileName is the xml part's file name, "" when it has none.
	FileName string
}

// refuseApproval is ReceiveApproval's refusal of an ACECF whose signature,
// signer or fields do not hold: DGII's contract answers 400
// ("insatisfactorio") and nothing else, so the answer says no more than
// this; why is in the error's Err, for the log.
func refuseApproval(msg string, why error) error {
	return &Error{Code: CodeInvalidRequest, Message: msg, Err: why}
}

// ReceiveApproval answers an ACECF a buyer posted to the commercial
// approval service of the tenant that issued the document (FACTS §2.2):
// the ACECF's verdict as recorded (RecordReceivedApproval: received at now
// when it did not need recording), and the document after.
// The ACECF must read, be named {RNCComprador}{eNCF}.xml when named, name
// the tenant as RNCEmisor, be dated no earlier than the document's
// FechaEmision and at most ReceiverClockSkew ahead of now (CheckDate), and
// have a signature that holds and a signer CheckSigner accepts at its
// FechaHoraAprobacionComercial (and, in eCF, who holds the call's token).
// Every refusal is INVALID_REQUEST (HTTP 400, DGII's "insatisfactorio");
// one that does not match a document of the tenant's says so without
// naming any value of the tenant's. Returns PAYLOAD_TOO_LARGE too.
func (rc *Reception) ReceiveApproval(ctx context.Context, in ReceivedACECF) (*ApprovalVerdict, *Document, error) {
	t, env, data := in.Tenant, in.Environment, in.XML
	a, err := rc.XML.ReadApproval(data)
	if err != nil {
		return nil, nil, err
	}
	if want := a.BuyerRNC + a.ENCF + ".xml"; in.FileName != "" && !strings.EqualFold(in.FileName, want) {
		return nil, nil, Errorf(CodeInvalidRequest, "The file must be named %s (RNCComprador and eNCF), not %q.", want, in.FileName)
	}
	// The cheap refusals first: they need no signature work.
	now := rc.now()
	if err := a.CheckIssuer(t.RNC); err != nil {
		return nil, nil, err
	}
	if err := a.CheckDate(now); err != nil {
		return nil, nil, err
	}
	if err := CallExpired(ctx); err != nil {
		return nil, nil, err
	}
	cert, err := rc.XML.Verify(data)
	if err != nil {
		return nil, nil, refuseApproval("The ACECF's signature is not valid.", err)
	}
	a.Signer, err = rc.Trust.CheckSigner(cert, env, a.DecidedAt, now)
	if err == nil {
		err = CheckTokenHolder(in.Token, env, a.Signer)
	}
	if err != nil {
		return nil, nil, refuseApproval("This receiver does not accept the ACECF's signer.", err)
	}
	a.TenantID, a.Environment = t.ID, env
	doc, _, err := rc.Store.ReceiveCommercialApproval(ctx, a)
	if ErrorCodeOf(err) == CodeNotFound {
		return nil, nil, refuseApproval(approvalMismatch, err)
	} else if err != nil {
		return nil, nil, err
	}
	for _, v := range doc.CommercialApproval.AllVerdicts() {
		if v.Signer.Holder() == a.Signer.Holder() && v.Status == a.Status {
			return &v, doc, nil
		}
	}
	v := a.Verdict(now)
	return &v, doc, nil
}

// approvalMismatch is the one answer to an ACECF that names no document of
// the tenant's, or not its fields: it names none of the document's values,
// so that it tells a caller nothing of the tenant's ledger.
const approvalMismatch = "The approval matches no document of this issuer: its eNCF, FechaEmision, MontoTotal and RNCComprador must be the document's."

// errNoMatch is a mismatch's cause, for the log.
var errNoMatch = errors.New("approval does not match")
