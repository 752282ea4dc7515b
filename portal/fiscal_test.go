package portal_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/x509/pkix"
	"encoding/json"
	"html"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/postgres"
	"github.com/sello-do/sello/postgres/pgtest"
	"github.com/sello-do/sello/sqlite"
	"github.com/sello-do/sello/xmldsig"
	"software.sslmate.com/src/go-pkcs12"
)

// The fiscal administration pages' tests: Secuencias, Anulaciones,
// Certificados and Certificación, on both engines, each as the roles
// allow, another company's ids refused, every change audited. The
// certification run's whole way to DGII (the simulator) is driven in the
// browser test (browsertest/fiscal_test.go); here a run is started and
// read, and its rows moved on through the store as the worker records
// them.

// TestFiscal runs the fiscal pages' tests on SQLite.
func TestFiscal(t *testing.T) {
	for _, tt := range fiscalTests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "sello.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			tt.test(t, MustSiteOn(t, db))
		})
	}
}

// TestFiscalPostgres runs them on PostgreSQL (SELLO_TEST_DATABASE_URL),
// each on a fresh schema.
func TestFiscalPostgres(t *testing.T) {
	pgtest.DatabaseURL(t)
	for _, tt := range fiscalTests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := postgres.Open(t.Context(), pgtest.MustSchema(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			tt.test(t, MustSiteOn(t, db))
		})
	}
}

var fiscalTests = []struct {
	name string
	test func(*testing.T, *Site)
}{
	{"Sequences", testSequences},
	{"Voids", testVoids},
	{"VoidsRolesAndTenants", testVoidsRolesAndTenants},
	{"Certificates", testCertificates},
	{"CertificatesRoles", testCertificatesRoles},
	{"Certification", testCertification},
	{"CertificationRolesAndTenants", testCertificationRolesAndTenants},
}

// The pages' paths in TesteCF (and CerteCF for the certification).
const (
	seqPath   = "/portal/TesteCF/secuencias"
	voidsPath = "/portal/TesteCF/anulaciones"
	certsPath = "/portal/TesteCF/certificados"
	runsPath  = "/portal/CerteCF/certificacion"
)

// nextYear is a sequence expiry a year from now, yyyy-MM-dd.
func nextYear() string { return time.Now().AddDate(1, 0, 0).Format(time.DateOnly) }

// mustSequence registers a range of type t in env for tenant, as the API
// does.
func (s *Site) mustSequence(tb testing.TB, tenant *sello.Tenant, env sello.Environment, t string, from, to int64) *sello.Sequence {
	tb.Helper()
	exp := nextYear()
	seq, err := sello.RegisterSequence(context.Background(), s.Store, tenant.ID, env, sello.SequenceRequest{Type: t, From: from, To: to, ExpiresOn: &exp}, time.Now())
	if err != nil {
		tb.Fatal(err)
	}
	return seq
}

