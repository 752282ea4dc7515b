package api_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"maps"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/api"
	"github.com/sello-do/sello/ecf"
	"github.com/sello-do/sello/internal/metrics"
	"github.com/sello-do/sello/internal/metrics/metricstest"
	"github.com/sello-do/sello/oracle"
	"github.com/sello-do/sello/sqlite"
	"github.com/sello-do/sello/storetest"
	"github.com/sello-do/sello/xmldsig"
)

const supplierRNC = "131000007"

// receiverFixture is a tenant's receiver over a real SQLite store: the
// tenant (the buyer) with a signing certificate, and a supplier's key.
type receiverFixture struct {
	store    sello.Store
	handler  http.Handler
	tenant   *sello.Tenant
	cert     *x509.Certificate // the tenant's
	supplier *xmldsig.Signer
	clock    *storetest.Clock
	mk       *sello.MasterKey
	// configure changes the server before it serves (with).
	configure []func(*api.Server)
	// log is what the server logged.
	log bytes.Buffer
}

var (
	keysOnce         sync.Once
	tenantKey        *rsa.PrivateKey
	tenantCert       *x509.Certificate
	supplierKeyCache *xmldsig.Signer
)

// testKeys makes the two RSA keys once per test binary.
func testKeys(tb testing.TB) {
	keysOnce.Do(func() {
		var err error
		if tenantKey, tenantCert, err = xmldsig.GenerateSelfSigned(pkix.Name{CommonName: "Prueba SRL", SerialNumber: testRNC}, time.Now().AddDate(1, 0, 0)); err != nil {
			panic(err)
		}
		k, c, err := xmldsig.GenerateSelfSigned(pkix.Name{CommonName: "Proveedor SRL", SerialNumber: supplierRNC}, time.Now().AddDate(1, 0, 0))
		if err != nil {
			panic(err)
		}
		supplierKeyCache = &xmldsig.Signer{Key: k, Cert: c}
	})
}

