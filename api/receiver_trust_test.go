package api_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
	"github.com/sello-do/sello/xmldsig"
)

// The signers of what a tenant's receiver receives (docs/receptor.md,
// "Trust"): a test CA stands for an INDOTEL-accredited one.

const (
	supplierHolder  = "IDCDO-00100000001" // the supplier's e-CF administrator
	colleagueHolder = "IDCDO-00200000002" // another person, with a certificate of the same CA
)

// trustKeys are the certificates of these tests, made once per binary.
var trustKeys struct {
	once       sync.Once
	ca         *x509.Certificate
	caKey      *rsa.PrivateKey
	supplier   *xmldsig.Signer // issued by ca to supplierHolder
	renewal    *xmldsig.Signer // another certificate of supplierHolder, same ca
	colleague  *xmldsig.Signer // issued by ca to colleagueHolder
	stranger   *xmldsig.Signer // self-signed, "Empresa Falsa SRL"
	expired    *xmldsig.Signer // ca's, valid in 2024 only
	notYet     *xmldsig.Signer // ca's, valid from 2031
	encipherer *xmldsig.Signer // ca's, keyEncipherment only
}

// mustTrustKeys makes trustKeys.
func mustTrustKeys(tb testing.TB) {
	tb.Helper()
	trustKeys.once.Do(func() {
		k := &trustKeys
		var err error
		if k.caKey, k.ca, err = xmldsig.GenerateCA(pkix.Name{CommonName: "Prueba CA Acreditada"}, time.Now().AddDate(5, 0, 0)); err != nil {
			panic(err)
		}
		issue := func(holder string) *xmldsig.Signer {
			key, cert, err := xmldsig.IssueCertificate(k.caKey, k.ca, pkix.Name{CommonName: "Persona " + holder, SerialNumber: holder}, time.Now().AddDate(1, 0, 0))
			if err != nil {
				panic(err)
			}
			return &xmldsig.Signer{Key: key, Cert: cert}
		}
		k.supplier, k.renewal, k.colleague = issue(supplierHolder), issue(supplierHolder), issue(colleagueHolder)
		key, cert, err := xmldsig.GenerateSelfSigned(pkix.Name{CommonName: "Empresa Falsa SRL", SerialNumber: "RNC-101010101"}, time.Now().AddDate(1, 0, 0))
		if err != nil {
			panic(err)
		}
		k.stranger = &xmldsig.Signer{Key: key, Cert: cert}
		k.expired = issueCustom(k.caKey, k.ca, time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 12, 31, 0, 0, 0, 0, time.UTC), x509.KeyUsageDigitalSignature)
		k.notYet = issueCustom(k.caKey, k.ca, time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2032, 1, 1, 0, 0, 0, 0, time.UTC), x509.KeyUsageDigitalSignature)
		k.encipherer = issueCustom(k.caKey, k.ca, time.Now().Add(-time.Hour), time.Now().AddDate(1, 0, 0), x509.KeyUsageKeyEncipherment)
	})
}

// issueCustom is a certificate of supplierHolder issued by ca, valid from
// notBefore to notAfter, with usage.
func issueCustom(caKey *rsa.PrivateKey, ca *x509.Certificate, notBefore, notAfter time.Time, usage x509.KeyUsage) *xmldsig.Signer {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "Persona", SerialNumber: supplierHolder},
		NotBefore: notBefore, NotAfter: notAfter, KeyUsage: usage, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		panic(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		panic(err)
	}
	return &xmldsig.Signer{Key: key, Cert: cert}
}

// testRoots trusts the test CA.
func testRoots(tb testing.TB) *sello.TrustRoots {
	tb.Helper()
	mustTrustKeys(tb)
	roots, err := sello.ParseTrustRoots(pemOf(trustKeys.ca))
	if err != nil {
		tb.Fatal(err)
	}
	return roots
}

// pemOf is cert in PEM.
func pemOf(cert *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw})
}