// testSequences: an accountant registers a range on the page; the list
// shows its numbers used and left, the next e-NCF, expiry and state; a
// range refused (overlapping, an expiry on type 32) shows the domain's
// message with the form as typed; the range is audited. A developer reads
// the list but has no form and is refused the post. Another company's
// ranges are not listed.
func testSequences(t *testing.T, site *Site) {
	site.MustUser(t, "owner@caribe.do", sello.RoleOwner)
	site.MustUser(t, "conta@caribe.do", sello.RoleAccountant)
	site.MustUser(t, "dev@caribe.do", sello.RoleDeveloper)
	other := &sello.Tenant{RNC: "130000002", Name: "Otra SRL", Plan: sello.DefaultRatePlan}
	if err := site.Store.CreateTenant(t.Context(), other); err != nil {
		t.Fatal(err)
	}
	site.mustSequence(t, other, sello.EnvTest, "31", 777, 888)

	b := site.NewBrowser(t)
	b.MustLogin("conta@caribe.do")
	p := b.Get(seqPath)
	wantStatus(t, p, http.StatusOK)
	wantText(t, p, "Secuencias en TesteCF", `id="sequences-none"`, `id="sequence-form"`)
	if strings.Contains(p.Body, "000000777") {
		t.Fatal("the list shows another company's range")
	}
	exp := nextYear()
	p = b.Form(seqPath, seqPath, formOf("type", "31", "from", "1", "to", "1,000", "expiresOn", exp))
	wantRedirect(t, p, seqPath+"?done=sequence")
	p = b.Get(p.Location())
	wantText(t, p, "El rango quedó registrado", "E31 · Factura de Crédito Fiscal Electrónica", "1–1,000", "E310000000001", "en uso")
	seqs, err := site.Store.FindSequences(t.Context(), site.Tenant.ID, sello.EnvTest)
	if err != nil || len(seqs) != 1 || seqs[0].From != 1 || seqs[0].To != 1000 || seqs[0].ExpiresOn == nil || seqs[0].ExpiresOn.String() != exp {
		t.Fatalf("stored ranges: %+v, %v", seqs, err)
	}
	entries := site.wantAudit(t, site.Tenant.ID, "sequence.", "conta@caribe.do", "sequence.created")
	var after map[string]any
	json.Unmarshal(entries[0].After, &after)
	if entries[0].Target != seqs[0].ID || after["type"] != "E31" || after["from"] != float64(1) || after["to"] != float64(1000) || after["environment"] != "TesteCF" {
		t.Errorf("the audit entry: %s %s", entries[0].Target, entries[0].After)
	}

	// Refusals: the domain's messages, the form as typed, nothing stored.
	for _, tc := range []struct {
		form url.Values
		want string
	}{
		{formOf("type", "31", "from", "500", "to", "2000", "expiresOn", exp), "se solapa con el rango registrado"},
		{formOf("type", "32", "from", "1", "to", "10", "expiresOn", exp), "El tipo 32 no tiene vencimiento de secuencia"},
		{formOf("type", "33", "from", "1", "to", "10"), "necesita el vencimiento"},
		{formOf("type", "31", "from", "diez", "to", "10", "expiresOn", exp), "Desde: un número entero"},
	} {
		p := b.Form(seqPath, seqPath, tc.form)
		wantStatus(t, p, http.StatusBadRequest)
		wantText(t, p, `id="sequence-error"`, tc.want, `value="`+tc.form.Get("to")+`"`)
	}
	if seqs, _ := site.Store.FindSequences(t.Context(), site.Tenant.ID, sello.EnvTest); len(seqs) != 1 {
		t.Fatalf("%d ranges after the refusals", len(seqs))
	}

	// A developer reads, without the form, and is refused the post.
	dev := site.NewBrowser(t)
	dev.MustLogin("dev@caribe.do")
	p = dev.Get(seqPath)
	wantStatus(t, p, http.StatusOK)
	wantText(t, p, "E310000000001")
	if strings.Contains(p.Body, `id="sequence-form"`) {
		t.Error("a developer sees the form that registers a range")
	}
	p = dev.Form(seqPath, seqPath, formOf("type", "31", "from", "5000", "to", "6000", "expiresOn", exp))
	wantStatus(t, p, http.StatusForbidden)
	if seqs, _ := site.Store.FindSequences(t.Context(), site.Tenant.ID, sello.EnvTest); len(seqs) != 1 {
		t.Fatalf("%d ranges after the developer's post", len(seqs))
	}
	site.wantAudit(t, site.Tenant.ID, "sequence.", "conta@caribe.do", "sequence.created")
}

// voidKey is the confirmation page's idempotency key.
var voidKey = regexp.MustCompile(`name="key" value="([^"]+)"`)

