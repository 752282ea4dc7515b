package browsertest_test

import (
	"archive/zip"
	"bytes"
	"crypto/x509/pkix"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/dgiisim"
	"github.com/sello-do/sello/portal/browsertest"
	"github.com/sello-do/sello/xmldsig"
	"software.sslmate.com/src/go-pkcs12"
)

// The fiscal administration pages in the browser: Secuencias, Anulaciones,
// Certificados and Certificación, against DGII's simulator (its fast
// setting, as the CLI's certification tests: 100 ms in En Proceso).

// mustSimulator starts a DGII simulator that checks signatures, for the
// worker of a Server (Options.DGIIURL).
func mustSimulator(t *testing.T) (*dgiisim.Simulator, string) {
	t.Helper()
	sim := dgiisim.New(dgiisim.Config{Verify: xmldsig.Verify, ProcessingDelay: 100 * time.Millisecond})
	ts := httptest.NewServer(sim)
	t.Cleanup(ts.Close)
	return sim, ts.URL
}

// download fetches path with the tab's session, as the browser's download
// would, and returns the answer with its body.
func download(t *testing.T, p *browsertest.Page, path string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", p.URL(path), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range p.Cookies() {
		req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// p12File writes a .p12 of a self-signed certificate for subject,
// encrypted with enc and password, and returns its path.
func p12File(t *testing.T, enc *pkcs12.Encoder, subject pkix.Name, password string) string {
	t.Helper()
	key, cert, err := xmldsig.GenerateSelfSigned(subject, time.Now().Add(365*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	b, err := enc.Encode(key, cert, nil, password)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "firma.p12")
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestSequencesAndVoids: an accountant registers a range on Secuencias
// (an overlapping one refused, with DGII's range as typed), then voids
// unused numbers on Anulaciones: the form, the confirmation with the
// count, the void's page waiting for DGII, which htmx refreshes until the
// simulator's answer; the signed ANECF downloads. A developer reads the
// voids but is offered no void and refused the form.
func TestSequencesAndVoids(t *testing.T) {
	t.Parallel()
	_, simURL := mustSimulator(t)
	s := browsertest.StartServer(t, browsertest.Options{DGIIURL: simURL})
	s.User(t, "ana@caribe.do", sello.RoleOwner)
	s.User(t, "carmen@caribe.do", sello.RoleAccountant)
	s.User(t, "luis@caribe.do", sello.RoleDeveloper)

	// The owner makes a TesteCF test certificate: the ANECF is signed.
	owner := s.NewPage(t)
	owner.Login("ana@caribe.do")
	owner.Go("/portal/TesteCF/certificados")
	owner.Submit("#certificate-generate")
	owner.WantText("Quedó agregado un certificado autofirmado de prueba.")

	p := s.NewPage(t)
	p.Login("carmen@caribe.do")
	p.Submit(`nav.menu a[href="/portal/TesteCF/secuencias"]`)
	if !p.Has("#sequences-none") {
		t.Fatalf("a new company's Secuencias: %s", p.Body())
	}
	p.Look("sequences-empty")
	expiry := time.Now().AddDate(1, 0, 0).Format(time.DateOnly)
	p.Select("#sequence-type", "31")
	p.Fill("#sequence-from", "1")
	p.Fill("#sequence-to", "1000")
	p.Select("#sequence-expires", expiry)
	p.Submit("#sequence-submit")
	p.WantText("El rango quedó registrado", "E310000000001", "1–1,000")
	p.Select("#sequence-type", "32")
	p.Fill("#sequence-from", "1")
	p.Fill("#sequence-to", "50")
	p.Submit("#sequence-submit")
	p.Look("sequences")

	p.Select("#sequence-type", "31")
	p.Fill("#sequence-from", "900")
	p.Fill("#sequence-to", "2000")
	p.Select("#sequence-expires", expiry)
	if status := p.Submit("#sequence-submit"); status != http.StatusBadRequest {
		t.Fatalf("an overlapping range: status %d", status)
	}
	if got := p.Text("#sequence-error"); !strings.Contains(got, "se solapa con el rango registrado") {
		t.Errorf("the overlap's refusal says %q", got)
	}
	if p.Value("#sequence-to") != "2000" {
		t.Errorf("the refused form lost what was typed: to = %q", p.Value("#sequence-to"))
	}
	p.Look("sequence-refused")

	// Void 1–10 and 20 of E31.
	p.Submit(`nav.menu a[href="/portal/TesteCF/anulaciones"]`)
	p.Look("voids-empty")
	p.Submit("#void-new")
	p.Fill("#void-from-0", "1")
	p.Fill("#void-to-0", "10")
	p.Fill("#void-from-1", "20")
	p.Look("void-new")
	p.Submit("#void-review")
	p.WantText("estos 11 números", "E310000000001–E310000000010", "E310000000020–E310000000020")
	p.Look("void-confirm")
	p.Submit("#void-confirm")
	// The void's page, waiting for DGII, refreshes its state (htmx) until
	// the simulator's answer. (It is watched at once: the first refresh
	// comes 2 s after the page.)
	if p.Has(".state-void-pending") {
		p.SwapUntil(".state-void-accepted", 30*time.Second)
	}
	voidPage := p.Path()
	if !strings.HasPrefix(voidPage, "/portal/TesteCF/anulaciones/") {
		t.Fatalf("after the confirmation the tab shows %s: %s", voidPage, p.Body())
	}
	p.WantText("Anulación de 11 números")
	if !p.Has(".state-void-accepted") {
		t.Fatalf("the void: %s", p.Body())
	}
	p.WantText("Anulación procesada (1)")
	p.Look("void-accepted")
	resp, anecf := download(t, p, p.Attr("#void-xml", "href"))
	if resp.StatusCode != http.StatusOK || !bytes.Contains(anecf, []byte("<ANECF")) || !bytes.Contains(anecf, []byte("<Signature")) {
		t.Fatalf("the ANECF download: %d %.200s", resp.StatusCode, anecf)
	}
	p.Submit("#main a[href='/portal/TesteCF/anulaciones']")
	p.Look("voids")

	// The sequence moved past the voided numbers.
	p.Go("/portal/TesteCF/secuencias")
	p.WantText("E310000000011")

	// A developer reads, and may not void.
	dev := s.NewPage(t)
	dev.Login("luis@caribe.do")
	dev.Go("/portal/TesteCF/anulaciones")
	if dev.Has("#void-new") || !dev.Has(".state-void-accepted") {
		t.Errorf("a developer's Anulaciones: %s", dev.Body())
	}
	if status := dev.Go("/portal/TesteCF/anulaciones/nueva"); status != http.StatusForbidden {
		t.Errorf("a developer opened the void form: %d", status)
	}
	if status := dev.Go(voidPage); status != http.StatusOK {
		t.Errorf("a developer cannot read the void: %d", status)
	}
}

// TestCertificatesUpload: an owner uploads a legacy (RC2/3DES) .p12 with
// its password; the page lists it under TesteCF as the one that signs. A
// certificate naming another RNC is refused, then added when the owner
// says it is the right one. An accountant reads the page without its
// forms.
func TestCertificatesUpload(t *testing.T) {
	t.Parallel()
	s := browsertest.StartServer(t)
	s.User(t, "ana@caribe.do", sello.RoleOwner)
	s.User(t, "carmen@caribe.do", sello.RoleAccountant)
	const password = "clave del certificado"

	p := s.NewPage(t)
	p.Login("ana@caribe.do")
	p.Submit(`nav.menu a[href="/portal/TesteCF/certificados"]`)
	p.Look("certificates-empty")
	p.Upload("#certificate-file", p12File(t, pkcs12.LegacyRC2, pkix.Name{CommonName: "Ana Rodríguez", SerialNumber: "IDCDO-00100000001"}, password))
	p.Fill("#certificate-password", password)
	p.Submit("#certificate-submit")
	p.WantText("El certificado quedó agregado.", "Ana Rodríguez", "firma en TesteCF")

	other := p12File(t, pkcs12.Modern, pkix.Name{CommonName: "Colmado Oriental SRL", SerialNumber: "RNC-130000002"}, password)
	p.Upload("#certificate-file", other)
	p.Fill("#certificate-password", password)
	if status := p.Submit("#certificate-submit"); status != http.StatusBadRequest {
		t.Fatalf("another RNC's certificate: status %d", status)
	}
	if got := p.Text("#certificate-error"); !strings.Contains(got, "130000002") {
		t.Errorf("the refusal says %q", got)
	}
	if p.Value("#certificate-password") != "" {
		t.Error("the refused form shows the password again")
	}
	p.Look("certificate-refused")
	p.Upload("#certificate-file", other)
	p.Fill("#certificate-password", password)
	p.Tick("#certificate-force", true)
	p.Submit("#certificate-submit")
	p.WantText("El certificado quedó agregado.", "Colmado Oriental SRL")
	p.Look("certificates")
	if strings.Contains(s.Logs(), password) {
		t.Fatal("the password is in the server's log")
	}

	acc := s.NewPage(t)
	acc.Login("carmen@caribe.do")
	acc.Go("/portal/TesteCF/certificados")
	acc.WantText("Ana Rodríguez")
	if acc.Has("#certificate-form") || acc.Has("#certificate-generate") {
		t.Error("an accountant is offered to add a certificate")
	}
}

// TestCertificationRun: an owner makes a CerteCF test certificate, uploads
// the simulator's sample workbook (DGII's test set: 25 e-CF, 4 RFCE, 11
// ACECF) on Certificación, and watches the run on its page, which htmx
// refreshes row by row, until it passes; the printed representations'
// ZIP has a PDF per e-CF.
func TestCertificationRun(t *testing.T) {
	t.Parallel()
	_, simURL := mustSimulator(t)
	s := browsertest.StartServer(t, browsertest.Options{DGIIURL: simURL})
	s.User(t, "ana@caribe.do", sello.RoleOwner)
	p := s.NewPage(t)
	p.Login("ana@caribe.do")
	p.Submit(`nav.menu a[href="/portal/CerteCF/certificacion"]`)
	if !p.Has("#certification-no-certificate") {
		t.Errorf("Certificación does not warn that no certificate signs in CerteCF")
	}
	p.Look("certification-empty")
	p.Go("/portal/CerteCF/certificados")
	p.Submit("#certificate-generate")

	p.Go("/portal/CerteCF/certificacion")
	workbook, err := filepath.Abs(filepath.Join("..", "..", "dgiisim", "testdata", "set-de-pruebas.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	p.Upload("#certification-file", workbook)
	start := time.Now()
	p.Submit("#certification-submit")
	if !strings.HasPrefix(p.Path(), "/portal/CerteCF/certificacion/") {
		t.Fatalf("after the upload the tab shows %s: %s", p.Path(), p.Body())
	}
	if n := len(p.Texts("#certification-rows tbody tr")); n != 40 {
		t.Fatalf("the run shows %d rows, want 40", n)
	}
	p.Look("certification-run")
	p.SwapUntil("#certification-state .state-run-passed", 120*time.Second)
	t.Logf("the sample set passed in %s", time.Since(start).Round(time.Second))
	if got := p.Text("#certification-accepted"); got != "40 de 40 filas" {
		t.Errorf("accepted: %q", got)
	}
	if n := len(p.Texts(`#certification-rows tr[data-state="accepted"]`)); n != 40 {
		t.Errorf("%d rows accepted on the page, want 40", n)
	}
	if p.Has("#certification-refresh") || p.Has("#certification-progress[hx-get]") {
		t.Error("the finished run still refreshes")
	}
	p.Look("certification-passed")
	resp, zb := download(t, p, p.Attr("#certification-zip", "href"))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the ZIP: %d %s", resp.StatusCode, zb)
	}
	zr, err := zip.NewReader(bytes.NewReader(zb), int64(len(zb)))
	if err != nil || len(zr.File) != 29 {
		t.Fatalf("the ZIP: %v, %d PDFs, want 29 (25 e-CF, 4 RFCE)", err, len(zr.File))
	}
	p.Go("/portal/CerteCF/certificacion")
	p.Look("certification")
}