func mustReceiverFixture(tb testing.TB, authOff bool) *receiverFixture {
	tb.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(tb.TempDir(), "sello.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return mustReceiverFixtureOn(tb, db, authOff)
}

// mustReceiverFixtureOn is mustReceiverFixture over db.
func mustReceiverFixtureOn(tb testing.TB, db sello.Store, authOff bool) *receiverFixture {
	tb.Helper()
	testKeys(tb)
	ctx := context.Background()
	t := &sello.Tenant{RNC: testRNC, Name: "Prueba SRL", Plan: sello.DefaultRatePlan, ReceiverAuthOff: authOff}
	if err := db.CreateTenant(ctx, t); err != nil {
		tb.Fatal(err)
	}
	mk, err := sello.ParseMasterKey(sello.GenerateMasterKey())
	if err != nil {
		tb.Fatal(err)
	}
	for _, env := range []sello.Environment{sello.EnvTest, sello.EnvProd} {
		c, err := sello.NewCertificate(t.ID, env, tenantCert, tenantKey, mk)
		if err != nil {
			tb.Fatal(err)
		}
		if err := db.AddCertificate(ctx, c); err != nil {
			tb.Fatal(err)
		}
	}
	f := &receiverFixture{store: db, tenant: t, cert: tenantCert, supplier: supplierKeyCache, clock: storetest.NewClock(time.Now(), 0), mk: mk}
	return f.trusting(nil)
}

// trusting makes f's receiver trust roots (nil: none configured), within
// unlimitedReceivers unless f's configure says otherwise.
func (f *receiverFixture) trusting(roots *sello.TrustRoots) *receiverFixture {
	limits := unlimitedReceivers
	srv := &api.Server{Store: f.store, MasterKey: f.mk, Now: f.clock.Now, ReceiverTrust: roots, ReceiverLimits: &limits,
		Logger: slog.New(slog.NewTextHandler(&f.log, nil))}
	for _, c := range f.configure {
		c(srv)
	}
	f.handler = srv.Handler()
	return f
}

// unlimitedReceivers are limits no test meets unless it means to:
// benchmarks post thousands of documents from one address and issuer.
var unlimitedReceivers = sello.ReceiverLimits{
	PerAddress: sello.RatePlan{Name: "test", Rate: 1e9, Burst: 1 << 30},
	PerTenant:  sello.RatePlan{Name: "test", Rate: 1e9, Burst: 1 << 30},
	Timeout:    time.Minute,
}

// with makes f's receiver, trusting no roots, as configure changes it.
func (f *receiverFixture) with(configure func(*api.Server)) *receiverFixture {
	f.configure = append(f.configure, configure)
	return f.trusting(nil)
}

// unsignedECF is a valid type-31 e-CF numbered n from the supplier to
// buyer, before its signature.
func unsignedECF(tb testing.TB, buyer string, n int64) []byte {
	tb.Helper()
	return unsignedECFItems(tb, buyer, n, 1)
}

// signedECF is unsignedECF signed by the supplier.
func (f *receiverFixture) signedECF(tb testing.TB, buyer string, n int64) []byte {
	tb.Helper()
	b, err := f.supplier.Sign(unsignedECF(tb, buyer, n))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// upload is a multipart/form-data body with doc as its xml part.
func upload(tb testing.TB, filename string, doc []byte) (body []byte, contentType string) {
	tb.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	p, err := mw.CreateFormFile("xml", filename)
	if err != nil {
		tb.Fatal(err)
	}
	p.Write(doc)
	mw.Close()
	return buf.Bytes(), mw.FormDataContentType()
}

// post posts doc as the xml part to path with token ("" for none).
func (f *receiverFixture) post(tb testing.TB, path, token string, doc []byte) *httptest.ResponseRecorder {
	tb.Helper()
	enc, _ := sello.ParseENCF(encfOf(doc))
	body, ct := upload(tb, supplierRNC+enc.String()+".xml", doc)
	return f.raw(path, token, ct, body)
}

func (f *receiverFixture) raw(path, token, contentType string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest("POST", path, bytes.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	f.handler.ServeHTTP(rec, req)
	return rec
}

// encfOf is the eNCF of an e-CF, "" when absent.
func encfOf(doc []byte) string {
	s := string(doc)
	i := strings.Index(s, "<eNCF>")
	j := strings.Index(s, "</eNCF>")
	if i < 0 || j < i {
		return ""
	}
	return s[i+len("<eNCF>") : j]
}

const recepcion = "/TesteCF/receptor/" + testRNC + "/fe/recepcion/api/ecf"

// wantAcuse checks that rec is a signed ARECF, valid by DGII's XSD and
// xmlsec1, with estado and codigo ("" when received).
func (f *receiverFixture) wantAcuse(tb testing.TB, rec *httptest.ResponseRecorder, estado ecf.ReceiptState, codigo ecf.NotReceivedReason) *ecf.ARECF {
	tb.Helper()
	if rec.Code != http.StatusOK {
		tb.Fatalf("got %d %s, want 200 and an ARECF", rec.Code, rec.Body)
	}
	a, err := ecf.ParseARECF(rec.Body.Bytes())
	if err != nil {
		tb.Fatalf("ParseARECF: %v\n%s", err, rec.Body)
	}
	if a.Estado != estado || a.CodigoMotivoNoRecibido != codigo || a.RNCComprador != testRNC {
		tb.Fatalf("ARECF: got Estado %d Codigo %d RNCComprador %s, want %d %d %s", a.Estado, a.CodigoMotivoNoRecibido, a.RNCComprador, estado, codigo, testRNC)
	}
	if cert, err := xmldsig.Verify(rec.Body.Bytes()); err != nil || !cert.Equal(f.cert) {
		tb.Fatalf("the ARECF is not signed with the tenant's certificate: %v", err)
	}
	return a
}

// inboundUnder returns every document the tenant holds from the supplier
// under encf in env, whole, oldest first.
func (f *receiverFixture) inboundUnder(tb testing.TB, env sello.Environment, encf string) []*sello.InboundDocument {
	tb.Helper()
	page, next, err := f.store.ListInboundDocuments(tb.Context(), f.tenant.ID, env, sello.InboundFilter{IssuerRNC: supplierRNC, ENCF: encf, Limit: sello.MaxPageSize})
	if err != nil || next != "" {
		tb.Fatalf("list %s: next %q, %v", encf, next, err)
	}
	var docs []*sello.InboundDocument
	for _, d := range slices.Backward(page) {
		whole, err := f.store.FindInboundDocument(tb.Context(), f.tenant.ID, env, d.ID)
		if err != nil {
			tb.Fatal(err)
		}
		docs = append(docs, whole)
	}
	return docs
}

func TestRecepcion(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		f := mustReceiverFixture(t, true)
		doc := f.signedECF(t, testRNC, 1)
		rec := f.post(t, recepcion, "", doc)
		a := f.wantAcuse(t, rec, ecf.ReceiptReceived, 0)
		if a.RNCEmisor != supplierRNC || a.ENCF != "E310000000001" {
			t.Errorf("ARECF: got %s %s, want %s E310000000001", a.RNCEmisor, a.ENCF, supplierRNC)
		}
		if out, ok := oracle.Xmllint(t, "ARECF.xsd", rec.Body.Bytes()); !ok {
			t.Errorf("xmllint refuses the ARECF:\n%s\n%s", out, rec.Body)
		}
		if out, ok := oracle.Xmlsec1Verify(t, f.cert, rec.Body.Bytes()); !ok {
			t.Errorf("xmlsec1 refuses the ARECF's signature:\n%s", out)
		}
		stored, err := f.store.FindInboundDocumentByENCF(t.Context(), f.tenant.ID, sello.EnvTest, supplierRNC, "E310000000001")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(stored.XML, doc) || !bytes.Equal(stored.Acuse, rec.Body.Bytes()) || stored.Total != "1180.00" || stored.BuyerRNC != testRNC {
			t.Errorf("stored: got total %s buyer %s, same xml %v, same acuse %v", stored.Total, stored.BuyerRNC, bytes.Equal(stored.XML, doc), bytes.Equal(stored.Acuse, rec.Body.Bytes()))
		}
		// Its TotalITBIS is kept, and counted in the day totals of Inicio.
		if stored.ITBIS != "180.00" {
			t.Errorf("stored ITBIS: got %q, want 180.00 as written", stored.ITBIS)
		}
		days, err := f.store.FindReceivedTotals(t.Context(), f.tenant.ID, sello.EnvTest, stored.IssueDate, stored.IssueDate)
		if err != nil {
			t.Fatal(err)
		} else if len(days) != 1 || days[0].Count != 1 || days[0].Total.String() != "1180" || days[0].ITBIS.String() != "180" {
			t.Errorf("the day's received totals: %+v, want the document's 1180.00 and 180.00", days)
		}
		events, err := f.store.ListEvents(t.Context(), f.tenant.ID, sello.EnvTest, sello.EventFilter{Type: sello.EventInboundReceived, Limit: 5})
		if err != nil {
			t.Fatal(err)
		} else if len(events) != 1 || events[0].Data.Payload["inboundDocumentId"] != stored.ID {
			t.Fatalf("events: got %+v, want one with inboundDocumentId %s", events, stored.ID)
		}

		// A retry (the answer was lost) gets the same acuse, byte for byte.
		again := f.post(t, recepcion, "", doc)
		if !bytes.Equal(again.Body.Bytes(), rec.Body.Bytes()) {
			t.Errorf("retry: got another acuse:\n%s", again.Body)
		}
	})
	t.Run("Xmlsec1Signed", func(t *testing.T) {
		f := mustReceiverFixture(t, true)
		doc := oracle.Xmlsec1Sign(t, f.supplier.Key, f.supplier.Cert, unsignedECF(t, testRNC, 2))
		f.wantAcuse(t, f.post(t, recepcion, "", doc), ecf.ReceiptReceived, 0)
	})
	// Nothing unproven blocks the genuine (issue 20, finding 2): a forged
	// copy of the issuer's next e-NCF posted first does not keep the
	// genuine one out; both are kept until DGII accepts one. Only then
	// does another document under the e-NCF get code 3.
	t.Run("PreEmption", func(t *testing.T) {
		f := mustReceiverFixture(t, true)
		forged, err := f.supplier.Sign(bytes.Replace(unsignedECF(t, testRNC, 3), []byte("Cliente Ejemplo SRL"), []byte("Cliente Ejemplo SA"), 1))
		if err != nil {
			t.Fatal(err)
		}
		forgedAcuse := f.post(t, recepcion, "", forged)
		f.wantAcuse(t, forgedAcuse, ecf.ReceiptReceived, 0)
		genuine := f.signedECF(t, testRNC, 3)
		f.wantAcuse(t, f.post(t, recepcion, "", genuine), ecf.ReceiptReceived, 0)
		docs := f.inboundUnder(t, sello.EnvTest, "E310000000003")
		if len(docs) != 2 || !bytes.Equal(docs[0].XML, forged) || !bytes.Equal(docs[1].XML, genuine) {
			t.Fatalf("stored %d documents under E310000000003, want the forged and the genuine", len(docs))
		}
		for _, d := range docs {
			if h, _ := ecf.ParseECFHeader(d.XML); d.DGII == nil || d.DGII.Status != sello.DGIIPending || d.SecurityCode != h.SecurityCode || len(d.SecurityCode) != 6 {
				t.Fatalf("stored %s: dgii %+v, security code %q; want pending and %q", d.ID, d.DGII, d.SecurityCode, h.SecurityCode)
			}
		}
		// DGII accepts the genuine one: the forged one is refuted, and a
		// third document is a duplicate.
		storetest.MustRecordDGII(t, f.store, f.tenant.ID, sello.EnvTest, docs[1].ID, 1, "Aceptado")
		if got, err := f.store.FindInboundDocument(t.Context(), f.tenant.ID, sello.EnvTest, docs[0].ID); err != nil || got.DGII.Status != sello.DGIIRefuted {
			t.Fatalf("the forged one: %+v, %v; want refuted", got, err)
		}
		third, err := f.supplier.Sign(bytes.Replace(unsignedECF(t, testRNC, 3), []byte("Cliente Ejemplo SRL"), []byte("Cliente Ejemplo SAS"), 1))
		if err != nil {
			t.Fatal(err)
		}
		f.wantAcuse(t, f.post(t, recepcion, "", third), ecf.ReceiptNotReceived, ecf.ReasonDuplicate)
		// The same bytes get the same acuse, refuted or not.
		if again := f.post(t, recepcion, "", forged); !bytes.Equal(again.Body.Bytes(), forgedAcuse.Body.Bytes()) {
			t.Errorf("the forged bytes again: another acuse:\n%s", again.Body)
		}
		if docs := f.inboundUnder(t, sello.EnvTest, "E310000000003"); len(docs) != 2 {
			t.Fatalf("stored %d documents under E310000000003, want 2", len(docs))
		}
	})
	t.Run("WrongBuyer", func(t *testing.T) {
		f := mustReceiverFixture(t, true)
		f.wantAcuse(t, f.post(t, recepcion, "", f.signedECF(t, "131880681", 4)), ecf.ReceiptNotReceived, ecf.ReasonWrongBuyer)
		if _, err := f.store.FindInboundDocumentByENCF(t.Context(), f.tenant.ID, sello.EnvTest, supplierRNC, "E310000000004"); sello.ErrorCodeOf(err) != sello.CodeNotFound {
			t.Fatalf("a refused document was stored: %v", err)
		}
	})
	t.Run("Tampered", func(t *testing.T) {
		m := metrics.New(metrics.Options{})
		f := mustReceiverFixture(t, true).with(func(s *api.Server) { s.Metrics = m })
		doc := bytes.Replace(f.signedECF(t, testRNC, 5), []byte("Cliente Ejemplo"), []byte("Cliente Ejemplx"), 1)
		f.wantAcuse(t, f.post(t, recepcion, "", doc), ecf.ReceiptNotReceived, ecf.ReasonSignature)
		// The metrics count the call, and its refusal by the acuse's code.
		if got, want := metricstest.Values(t, m, "sello_receiver_requests_total"), map[string]float64{"service=recepcion": 1}; !maps.Equal(got, want) {
			t.Errorf("receiver requests %v, want %v", got, want)
		}
		if got, want := metricstest.Values(t, m, "sello_receiver_refusals_total"), map[string]float64{"reason=not_received_signature,service=recepcion": 1}; !maps.Equal(got, want) {
			t.Errorf("receiver refusals %v, want %v", got, want)
		}
	})
	t.Run("ThousandItems", func(t *testing.T) {
		// DGII's largest documents verify and read: 1,000 items.
		f := mustReceiverFixture(t, true)
		doc, err := f.supplier.Sign(unsignedECFItems(t, testRNC, 9, 1000))
		if err != nil {
			t.Fatal(err)
		}
		f.wantAcuse(t, f.post(t, recepcion, "", doc), ecf.ReceiptReceived, 0)
		stored, err := f.store.FindInboundDocumentByENCF(t.Context(), f.tenant.ID, sello.EnvTest, supplierRNC, "E310000000009")
		if err != nil || !bytes.Equal(stored.XML, doc) {
			t.Fatalf("stored: %v", err)
		}
	})
	t.Run("Wrapped", func(t *testing.T) {
		f := mustReceiverFixture(t, true)
		// A validly signed document moved under a new root element with
		// forged content: the signature still "verifies" over the inner
		// copy, but not as DGII's profile (one Signature, last child of
		// the root, URI="").
		signed := f.signedECF(t, testRNC, 6)
		i := bytes.Index(signed, []byte("<Signature"))
		forged := bytes.Replace(signed[:i], []byte("1180.00"), []byte("9.00"), -1)
		doc := append(append(append([]byte{}, forged...), []byte("<Extra>")...), signed[i:]...)
		doc = bytes.Replace(doc, []byte("</ECF>"), []byte("</Extra></ECF>"), 1)
		// The signature is checked before the structure (where <Extra>,
		// no element of the XSD, would fail too): a wrapped document is a
		// signature error, as the issue asks.
		f.wantAcuse(t, f.post(t, recepcion, "", doc), ecf.ReceiptNotReceived, ecf.ReasonSignature)
		unsignedCopy := append(append([]byte{}, signed[:i]...), []byte("</ECF>")...)
		f.wantAcuse(t, f.post(t, recepcion, "", unsignedCopy), ecf.ReceiptNotReceived, ecf.ReasonSignature)
	})
	t.Run("Specification", func(t *testing.T) {
		f := mustReceiverFixture(t, true)
		// RazonSocialEmisor missing, signed as it is.
		doc := unsignedECF(t, testRNC, 7)
		i, j := bytes.Index(doc, []byte("<RazonSocialEmisor>")), bytes.Index(doc, []byte("</RazonSocialEmisor>"))
		doc = append(append([]byte{}, doc[:i]...), doc[j+len("</RazonSocialEmisor>"):]...)
		signed, err := f.supplier.Sign(doc)
		if err != nil {
			t.Fatal(err)
		}
		f.wantAcuse(t, f.post(t, recepcion, "", signed), ecf.ReceiptNotReceived, ecf.ReasonSpecification)
		// A file name that is not {RNCEmisor}{eNCF}.xml.
		body, ct := upload(t, "factura.xml", f.signedECF(t, testRNC, 8))
		f.wantAcuse(t, f.raw(recepcion, "", ct, body), ecf.ReceiptNotReceived, ecf.ReasonSpecification)
		// Every field ParseECFHeader reads is there, but TipoPago comes
		// before TipoIngresos, against the XSD's sequence (ecf.ReadXML).
		doc = unsignedECF(t, testRNC, 10)
		reordered := bytes.Replace(doc, []byte("<TipoIngresos>01</TipoIngresos><TipoPago>1</TipoPago>"), []byte("<TipoPago>1</TipoPago><TipoIngresos>01</TipoIngresos>"), 1)
		if bytes.Equal(reordered, doc) {
			t.Fatal("the sample has no TipoIngresos, TipoPago")
		}
		if signed, err = f.supplier.Sign(reordered); err != nil {
			t.Fatal(err)
		}
		f.wantAcuse(t, f.post(t, recepcion, "", signed), ecf.ReceiptNotReceived, ecf.ReasonSpecification)
	})
	t.Run("NotExchanged", func(t *testing.T) {
		f := mustReceiverFixture(t, true)
		doc := unsignedECF(t, testRNC, 9)
		doc = bytes.Replace(doc, []byte("<TipoeCF>31</TipoeCF>"), []byte("<TipoeCF>43</TipoeCF>"), 1)
		doc = bytes.Replace(doc, []byte("E310000000009"), []byte("E430000000009"), 1)
		signed, err := f.supplier.Sign(doc)
		if err != nil {
			t.Fatal(err)
		}
		f.wantAcuse(t, f.post(t, recepcion, "", signed), ecf.ReceiptNotReceived, ecf.ReasonSpecification)
	})
}

func TestRecepcionBadInput(t *testing.T) {
	f := mustReceiverFixture(t, true)
	doc := f.signedECF(t, testRNC, 1)
	multi := func(name string, doc []byte) ([]byte, string) {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		p, _ := mw.CreateFormFile(name, "x.xml")
		p.Write(doc)
		mw.Close()
		return buf.Bytes(), mw.FormDataContentType()
	}
	noXML, noXMLType := multi("file", doc)
	notXML, notXMLType := multi("xml", []byte("%PDF-1.4 not xml"))
	doctype, doctypeType := multi("xml", []byte(`<?xml version="1.0"?><!DOCTYPE ECF [<!ENTITY x SYSTEM "file:///etc/passwd">]><ECF>&x;</ECF>`))
	huge, hugeType := multi("xml", bytes.Repeat([]byte("a"), ecf.MaxECFSize+1))
	ok, okType := multi("xml", doc)
	for _, tt := range []struct {
		name, path, contentType string
		body                    []byte
		status                  int
		code                    sello.ErrorCode
	}{
		{"NotMultipart", recepcion, "application/xml", doc, 415, sello.CodeUnsupportedMediaType},
		{"NoXMLPart", recepcion, noXMLType, noXML, 400, sello.CodeInvalidRequest},
		{"NotXML", recepcion, notXMLType, notXML, 400, sello.CodeInvalidRequest},
		{"Doctype", recepcion, doctypeType, doctype, 400, sello.CodeInvalidRequest},
		{"Oversized", recepcion, hugeType, huge, 413, sello.CodePayloadTooLarge},
		{"BrokenMultipart", recepcion, okType, ok[:len(ok)/2], 400, sello.CodeInvalidRequest},
		// An RNC that is no tenant's requires a token, as a tenant's does.
		{"UnknownRNC", "/TesteCF/receptor/131999999/fe/recepcion/api/ecf", okType, ok, 401, sello.CodeUnauthenticated},
		{"MalformedRNC", "/TesteCF/receptor/13199/fe/recepcion/api/ecf", okType, ok, 404, sello.CodeNotFound},
		{"UnknownEnvironment", "/Prod/receptor/" + testRNC + "/fe/recepcion/api/ecf", okType, ok, 404, sello.CodeNotFound},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := f.raw(tt.path, "", tt.contentType, tt.body)
			if rec.Code != tt.status || !strings.Contains(rec.Body.String(), `"code":"`+string(tt.code)+`"`) {
				t.Fatalf("got %d %s, want %d %s", rec.Code, rec.Body, tt.status, tt.code)
			}
		})
	}
}