// testVoids: an accountant voids a range of unused numbers: the form, the
// confirmation with the count, then the void pending, audited once even
// when the confirmation is sent twice; the next number assigned moves
// past the voided ones. A range with numbers outside the registered ones
// is refused with the domain's message. DGII's answer and the signed
// ANECF appear on the void's page once recorded, and the XML downloads.
func testVoids(t *testing.T, site *Site) {
	site.MustUser(t, "owner@caribe.do", sello.RoleOwner)
	site.MustUser(t, "conta@caribe.do", sello.RoleAccountant)
	site.mustSequence(t, site.Tenant, sello.EnvTest, "31", 1, 100)
	b := site.NewBrowser(t)
	b.MustLogin("conta@caribe.do")

	p := b.Get(voidsPath)
	wantStatus(t, p, http.StatusOK)
	wantText(t, p, "Anulaciones en TesteCF", `id="voids-none"`, `id="void-new"`)
	p = b.Get(voidsPath + "/nueva")
	wantStatus(t, p, http.StatusOK)

	// Outside the registered ranges: refused, the form as typed.
	p = b.Form(voidsPath+"/nueva", voidsPath, url.Values{"type": {"31", "31"}, "from": {"95", ""}, "to": {"120", ""}, "step": {"void"}, "key": {"k1"}})
	wantStatus(t, p, http.StatusBadRequest)
	wantText(t, p, `id="void-error"`, "E310000000101–E310000000120", `value="120"`)

	// The review: 20 numbers in two ranges, to confirm.
	p = b.Form(voidsPath+"/nueva", voidsPath, url.Values{"type": {"31", "31", "31"}, "from": {"30", "", "1"}, "to": {"39", "", "10"}})
	wantStatus(t, p, http.StatusOK)
	wantText(t, p, "Confirmar la anulación", "estos 20 números", "E310000000001–E310000000010", "E310000000030–E310000000039")
	m := voidKey.FindStringSubmatch(p.Body)
	if m == nil {
		t.Fatalf("the confirmation has no key: %s", p.Body)
	}
	confirm := url.Values{"csrf": {p.CSRF(t)}, "step": {"void"}, "key": {m[1]},
		"type": {"31", "31"}, "from": {"1", "30"}, "to": {"10", "39"}}
	p = b.Post(voidsPath, confirm)
	wantRedirect(t, p, voidsPath+"/")
	voidPage := p.Location()
	again := b.Post(voidsPath, confirm) // sent twice: the same void
	if again.Location() != voidPage {
		t.Fatalf("the confirmation sent again went to %q, not %q", again.Location(), voidPage)
	}
	voids, _, err := site.Store.ListVoids(t.Context(), site.Tenant.ID, sello.EnvTest, sello.VoidFilter{})
	if err != nil || len(voids) != 1 || voids[0].Count() != 20 || voids[0].State != sello.VoidPending {
		t.Fatalf("voids: %+v, %v", voids, err)
	}
	void := voids[0]
	entries := site.wantAudit(t, site.Tenant.ID, "void.", "conta@caribe.do", "void.created")
	if entries[0].Target != void.ID || !strings.Contains(string(entries[0].After), `"count":20`) {
		t.Errorf("the audit entry: %s %s", entries[0].Target, entries[0].After)
	}
	p = b.Get(voidPage)
	wantStatus(t, p, http.StatusOK)
	wantText(t, p, "Anulación de 20 números", "esperando a la DGII", "Todavía no hay respuesta de la DGII.", `hx-get="`+voidPage+`/estado"`, `id="void-refresh"`)
	if strings.Contains(p.Body, `id="void-xml"`) {
		t.Error("the page offers an ANECF before it is signed")
	}
	wantStatus(t, b.Get(voidPage+"/xml"), http.StatusNotFound)
	p = b.Get(voidsPath)
	wantText(t, p, `id="void-`+void.ID+`"`, "E310000000001–E310000000010", "esperando a la DGII")

	// Numbering skips the voided numbers: the next is 11, on the
	// Secuencias page too.
	seqs, _ := site.Store.FindSequences(t.Context(), site.Tenant.ID, sello.EnvTest)
	if seqs[0].Next != 11 {
		t.Fatalf("next number %d, want 11", seqs[0].Next)
	}
	wantText(t, b.Get(seqPath), "E310000000011")

	// DGII's answer, as the worker records it.
	codigo := 1
	anecf := []byte(`<?xml version="1.0" encoding="utf-8"?><ANECF><Encabezado/></ANECF>`)
	if _, err := site.Store.RecordVoidOutcome(t.Context(), site.Tenant.ID, sello.EnvTest, void.ID, sello.VoidOutcome{
		ANECF: anecf, State: sello.VoidAccepted,
		DGII: &sello.DGIIResult{Codigo: &codigo, Estado: "Aceptado", Mensajes: []sello.DGIIMessage{{Valor: "Anulación aceptada"}}},
	}); err != nil {
		t.Fatal(err)
	}
	p = b.Get(voidPage + "/estado")
	wantStatus(t, p, http.StatusOK)
	wantText(t, p, "aceptada", "Aceptado (1)", "Anulación aceptada", `id="void-xml"`)
	if strings.Contains(p.Body, "hx-get") || strings.Contains(p.Body, "<html") {
		t.Errorf("the answered void's fragment still refreshes, or is a whole page: %s", p.Body)
	}
	x := b.Get(voidPage + "/xml")
	wantStatus(t, x, http.StatusOK)
	if x.Body != string(anecf) || x.Header.Get("Content-Type") != "application/xml" || !strings.Contains(x.Header.Get("Content-Disposition"), "130000001ANECF") {
		t.Fatalf("the ANECF download: %q %v", x.Body, x.Header)
	}
}