// ecfBy is the supplier's e-CF numbered n to the fixture's tenant, signed
// (FechaHoraFirma) at signedAt by signer.
func ecfBy(tb testing.TB, signer *xmldsig.Signer, n int64, signedAt time.Time) []byte {
	tb.Helper()
	b, err := signer.Sign(unsignedECFAt(tb, testRNC, n, 1, signedAt))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// receptor is the path of the tenant's service in env ("recepcion",
// "aprobacioncomercial", "autenticacion/api/…").
func receptor(env sello.Environment, service string) string {
	if strings.HasPrefix(service, "autenticacion/") {
		return "/" + string(env) + "/receptor/" + testRNC + "/fe/" + service
	}
	return "/" + string(env) + "/receptor/" + testRNC + "/fe/" + service + "/api/ecf"
}

// seedToken authenticates at the tenant's receiver in env with a seed
// signed by signer and returns the answer.
func (f *receiverFixture) seedToken(tb testing.TB, env sello.Environment, signer *xmldsig.Signer) *httptest.ResponseRecorder {
	tb.Helper()
	rec := httptest.NewRecorder()
	f.handler.ServeHTTP(rec, httptest.NewRequest("GET", receptor(env, "autenticacion/api/semilla"), nil))
	if rec.Code != 200 {
		tb.Fatalf("semilla: got %d %s", rec.Code, rec.Body)
	}
	signed, err := signer.Sign(rec.Body.Bytes())
	if err != nil {
		tb.Fatal(err)
	}
	body, ct := upload(tb, "semilla.xml", signed)
	return f.raw(receptor(env, "autenticacion/api/validacioncertificado"), "", ct, body)
}

// mustToken is seedToken's token, which must be issued.
func (f *receiverFixture) mustToken(tb testing.TB, env sello.Environment, signer *xmldsig.Signer) string {
	tb.Helper()
	rec := f.seedToken(tb, env, signer)
	var tok struct{ Token string }
	if err := json.Unmarshal(rec.Body.Bytes(), &tok); rec.Code != 200 || err != nil || tok.Token == "" {
		tb.Fatalf("validacioncertificado: got %d %s", rec.Code, rec.Body)
	}
	return tok.Token
}

// wantStored checks whether the tenant holds e-CF n in env, and returns
// it.
func (f *receiverFixture) wantStored(tb testing.TB, env sello.Environment, n int64, want bool) *sello.InboundDocument {
	tb.Helper()
	d, err := f.store.FindInboundDocumentByENCF(tb.Context(), f.tenant.ID, env, supplierRNC, sello.ENCF{Type: sello.TypeCreditoFiscal, Number: n}.String())
	if want && err != nil {
		tb.Fatalf("the received document: %v", err)
	} else if !want && sello.ErrorCodeOf(err) != sello.CodeNotFound {
		tb.Fatalf("a refused document was stored (%v)", err)
	}
	return d
}

func TestReceiverTrust(t *testing.T) {
	mustTrustKeys(t)
	k := &trustKeys
	t.Run("ErrForgedIssuerECF", func(t *testing.T) {
		// A self-signed stranger's e-CF "from" the supplier, in eCF with
		// roots configured: Estado 1, code 2, nothing stored. It used to
		// be received, stored and announced.
		f := mustReceiverFixture(t, true).trusting(testRoots(t))
		rec := f.post(t, receptor(sello.EnvProd, "recepcion"), "", ecfBy(t, k.stranger, 1, time.Now()))
		f.wantAcuse(t, rec, ecf.ReceiptNotReceived, ecf.ReasonSignature)
		f.wantStored(t, sello.EnvProd, 1, false)
		// Why is in the log, not in the answer.
		if log := f.log.String(); !strings.Contains(log, "receiver refused an e-CF (code 2)") || !strings.Contains(log, "does not chain to the trust roots") {
			t.Errorf("the log does not say why:\n%s", log)
		}
		if strings.Contains(rec.Body.String(), "chain") {
			t.Errorf("the acuse says why: %s", rec.Body)
		}
		// The supplier's own, from the trusted CA: received, its signer
		// recorded.
		f.wantAcuse(t, f.post(t, receptor(sello.EnvProd, "recepcion"), "", ecfBy(t, k.supplier, 2, time.Now())), ecf.ReceiptReceived, 0)
		d := f.wantStored(t, sello.EnvProd, 2, true)
		if s := d.Signer; s == nil || !s.Trusted || s.SerialNumber != supplierHolder || s.Issuer != k.ca.Subject.String() ||
			!s.NotAfter.Equal(k.supplier.Cert.NotAfter) || len(s.Fingerprint) != 64 {
			t.Fatalf("signer: got %+v, want the supplier's certificate, trusted", s)
		}
		if r := d.Resource(); r.Signer == nil || r.Signer.SerialNumber == nil || *r.Signer.SerialNumber != supplierHolder || !r.Signer.Trusted {
			t.Errorf("resource signer: got %+v", r.Signer)
		}
	})
	t.Run("ForgedIssuerWithoutRoots", func(t *testing.T) {
		// Without roots, eCF cannot tell a stranger from a supplier: the
		// document is received and its signer recorded untrusted.
		f := mustReceiverFixture(t, true)
		f.wantAcuse(t, f.post(t, receptor(sello.EnvProd, "recepcion"), "", ecfBy(t, k.stranger, 1, time.Now())), ecf.ReceiptReceived, 0)
		if d := f.wantStored(t, sello.EnvProd, 1, true); d.Signer == nil || d.Signer.Trusted || d.Signer.Subject != k.stranger.Cert.Subject.String() {
			t.Fatalf("signer: got %+v, want the stranger's, untrusted", d.Signer)
		}
	})
	t.Run("TesteCFAcceptsAny", func(t *testing.T) {
		// DGII's certification signs with test certificates of its own:
		// any is received, trusted only when it chains to the roots.
		f := mustReceiverFixture(t, true).trusting(testRoots(t))
		for n, tt := range []struct {
			signer  *xmldsig.Signer
			trusted bool
		}{{k.stranger, false}, {k.supplier, true}} {
			f.wantAcuse(t, f.post(t, recepcion, "", ecfBy(t, tt.signer, int64(n+1), time.Now())), ecf.ReceiptReceived, 0)
			if d := f.wantStored(t, sello.EnvTest, int64(n+1), true); d.Signer.Trusted != tt.trusted {
				t.Errorf("document %d: trusted %v, want %v", n+1, d.Signer.Trusted, tt.trusted)
			}
		}
	})
	t.Run("ErrCertificate", func(t *testing.T) {
		// In every environment: a certificate not valid at FechaHoraFirma,
		// one without digitalSignature or nonRepudiation, a FechaHoraFirma
		// in the future. They used to be received.
		f := mustReceiverFixture(t, true).trusting(testRoots(t))
		for _, env := range []sello.Environment{sello.EnvTest, sello.EnvProd} {
			for i, tt := range []struct {
				name     string
				signer   *xmldsig.Signer
				signedAt time.Time
			}{
				{"Expired2024", k.expired, time.Now()},
				{"NotYetValid2031", k.notYet, time.Now()},
				{"NotYetValidSignedIn2031", k.notYet, time.Date(2031, 6, 1, 12, 0, 0, 0, time.UTC)},
				{"KeyEncipherment", k.encipherer, time.Now()},
			} {
				t.Run(string(env)+"/"+tt.name, func(t *testing.T) {
					n := int64(10 + i)
					rec := f.post(t, receptor(env, "recepcion"), "", ecfBy(t, tt.signer, n, tt.signedAt))
					f.wantAcuse(t, rec, ecf.ReceiptNotReceived, ecf.ReasonSignature)
					f.wantStored(t, env, n, false)
				})
			}
		}
	})
	t.Run("ErrTokenOfAnotherHolder", func(t *testing.T) {
		// In eCF a token belongs to whoever signed its seed: an e-CF
		// signed by another person (a valid certificate of the same CA)
		// with the supplier's token is refused; one signed by another
		// certificate of the supplier's holder is received.
		f := mustReceiverFixture(t, false).trusting(testRoots(t))
		token := f.mustToken(t, sello.EnvProd, k.supplier)
		f.wantAcuse(t, f.post(t, receptor(sello.EnvProd, "recepcion"), token, ecfBy(t, k.colleague, 1, time.Now())), ecf.ReceiptNotReceived, ecf.ReasonSignature)
		f.wantStored(t, sello.EnvProd, 1, false)
		f.wantAcuse(t, f.post(t, receptor(sello.EnvProd, "recepcion"), token, ecfBy(t, k.renewal, 2, time.Now())), ecf.ReceiptReceived, 0)
		// TesteCF does not bind the token.
		token = f.mustToken(t, sello.EnvTest, k.supplier)
		f.wantAcuse(t, f.post(t, recepcion, token, ecfBy(t, k.colleague, 3, time.Now())), ecf.ReceiptReceived, 0)
	})
	t.Run("ErrSeedSigner", func(t *testing.T) {
		f := mustReceiverFixture(t, false).trusting(testRoots(t))
		for _, tt := range []struct {
			name   string
			env    sello.Environment
			signer *xmldsig.Signer
		}{
			{"Expired", sello.EnvTest, k.expired},
			{"NotYetValid", sello.EnvTest, k.notYet},
			{"KeyEncipherment", sello.EnvTest, k.encipherer},
			{"UntrustedInECF", sello.EnvProd, k.stranger},
		} {
			t.Run(tt.name, func(t *testing.T) {
				rec := f.seedToken(t, tt.env, tt.signer)
				wantStatus(t, rec, 401, "UNAUTHENTICATED", "does not accept the seed's signer")
				// The reason is for the log, not the caller.
				for _, why := range []string{"expired", "valid until", "digitalSignature", "chain", "trust"} {
					if strings.Contains(rec.Body.String(), why) {
						t.Errorf("the answer %s says why (%q)", rec.Body, why)
					}
				}
			})
		}
		// A stranger's seed in TesteCF buys a token.
		f.mustToken(t, sello.EnvTest, k.stranger)
	})
}

func TestAprobacionComercialTrust(t *testing.T) {
	mustTrustKeys(t)
	k := &trustKeys
	t.Run("StrangerDisputes", func(t *testing.T) {
		// A stranger rejects the tenant's invoice first (TesteCF, no
		// roots: it is kept, untrusted); the buyer's approval is not
		// refused with 409 but kept beside it: disputed, with both
		// signers. The stranger's rejection used to be final.
		f := mustReceiverFixture(t, true)
		doc := f.issuedDocument(t, 1)
		wantStatus(t, f.postApproval(t, aprobacion, "", f.acecfBy(t, k.stranger, doc, "Mercancía no recibida", nil)), 200, `"status":"rejected"`)
		wantStatus(t, f.postApproval(t, aprobacion, "", f.acecfBy(t, k.supplier, doc, "", nil)), 200, `"status":"approved"`, supplierHolder)
		stored, err := f.store.FindDocument(t.Context(), f.tenant.ID, sello.EnvTest, doc.ENCF)
		if err != nil {
			t.Fatal(err)
		}
		r := stored.Resource().CommercialApproval
		if r == nil || r.Status != sello.ApprovalDisputed || len(r.Verdicts) != 2 ||
			r.Verdicts[0].Signer.Subject != k.stranger.Cert.Subject.String() || r.Verdicts[0].Signer.Trusted ||
			r.Verdicts[1].Status != sello.ApprovalApproved || *r.Verdicts[1].Signer.SerialNumber != supplierHolder {
			t.Fatalf("commercialApproval: got %+v, want disputed with the stranger's rejection and the buyer's approval", r)
		}
		events, err := f.store.ListEvents(t.Context(), f.tenant.ID, sello.EnvTest, sello.EventFilter{Type: sello.EventECFCommercialApprovalDisputed, Limit: 10})
		if err != nil || len(events) != 1 || events[0].Data.Severity != "warning" {
			t.Fatalf("disputed events: got %+v, %v", events, err)
		}
		// The answer to the stranger's retry shows only its own verdict.
		rec := f.postApproval(t, aprobacion, "", f.acecfBy(t, k.stranger, doc, "Mercancía no recibida", nil))
		wantStatus(t, rec, 200, `"status":"rejected"`)
		if strings.Contains(rec.Body.String(), supplierHolder) {
			t.Errorf("the stranger's answer %s names the buyer's signer", rec.Body)
		}
	})
	t.Run("ErrStrangerInECF", func(t *testing.T) {
		// With roots, a stranger's rejection in eCF is refused (400) and
		// records nothing; the buyer's approval then is the verdict.
		f := mustReceiverFixture(t, true).trusting(testRoots(t))
		doc := f.issuedDocumentIn(t, sello.EnvProd, 1)
		wantStatus(t, f.postApproval(t, receptor(sello.EnvProd, "aprobacioncomercial"), "", f.acecfBy(t, k.stranger, doc, "Falsa", nil)), 400,
			"INVALID_REQUEST", "does not accept the ACECF's signer")
		if stored, _ := f.store.FindDocument(t.Context(), f.tenant.ID, sello.EnvProd, doc.ENCF); stored.CommercialApproval != nil {
			t.Fatalf("a refused approval was recorded: %+v", stored.CommercialApproval)
		}
		wantStatus(t, f.postApproval(t, receptor(sello.EnvProd, "aprobacioncomercial"), "", f.acecfBy(t, k.supplier, doc, "", nil)), 200, `"status":"approved"`, `"trusted":true`)
	})
	t.Run("ErrTokenOfAnotherHolder", func(t *testing.T) {
		f := mustReceiverFixture(t, false).trusting(testRoots(t))
		doc := f.issuedDocumentIn(t, sello.EnvProd, 1)
		token := f.mustToken(t, sello.EnvProd, k.supplier)
		path := receptor(sello.EnvProd, "aprobacioncomercial")
		wantStatus(t, f.postApproval(t, path, token, f.acecfBy(t, k.colleague, doc, "Rechazo", nil)), 400, "does not accept the ACECF's signer")
		wantStatus(t, f.postApproval(t, path, token, f.acecfBy(t, k.supplier, doc, "", nil)), 200, `"status":"approved"`)
	})
	t.Run("ErrDate", func(t *testing.T) {
		f := mustReceiverFixture(t, true)
		doc := f.issuedDocument(t, 1) // FechaEmision 09-03-2026
		for _, tt := range []struct {
			name string
			at   time.Time
			want string
		}{
			// A widely used toolkit hard-codes 2023 in its ACECF builder.
			{"BeforeFechaEmision", time.Date(2023, 6, 1, 12, 0, 0, 0, time.UTC), "before the document's FechaEmision"},
			{"TheDayBefore", time.Date(2026, 3, 8, 23, 0, 0, 0, sello.DRZone), "before the document's FechaEmision"},
			{"Future", f.clock.Peek().Add(10 * time.Minute), "in the future"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				x := f.acecfBy(t, f.supplier, doc, "", func(a *ecf.ACECF) { a.At = tt.at })
				wantStatus(t, f.postApproval(t, aprobacion, "", x), 400, "INVALID_REQUEST", tt.want)
			})
		}
		// Within the clock skew is fine.
		x := f.acecfBy(t, f.supplier, doc, "", func(a *ecf.ACECF) { a.At = f.clock.Peek().Add(2 * time.Minute).Truncate(time.Second) })
		wantStatus(t, f.postApproval(t, aprobacion, "", x), 200)
		if stored, _ := f.store.FindDocument(t.Context(), f.tenant.ID, sello.EnvTest, doc.ENCF); stored.CommercialApproval == nil || len(stored.CommercialApproval.Verdicts) != 1 {
			t.Fatalf("approval: got %+v, want the one dated in the skew", stored.CommercialApproval)
		}
	})
}

// TestParseTrustRoots reads PEM bundles and refuses those without a
// certificate.
func TestParseTrustRoots(t *testing.T) {
	mustTrustKeys(t)
	t.Run("OK", func(t *testing.T) {
		r, err := sello.ParseTrustRoots(append(append([]byte("# the CA\n"), pemOf(trustKeys.ca)...), pemOf(trustKeys.supplier.Cert)...))
		if err != nil || len(r.Names()) != 2 || r.Names()[0] != trustKeys.ca.Subject.String() {
			t.Fatalf("got %v, %v", r.Names(), err)
		}
	})
	for _, tt := range []struct {
		name, bundle, want string
	}{
		{"ErrEmpty", "", "no PEM certificate"},
		{"ErrNotPEM", "not a certificate", "no PEM certificate"},
		{"ErrKey", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", `"PRIVATE KEY"`},
		{"ErrGarbage", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", "PEM block 1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := sello.ParseTrustRoots([]byte(tt.bundle)); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error with %q", err, tt.want)
			}
		})
	}
}