func TestReceiverAuth(t *testing.T) {
	base := "/TesteCF/receptor/" + testRNC + "/fe/autenticacion/api/"
	seed := func(t *testing.T, f *receiverFixture, path string) []byte {
		t.Helper()
		rec := httptest.NewRecorder()
		f.handler.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), "<SemillaModel") {
			t.Fatalf("semilla: got %d %s", rec.Code, rec.Body)
		}
		signed, err := f.supplier.Sign(rec.Body.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		return signed
	}
	validate := func(t *testing.T, f *receiverFixture, signed []byte, accept string) *httptest.ResponseRecorder {
		t.Helper()
		body, ct := upload(t, "semilla.xml", signed)
		req := httptest.NewRequest("POST", "/testecf/receptor/"+testRNC+"/fe/autenticacion/api/ValidacionCertificado", bytes.NewReader(body))
		req.Header.Set("Content-Type", ct)
		req.Header.Set("Accept", accept)
		rec := httptest.NewRecorder()
		f.handler.ServeHTTP(rec, req)
		return rec
	}
	t.Run("OK", func(t *testing.T) {
		f := mustReceiverFixture(t, false)
		doc := f.signedECF(t, testRNC, 1)
		if rec := f.post(t, recepcion, "", doc); rec.Code != 401 {
			t.Fatalf("without a token: got %d %s, want 401", rec.Code, rec.Body)
		}
		rec := validate(t, f, seed(t, f, base+"semilla"), "application/json")
		var tok struct{ Token, Expira, Expedido string }
		if err := json.Unmarshal(rec.Body.Bytes(), &tok); rec.Code != 200 || err != nil || tok.Token == "" {
			t.Fatalf("validacioncertificado: got %d %s", rec.Code, rec.Body)
		}
		if exp, err := time.Parse("2006-01-02T15:04:05Z", tok.Expira); err != nil || exp.Sub(f.clock.Now()) < 59*time.Minute {
			t.Errorf("expira %q: want about an hour from now", tok.Expira)
		}
		if rec := f.post(t, recepcion, "wrong", doc); rec.Code != 401 {
			t.Fatalf("with a wrong token: got %d %s, want 401", rec.Code, rec.Body)
		}
		f.wantAcuse(t, f.post(t, strings.Replace(recepcion, "/fe/recepcion/", "/FE/Recepcion/", 1), tok.Token, doc), ecf.ReceiptReceived, 0)
		f.clock.Add(sello.ReceiverTokenTTL)
		if rec := f.post(t, recepcion, tok.Token, f.signedECF(t, testRNC, 2)); rec.Code != 401 {
			t.Fatalf("with an expired token: got %d %s, want 401", rec.Code, rec.Body)
		}
	})
	t.Run("Remembered", func(t *testing.T) {
		// A token found once is not looked up again (its row never
		// changes; the prune deletes only expired ones): with its row
		// gone, it still opens the tenant's receiver in its environment,
		// and still nowhere else, and not past its expiry.
		f := mustReceiverFixture(t, false)
		other := &sello.Tenant{RNC: "130000013", Name: "Otra SRL", Plan: sello.DefaultRatePlan}
		if err := f.store.CreateTenant(t.Context(), other); err != nil {
			t.Fatal(err)
		}
		rec := validate(t, f, seed(t, f, base+"semilla"), "application/json")
		var tok struct{ Token string }
		if err := json.Unmarshal(rec.Body.Bytes(), &tok); rec.Code != 200 || err != nil || tok.Token == "" {
			t.Fatalf("validacioncertificado: got %d %s", rec.Code, rec.Body)
		}
		f.wantAcuse(t, f.post(t, recepcion, tok.Token, f.signedECF(t, testRNC, 1)), ecf.ReceiptReceived, 0)
		if _, err := f.store.(*sqlite.DB).SQL().Exec("DELETE FROM receiver_tokens"); err != nil {
			t.Fatal(err)
		}
		f.wantAcuse(t, f.post(t, recepcion, tok.Token, f.signedECF(t, testRNC, 2)), ecf.ReceiptReceived, 0)
		for _, path := range []string{receptor(sello.EnvCert, "recepcion"), receptorAt(sello.EnvTest, other.RNC, "recepcion")} {
			if rec := f.post(t, path, tok.Token, f.signedECF(t, testRNC, 3)); rec.Code != 401 {
				t.Errorf("%s: got %d %s, want 401", path, rec.Code, rec.Body)
			}
		}
		f.clock.Add(sello.ReceiverTokenTTL)
		if rec := f.post(t, recepcion, tok.Token, f.signedECF(t, testRNC, 4)); rec.Code != 401 {
			t.Fatalf("with an expired token: got %d %s, want 401", rec.Code, rec.Body)
		}
	})
	t.Run("XML", func(t *testing.T) {
		f := mustReceiverFixture(t, false)
		rec := validate(t, f, seed(t, f, base+"Semilla"), "application/xml")
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), "<RespuestaAutenticacion><token>") {
			t.Fatalf("got %d %s, want <RespuestaAutenticacion>", rec.Code, rec.Body)
		}
	})
	t.Run("ErrSeedUsed", func(t *testing.T) {
		f := mustReceiverFixture(t, false)
		signed := seed(t, f, base+"semilla")
		if rec := validate(t, f, signed, ""); rec.Code != 200 {
			t.Fatalf("first: got %d %s", rec.Code, rec.Body)
		}
		if rec := validate(t, f, signed, ""); rec.Code != 401 || !strings.Contains(rec.Body.String(), "used or expired") {
			t.Fatalf("second: got %d %s, want 401", rec.Code, rec.Body)
		}
	})
	t.Run("ErrSeedExpired", func(t *testing.T) {
		f := mustReceiverFixture(t, false)
		signed := seed(t, f, base+"semilla")
		f.clock.Add(sello.ReceiverSeedTTL)
		if rec := validate(t, f, signed, ""); rec.Code != 401 {
			t.Fatalf("got %d %s, want 401", rec.Code, rec.Body)
		}
	})
	t.Run("ErrSeedNotIssued", func(t *testing.T) {
		f := mustReceiverFixture(t, false)
		// A seed as another server (another key) issues them.
		other := sello.IssueReceiverSeed([]byte("another server's key"), sello.EnvTest, testRNC, f.clock.Now())
		signed, err := f.supplier.Sign(ecf.SemillaXML(other.Value, other.IssuedAt))
		if err != nil {
			t.Fatal(err)
		}
		if rec := validate(t, f, signed, ""); rec.Code != 401 {
			t.Fatalf("got %d %s, want 401", rec.Code, rec.Body)
		}
	})
	t.Run("ErrSignature", func(t *testing.T) {
		f := mustReceiverFixture(t, false)
		signed := seed(t, f, base+"semilla")
		// The seed is checked first (a changed valor is a seed this
		// receiver did not issue): tamper with the signature itself.
		tampered := bytes.Replace(signed, []byte("<SignatureValue>"), []byte("<SignatureValue>AAAA"), 1)
		if rec := validate(t, f, tampered, ""); rec.Code != 401 || !strings.Contains(rec.Body.String(), "signature") {
			t.Fatalf("got %d %s, want 401", rec.Code, rec.Body)
		}
	})
}