// testVoidsRolesAndTenants: a developer reads the voids but is refused the
// form and the void; another company's void is 404 on every page, as is
// one of ours under another environment's path.
func testVoidsRolesAndTenants(t *testing.T, site *Site) {
	site.MustUser(t, "owner@caribe.do", sello.RoleOwner)
	site.MustUser(t, "dev@caribe.do", sello.RoleDeveloper)
	site.mustSequence(t, site.Tenant, sello.EnvTest, "31", 1, 100)
	ours, _, err := sello.CreateVoid(t.Context(), site.Store, sello.VoidDraft{TenantID: site.Tenant.ID, Environment: sello.EnvTest,
		Request: sello.VoidRequest{Ranges: []sello.VoidRangeRequest{{Type: "31", From: 90, To: 100}}}})
	if err != nil {
		t.Fatal(err)
	}
	other := &sello.Tenant{RNC: "130000002", Name: "Otra SRL", Plan: sello.DefaultRatePlan}
	if err := site.Store.CreateTenant(t.Context(), other); err != nil {
		t.Fatal(err)
	}
	site.mustSequence(t, other, sello.EnvTest, "31", 1, 100)
	theirs, _, err := sello.CreateVoid(t.Context(), site.Store, sello.VoidDraft{TenantID: other.ID, Environment: sello.EnvTest,
		Request: sello.VoidRequest{Ranges: []sello.VoidRangeRequest{{Type: "31", From: 1, To: 5}}}})
	if err != nil {
		t.Fatal(err)
	}

	dev := site.NewBrowser(t)
	dev.MustLogin("dev@caribe.do")
	p := dev.Get(voidsPath)
	wantStatus(t, p, http.StatusOK)
	wantText(t, p, `id="void-`+ours.ID+`"`)
	if strings.Contains(p.Body, `id="void-new"`) || strings.Contains(p.Body, theirs.ID) {
		t.Errorf("a developer's list offers a void, or shows another company's")
	}
	wantStatus(t, dev.Get(voidsPath+"/"+ours.ID), http.StatusOK)
	wantStatus(t, dev.Get(voidsPath+"/nueva"), http.StatusForbidden)
	for _, form := range []url.Values{
		{"type": {"31"}, "from": {"1"}, "to": {"5"}},
		{"type": {"31"}, "from": {"1"}, "to": {"5"}, "step": {"void"}, "key": {"dev"}},
	} {
		p := dev.Form(voidsPath, voidsPath, form)
		wantStatus(t, p, http.StatusForbidden)
		wantText(t, p, "Su rol en esta empresa no le permite hacer esto.")
	}
	if vs, _, _ := site.Store.ListVoids(t.Context(), site.Tenant.ID, sello.EnvTest, sello.VoidFilter{}); len(vs) != 1 {
		t.Fatalf("%d voids after the developer's posts", len(vs))
	}
	if got := site.audit(t, "void."); len(got) != 0 {
		t.Fatalf("refusals audited: %d entries", len(got))
	}

	owner := site.NewBrowser(t)
	owner.MustLogin("owner@caribe.do")
	for _, path := range []string{
		voidsPath + "/" + theirs.ID, voidsPath + "/" + theirs.ID + "/estado", voidsPath + "/" + theirs.ID + "/xml",
		"/portal/CerteCF/anulaciones/" + ours.ID, "/portal/eCF/anulaciones/" + ours.ID + "/estado",
	} {
		wantStatus(t, owner.Get(path), http.StatusNotFound)
	}
}

// p12Of is a .p12 of a certificate for subject (self-signed, a year),
// protected by password with enc.
func p12Of(tb testing.TB, enc *pkcs12.Encoder, subject pkix.Name, password string) []byte {
	tb.Helper()
	key, cert, err := xmldsig.GenerateSelfSigned(subject, time.Now().Add(365*24*time.Hour))
	if err != nil {
		tb.Fatal(err)
	}
	b, err := enc.Encode(key, cert, nil, password)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// Upload posts a multipart form to path with the CSRF token of the page
// at from: fields, and file as the part field (named name).
func (b *Browser) Upload(from, path string, fields url.Values, field, name string, file []byte) *Page {
	b.tb.Helper()
	page := b.Get(from)
	if page.StatusCode != http.StatusOK {
		b.tb.Fatalf("GET %s: %d %s", from, page.StatusCode, page.Body)
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("csrf", page.CSRF(b.tb))
	for k, vs := range fields {
		for _, v := range vs {
			mw.WriteField(k, v)
		}
	}
	if field != "" {
		fw, _ := mw.CreateFormFile(field, name)
		fw.Write(file)
	}
	mw.Close()
	req, err := http.NewRequest("POST", b.site.HTTP.URL+path, &buf)
	if err != nil {
		b.tb.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Origin", b.site.HTTP.URL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := b.Client.Do(req)
	if err != nil {
		b.tb.Fatal(err)
	}
	defer resp.Body.Close()
	var out bytes.Buffer
	out.ReadFrom(resp.Body)
	return &Page{Response: resp, Body: out.String()}
}

// testCertificates: an administrator uploads a .p12 with its password
// (modern; a legacy RC2/3DES one too), and the page lists each
// certificate under its environment with its subject, validity and the
// one that signs; a wrong password, a file that is no .p12 and one too
// large are refused with the domain's message; a certificate naming
// another RNC is refused, then added when the person says it is the right
// one; a self-signed one is made for CerteCF. Each addition is audited
// without the password, which appears in no page, log or audit entry.
func testCertificates(t *testing.T, site *Site) {
	site.MustUser(t, "owner@caribe.do", sello.RoleOwner)
	site.MustUser(t, "admin@caribe.do", sello.RoleAdmin)
	b := site.NewBrowser(t)
	b.MustLogin("admin@caribe.do")
	const password = "clave del p12 ñ"
	cedula := pkix.Name{CommonName: "Juan Pérez", SerialNumber: "IDCDO-00100000001"}

	p := b.Get(certsPath)
	wantStatus(t, p, http.StatusOK)
	wantText(t, p, "Certificados de firma", `id="certificates-TesteCF-none"`, `id="certificate-form"`, `id="certificate-generate"`)

	p = b.Upload(certsPath, certsPath, formOf("environment", "TesteCF", "password", password), "p12", "firma.p12", p12Of(t, pkcs12.Modern, cedula, password))
	wantRedirect(t, p, certsPath+"?done=certificate")
	p = b.Get(p.Location())
	wantText(t, p, "El certificado quedó agregado.", "Juan Pérez", "vigente", "firma en TesteCF", `id="certificates-CerteCF-none"`)
	legacy := pkix.Name{CommonName: "María Gómez", SerialNumber: "IDCDO-00200000002"}
	p = b.Upload(certsPath, certsPath, formOf("environment", "CerteCF", "password", password), "p12", "vieja.pfx", p12Of(t, pkcs12.LegacyRC2, legacy, password))
	wantRedirect(t, p, "/portal/CerteCF/certificados?done=certificate")
	p = b.Get(certsPath)
	wantText(t, p, "María Gómez", "firma en CerteCF")
	if strings.Contains(p.Body, `id="certificates-CerteCF-none"`) {
		t.Error("CerteCF still has no certificate")
	}

	for _, tc := range []struct {
		name     string
		file     []byte
		password string
		status   int
		want     string
	}{
		{"WrongPassword", p12Of(t, pkcs12.LegacyDES, cedula, password), "otra", http.StatusBadRequest, "La contraseña no abre el archivo .p12."},
		{"NotP12", []byte("PK\x03\x04 no soy un certificado"), password, http.StatusBadRequest, "El archivo no se abre como un certificado de firma .p12"},
		{"TooLarge", make([]byte, sello.MaxPKCS12Size+1), password, http.StatusBadRequest, "aquí se aceptan como máximo 65,536"},
		{"NoFile", nil, password, http.StatusBadRequest, "Elija el archivo que desea subir."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			field := "p12"
			if tc.file == nil {
				field = ""
			}
			p := b.Upload(certsPath, certsPath, formOf("environment", "TesteCF", "password", tc.password), field, "x.p12", tc.file)
			wantStatus(t, p, tc.status)
			wantText(t, p, `id="certificate-error"`, tc.want)
		})
	}

	// Another RNC: refused, then added when forced.
	otherRNC := p12Of(t, pkcs12.Modern, pkix.Name{CommonName: "Otra SRL", SerialNumber: "RNC-130000002"}, password)
	p = b.Upload(certsPath, certsPath, formOf("environment", "TesteCF", "password", password), "p12", "otra.p12", otherRNC)
	wantStatus(t, p, http.StatusBadRequest)
	wantText(t, p, "130000002", `id="certificate-force"`, "Es el certificado correcto para el RNC 130000001")
	p = b.Upload(certsPath, certsPath, formOf("environment", "TesteCF", "password", password, "force", "1"), "p12", "otra.p12", otherRNC)
	wantRedirect(t, p, certsPath+"?done=certificate")

	// A self-signed one for CerteCF; none for eCF.
	p = b.Form("/portal/CerteCF/certificados", "/portal/CerteCF/certificados/generar", nil)
	wantRedirect(t, p, "/portal/CerteCF/certificados?done=generated")
	p = b.Form("/portal/eCF/certificados", "/portal/eCF/certificados/generar", nil)
	wantStatus(t, p, http.StatusBadRequest)
	wantText(t, p, "Un certificado autofirmado no puede firmar en eCF")
	if strings.Contains(b.Get("/portal/eCF/certificados").Body, `id="certificate-generate"`) {
		t.Error("eCF's page offers a self-signed certificate")
	}

	for env, n := range map[sello.Environment]int{sello.EnvTest: 2, sello.EnvCert: 2, sello.EnvProd: 0} {
		if cs, _ := site.Store.FindCertificates(t.Context(), site.Tenant.ID, env); len(cs) != n {
			t.Errorf("%s has %d certificates, want %d", env, len(cs), n)
		}
	}
	entries := site.wantAudit(t, site.Tenant.ID, "certificate.", "admin@caribe.do", "certificate.added", "certificate.added", "certificate.added", "certificate.added")
	if !strings.Contains(string(entries[0].After), `"generated":true`) || !strings.Contains(string(entries[1].After), `"forced":"The certificate names RNC 130000002`) ||
		!strings.Contains(string(entries[3].After), "Juan Pérez") {
		t.Errorf("the audit entries: %s / %s / %s", entries[0].After, entries[1].After, entries[3].After)
	}
	for _, e := range entries {
		if strings.Contains(string(e.After), password) || strings.Contains(string(e.Before), password) {
			t.Fatalf("the password is in the audit log: %s", e.After)
		}
	}
	if strings.Contains(site.Logs.String(), password) || strings.Contains(html.UnescapeString(b.Get(certsPath).Body), password) {
		t.Fatal("the password is in the log or on the page")
	}
}

// testCertificatesRoles: an accountant (and a developer) reads the
// certificates but has no form and is refused the upload and the
// self-signed one.
func testCertificatesRoles(t *testing.T, site *Site) {
	site.MustUser(t, "owner@caribe.do", sello.RoleOwner)
	for _, role := range []sello.Role{sello.RoleAccountant, sello.RoleDeveloper} {
		email := string(role) + "@caribe.do"
		site.MustUser(t, email, role)
		b := site.NewBrowser(t)
		b.MustLogin(email)
		p := b.Get(certsPath)
		wantStatus(t, p, http.StatusOK)
		wantText(t, p, "Certificados de firma")
		for _, form := range []string{`id="certificate-form"`, `id="certificate-generate"`} {
			if strings.Contains(p.Body, form) {
				t.Errorf("the %s's page shows %s", role, form)
			}
		}
		p = b.Upload(certsPath, certsPath, formOf("environment", "TesteCF", "password", "x"), "p12", "firma.p12",
			p12Of(t, pkcs12.Modern, pkix.Name{CommonName: "Juan", SerialNumber: "IDCDO-00100000001"}, "x"))
		wantStatus(t, p, http.StatusForbidden)
		wantStatus(t, b.Form(certsPath, certsPath+"/generar", nil), http.StatusForbidden)
	}
	for _, env := range sello.Environments {
		if cs, _ := site.Store.FindCertificates(t.Context(), site.Tenant.ID, env); len(cs) != 0 {
			t.Fatalf("%s has %d certificates after the refusals", env, len(cs))
		}
	}
	if got := site.audit(t, "certificate."); len(got) != 0 {
		t.Fatalf("refusals audited: %d", len(got))
	}
}

// sampleWorkbook is the DGII simulator's sample test set.
func sampleWorkbook(tb testing.TB) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("..", "dgiisim", "testdata", "set-de-pruebas.xlsx"))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// runKey is the start form's idempotency key.
var runKey = regexp.MustCompile(`name="key" value="([^"]+)"`)

// testCertification: an owner starts a run with DGII's workbook: its page
// lists the 40 rows pending and refreshes while it runs; the same form
// sent twice starts one run; a file that is no workbook is refused. The
// rows move on as the worker records them: the page and its fragment
// show DGII's answers, and the ZIP of printed representations (409 while
// nothing is signed) has a PDF per signed e-CF. Other environments' pages
// send to CerteCF's.
func testCertification(t *testing.T, site *Site) {
	site.MustUser(t, "owner@caribe.do", sello.RoleOwner)
	b := site.NewBrowser(t)
	b.MustLogin("owner@caribe.do")
	wantRedirect(t, b.Get("/portal/TesteCF/certificacion"), runsPath)
	p := b.Get(runsPath)
	wantStatus(t, p, http.StatusOK)
	wantText(t, p, "Certificación en CerteCF", `id="certification-none"`, `id="certification-form"`, `id="certification-no-certificate"`)

	p = b.Upload(runsPath, runsPath, nil, "file", "no.xlsx", []byte("no soy un libro"))
	wantStatus(t, p, http.StatusBadRequest)
	wantText(t, p, `id="certification-error"`)

	page := b.Get(runsPath)
	key := runKey.FindStringSubmatch(page.Body)[1]
	p = b.Upload(runsPath, runsPath, formOf("key", key), "file", "set-de-pruebas.xlsx", sampleWorkbook(t))
	wantRedirect(t, p, runsPath+"/")
	runPage := p.Location()
	again := b.Upload(runsPath, runsPath, formOf("key", key), "file", "set-de-pruebas.xlsx", sampleWorkbook(t))
	if again.Location() != runPage {
		t.Fatalf("the form sent again went to %q, not %q", again.Location(), runPage)
	}
	runs, err := site.Store.FindCertificationRuns(t.Context(), site.Tenant.ID, sello.EnvCert)
	if err != nil || len(runs) != 1 || len(runs[0].Rows) != 40 || runs[0].State != sello.CertificationRunning {
		t.Fatalf("runs: %d, %v", len(runs), err)
	}
	run := runs[0]
	entries := site.wantAudit(t, site.Tenant.ID, "certification_run.", "owner@caribe.do", "certification_run.created")
	if entries[0].Target != run.ID || !strings.Contains(string(entries[0].After), `"rows":40`) || !strings.Contains(string(entries[0].After), `"file":"set-de-pruebas.xlsx"`) {
		t.Errorf("the audit entry: %s %s", entries[0].Target, entries[0].After)
	}
	p = b.Get(runPage)
	wantStatus(t, p, http.StatusOK)
	wantText(t, p, "en curso", "0 de 40 filas", `hx-get="`+runPage+`/filas"`, `id="certification-refresh"`, `id="row-40"`, run.Rows[0].ENCF)
	if strings.Contains(p.Body, `id="certification-zip"`) {
		t.Error("the page offers the ZIP before any e-CF is signed")
	}
	wantStatus(t, b.Get(runPage+"/representaciones-impresas"), http.StatusConflict)

	// Row 1 signed and accepted, row 2 rejected, as the worker records
	// them: the run stops at row 2.
	now := time.Now()
	codigo, rechazado := 1, 2
	ctx := t.Context()
	for _, u := range []sello.CertificationRowUpdate{
		{State: sello.RowSigned, SecurityCode: "Ab3+9z", SignedAt: &now, XML: []byte("<ECF/>")},
		{State: sello.RowSent, TrackID: "track-1", Attempted: true},
		{State: sello.RowAccepted, DGII: &sello.DGIIResult{Codigo: &codigo, Estado: "Aceptado"}},
	} {
		if _, err := site.Store.RecordCertificationRow(ctx, site.Tenant.ID, sello.EnvCert, run.ID, 1, u, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := site.Store.RecordCertificationRow(ctx, site.Tenant.ID, sello.EnvCert, run.ID, 2, sello.CertificationRowUpdate{
		State: sello.RowRejected, DGII: &sello.DGIIResult{Codigo: &rechazado, Estado: "Rechazado", Mensajes: []sello.DGIIMessage{{Valor: "El RNC del comprador no es válido"}}},
	}, time.Now()); err != nil {
		t.Fatal(err)
	}
	p = b.Get(runPage + "/filas")
	wantStatus(t, p, http.StatusOK)
	wantText(t, p, "detenida por un rechazo", "1 de 40 filas", "Aceptado (1)", "Rechazado (2) · El RNC del comprador no es válido", `id="certification-failure"`, `id="certification-zip"`)
	if strings.Contains(p.Body, "hx-get") || strings.Contains(p.Body, "<html") {
		t.Errorf("the stopped run's fragment still refreshes, or is a whole page")
	}
	z := b.Get(runPage + "/representaciones-impresas")
	wantStatus(t, z, http.StatusOK)
	zr, err := zip.NewReader(strings.NewReader(z.Body), int64(len(z.Body)))
	if err != nil || len(zr.File) != 1 || zr.File[0].Name != run.Rows[0].ENCF+".pdf" || z.Header.Get("Content-Type") != "application/zip" {
		t.Fatalf("the ZIP: %v, %d files", err, len(zr.File))
	}
	p = b.Get(runsPath)
	wantText(t, p, `id="run-`+run.ID+`"`, "detenida por un rechazo", "fila 2 ("+run.Rows[1].ENCF+")")
}

// testCertificationRolesAndTenants: an accountant reads the runs but is
// refused the start; another company's run is 404 on its page, rows and
// ZIP, as is ours under another environment's path.
func testCertificationRolesAndTenants(t *testing.T, site *Site) {
	site.MustUser(t, "owner@caribe.do", sello.RoleOwner)
	site.MustUser(t, "conta@caribe.do", sello.RoleAccountant)
	rows := func() []*sello.CertificationRow {
		return []*sello.CertificationRow{{Sheet: "ECF", SheetRow: 2, Kind: sello.CertificationECF, ENCF: "E310000000001", Fields: map[string]string{"ENCF": "E310000000001"}}}
	}
	ours, _, err := sello.StartCertification(t.Context(), site.Store, site.Tenant.ID, sello.EnvCert, rows(), "", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	other := &sello.Tenant{RNC: "130000002", Name: "Otra SRL", Plan: sello.DefaultRatePlan}
	if err := site.Store.CreateTenant(t.Context(), other); err != nil {
		t.Fatal(err)
	}
	theirs, _, err := sello.StartCertification(t.Context(), site.Store, other.ID, sello.EnvCert, rows(), "", time.Now())
	if err != nil {
		t.Fatal(err)
	}

	b := site.NewBrowser(t)
	b.MustLogin("conta@caribe.do")
	p := b.Get(runsPath)
	wantStatus(t, p, http.StatusOK)
	wantText(t, p, `id="run-`+ours.ID+`"`)
	if strings.Contains(p.Body, `id="certification-form"`) || strings.Contains(p.Body, theirs.ID) {
		t.Error("an accountant's list offers a run, or shows another company's")
	}
	wantStatus(t, b.Get(runsPath+"/"+ours.ID), http.StatusOK)
	p = b.Upload(runsPath, runsPath, nil, "file", "set.xlsx", sampleWorkbook(t))
	wantStatus(t, p, http.StatusForbidden)
	if runs, _ := site.Store.FindCertificationRuns(t.Context(), site.Tenant.ID, sello.EnvCert); len(runs) != 1 {
		t.Fatalf("%d runs after the accountant's post", len(runs))
	}
	for _, path := range []string{
		runsPath + "/" + theirs.ID, runsPath + "/" + theirs.ID + "/filas", runsPath + "/" + theirs.ID + "/representaciones-impresas",
		"/portal/TesteCF/certificacion/" + ours.ID, "/portal/eCF/certificacion/" + ours.ID + "/filas",
	} {
		wantStatus(t, b.Get(path), http.StatusNotFound)
	}
}

// fiscalPagesSite is a busy company's fiscal pages: a range of every
// type, a page of voids (50) answered by DGII, two certificates in each
// environment, and a run of DGII's 40-row sample.
func fiscalPagesSite(tb testing.TB) (*Site, *Browser, []struct{ name, path string }) {
	tb.Helper()
	site := MustSite(tb)
	site.MustUser(tb, "owner@caribe.do", sello.RoleOwner)
	ctx := context.Background()
	for _, t := range sello.DocumentTypes {
		req := sello.SequenceRequest{Type: string(t), From: 1, To: 1_000_000}
		if t.HasSequenceExpiry() {
			exp := nextYear()
			req.ExpiresOn = &exp
		}
		if _, err := sello.RegisterSequence(ctx, site.Store, site.Tenant.ID, sello.EnvTest, req, time.Now()); err != nil {
			tb.Fatal(err)
		}
	}
	codigo := 1
	var void *sello.Void
	for i := range 50 {
		v, _, err := sello.CreateVoid(ctx, site.Store, sello.VoidDraft{TenantID: site.Tenant.ID, Environment: sello.EnvTest,
			Request: sello.VoidRequest{Ranges: []sello.VoidRangeRequest{{Type: "31", From: int64(1000 + 10*i), To: int64(1005 + 10*i)}, {Type: "33", From: int64(1000 + i), To: int64(1000 + i)}}}})
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := site.Store.RecordVoidOutcome(ctx, site.Tenant.ID, sello.EnvTest, v.ID, sello.VoidOutcome{ANECF: []byte("<ANECF/>"), State: sello.VoidAccepted,
			DGII: &sello.DGIIResult{Codigo: &codigo, Estado: "Anulación procesada", Mensajes: []sello.DGIIMessage{{Valor: "Las secuencias fueron anuladas correctamente."}}}}); err != nil {
			tb.Fatal(err)
		}
		void = v
	}
	for _, env := range sello.Environments {
		for _, name := range []string{"Ana Rodríguez", "María Gómez"} {
			key, cert, err := xmldsig.GenerateSelfSigned(pkix.Name{CommonName: name, SerialNumber: "IDCDO-00100000001"}, time.Now().Add(365*24*time.Hour))
			if err != nil {
				tb.Fatal(err)
			}
			c, err := sello.NewCertificate(site.Tenant.ID, env, cert, key, site.Server.MasterKey)
			if err != nil {
				tb.Fatal(err)
			}
			if err := site.Store.AddCertificate(ctx, c); err != nil {
				tb.Fatal(err)
			}
		}
	}
	b := site.NewBrowser(tb)
	b.MustLogin("owner@caribe.do")
	p := b.Upload(runsPath, runsPath, nil, "file", "set-de-pruebas.xlsx", sampleWorkbook(tb))
	if p.StatusCode != http.StatusSeeOther {
		tb.Fatalf("start the run: %d %s", p.StatusCode, p.Body)
	}
	return site, b, []struct{ name, path string }{
		{"sequences", seqPath},
		{"voids", voidsPath},
		{"void-new", voidsPath + "/nueva"},
		{"void", voidsPath + "/" + void.ID},
		{"certificates", certsPath},
		{"certification", runsPath},
		{"certification-run", p.Location()},
		{"certification-rows", p.Location() + "/filas"},
	}
}

// TestFiscalPageWeight: each fiscal page of a busy company weighs under
// 200 KB with its assets as sent to a browser (logged for
// docs/benchmarks.md).
func TestFiscalPageWeight(t *testing.T) {
	_, b, pages := fiscalPagesSite(t)
	for _, p := range pages {
		page := b.Get(p.path)
		wantStatus(t, page, http.StatusOK)
		raw, sent := len(page.Body), len(page.Body)
		for _, m := range assetRef.FindAllStringSubmatch(page.Body, -1) {
			plain := b.Do("GET", m[1], nil, http.Header{"Accept-Encoding": {"identity"}})
			gz := b.Do("GET", m[1], nil, http.Header{"Accept-Encoding": {"gzip"}})
			wantStatus(t, plain, http.StatusOK)
			raw += len(plain.Body)
			sent += len(gz.Body)
		}
		t.Logf("%-20s %6d bytes HTML, %7d bytes with assets, %6d sent (assets gzipped)", p.name, len(page.Body), raw, sent)
		if sent > maxPageWeight {
			t.Errorf("%s weighs %d bytes with its assets, over %d", p.name, sent, maxPageWeight)
		}
	}
}

// BenchmarkFiscalPages measures each fiscal page's server time, as
// BenchmarkPages does the others'.
func BenchmarkFiscalPages(b *testing.B) {
	site, browser, pages := fiscalPagesSite(b)
	cookie := &http.Cookie{Name: sello.SessionCookie, Value: browser.Cookie()}
	h := site.HTTP.Config.Handler
	for _, p := range pages {
		b.Run(p.name, func(b *testing.B) {
			for b.Loop() {
				req := httptest.NewRequest("GET", p.path, nil)
				req.AddCookie(cookie)
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("%s: %d", p.path, rec.Code)
				}
			}
		})
	}
}