// TestReadChunked: an upload's part is read whole, byte for byte, at every
// size around the pooled buffers' and however the reader hands it over,
// and a read that fails is that failure.
func TestReadChunked(t *testing.T) {
	const chunk = 32 << 10
	for _, n := range []int{0, 1, chunk - 1, chunk, chunk + 1, 3*chunk + 5, 287 << 10} {
		data := make([]byte, n)
		rand.Read(data)
		for name, r := range map[string]io.Reader{
			"Whole":   bytes.NewReader(data),
			"OneByte": iotest.OneByteReader(bytes.NewReader(data)),
			"Half":    iotest.HalfReader(bytes.NewReader(data)),
			"DataErr": iotest.DataErrReader(bytes.NewReader(data)),
		} {
			got, err := api.ReadChunked(r)
			if err != nil || !bytes.Equal(got, data) || len(got) != cap(got) {
				t.Errorf("%d bytes, %s: got %d bytes (cap %d), %v", n, name, len(got), cap(got), err)
			}
		}
	}
	cut := errors.New("connection reset")
	if got, err := api.ReadChunked(io.MultiReader(bytes.NewReader(make([]byte, chunk+10)), iotest.ErrReader(cut))); !errors.Is(err, cut) || got != nil {
		t.Errorf("a failed read: got %d bytes, %v; want nil, %v", len(got), err, cut)
	}
}

// BenchmarkReadChunked reads a 287 KB part (a 1,000-item e-CF) as the
// receivers do, and with io.ReadAll as they did.
func BenchmarkReadChunked(b *testing.B) {
	data := bytes.Repeat([]byte("<Item>x</Item>"), 287<<10/14)
	for name, read := range map[string]func(io.Reader) ([]byte, error){"ReadChunked": api.ReadChunked, "ReadAll": io.ReadAll} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := read(bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
