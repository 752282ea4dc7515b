package worker_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/x509/pkix"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/dgii"
	"github.com/sello-do/sello/dgiisim"
	"github.com/sello-do/sello/ecf"
	"github.com/sello-do/sello/internal/testwait"
	"github.com/sello-do/sello/oracle"
	"github.com/sello-do/sello/sqlite/sqlitetest"
	"github.com/sello-do/sello/storetest"
	"github.com/sello-do/sello/webhook"
	"github.com/sello-do/sello/xmldsig"
)

// toolkitRNC is the company whose receiver services are built from the
// toolkit: a buyer of the tenant's e-CF and an issuer of the e-CFs the
// tenant approves and rejects. DGII's directory (the simulator's) points
// its receivers at the script.
const toolkitRNC = "101672919"

// TestDGIIECFReceiver checks Sello's outbound client against receiver
// services built from an independent toolkit: the open npm toolkit
// dgii-ecf, at the version tools/package-lock.json pins, whose helpers
// (CustomAuthentication, SenderReceiver, Signature, validateXMLCertificate)
// tools/dgii-ecf-receiver.mjs serves with node on a loopback port, at the
// base URL the simulated DGII directory gives for the company
// (docs/receptor.md, "Tested against"). The worker's delivery job
// authenticates there (the toolkit's seed, signed by the tenant, traded
// for the toolkit's token), delivers the accepted e-CF (the toolkit's
// verifier accepts its signature) and records the toolkit-signed ARECF
// (Estado 0) byte for byte; the worker's approval job sends the tenant's
// ACECFs, an approval and a rejection, which the toolkit's verifier
// accepts, with the fields of the documents. It skips without node or
// npm, and fails instead in CI (SELLO_REQUIRE_ORACLES).
func TestDGIIECFReceiver(t *testing.T) {
	modules := oracle.NodeModules(t, "the npm toolkit dgii-ecf")
	node := oracle.Node(t, "the npm toolkit dgii-ecf")
	var pkg struct{ Version string }
	if b, err := os.ReadFile(filepath.Join(modules, "dgii-ecf", "package.json")); err != nil || json.Unmarshal(b, &pkg) != nil || pkg.Version != "1.8.0" {
		t.Fatalf("dgii-ecf in %s: version %q (%v); tools/package-lock.json pins 1.8.0", modules, pkg.Version, err)
	}
	start := time.Now()

	// The company's certificate, as its person's: the receiver signs its
	// ARECFs and its tokens with it.
	key, cert, err := xmldsig.GenerateSelfSigned(pkix.Name{CommonName: "Persona IDCDO-00100000002", SerialNumber: "IDCDO-00100000002"}, time.Now().AddDate(1, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	p12, err := xmldsig.EncodePKCS12(key, cert, "clave")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "company.p12"), p12, 0o600); err != nil {
		t.Fatal(err)
	}
	rcv := startToolkitReceiver(t, node, modules, dir, map[string]any{
		"p12": filepath.Join(dir, "company.p12"), "password": "clave", "rnc": toolkitRNC,
	})
	// A hosted receiver's base URL: a path before /fe/….
	base := rcv.url + "/ecf/" + toolkitRNC
	d := mustDeliveryTest(t, sqlitetest.MustOpen(t), webhook.Options{AllowLoopback: true}, func(c *dgiisim.Config) {
		c.Receivers = func(env sello.Environment, rnc string) (string, string, bool) {
			return "EMPRESA DEL TOOLKIT SRL", base, rnc == toolkitRNC
		}
	})
	tenantRNC := d.tenant.RNC

	// The tenant's accepted e-CF to the company, delivered by the worker.
	doc := d.accepted(t, toolkitRNC)
	delivered := d.delivered(t, doc)
	// The tenant's approval and rejection of two e-CFs the company issued:
	// sent to DGII (the simulator) and accepted, then received by the
	// tenant, which DGII's confirmation job confirms; the worker sends the
	// ACECFs.
	company := &xmldsig.Signer{Key: key, Cert: cert}
	toDGII := dgii.New(dgii.Config{URLs: dgii.URLs{ECF: d.url}}).Session(sello.EnvTest, toolkitRNC,
		func(_ context.Context, x []byte) ([]byte, error) { return company.Sign(x) })
	var approvals []*sello.InboundApproval
	var inbound []*sello.InboundDocument
	for i, req := range []sello.ApprovalRequest{
		{Estado: sello.EstadoAprobado},
		{Estado: sello.EstadoRechazado, Motivo: "Mercancía dañada & incompleta"},
	} {
		in := d.fromToolkit(t, toDGII, company, int64(i+1))
		req.InboundDocumentID = in.ID
		if _, err := d.st.ApproveInboundDocument(t.Context(), in.TenantID, in.Environment, req); err != nil {
			t.Fatal(err)
		}
		inbound = append(inbound, in)
		approvals = append(approvals, d.approved(t, in))
	}
	rep := rcv.stop(t)
	t.Logf("dgii-ecf %s: %d seeds, %d signed seeds, %d e-CFs, %d ACECFs, refused %v", rep.Toolkit, len(rep.Seeds), len(rep.Validations), len(rep.ECFs), len(rep.Approvals), rep.Refused)

	// Authentication: every signed seed posted is one the toolkit issued,
	// signed by the tenant's certificate (its verifier says so) and traded
	// for a token; no call was refused (every post carried a valid token).
	if len(rep.Validations) == 0 {
		t.Errorf("Sello never posted a signed seed: %+v", rep)
	}
	for _, v := range rep.Validations {
		if v.Status != 200 || !v.Issued || !v.SignatureValid || !strings.Contains(v.Subject, "Emisor de prueba") || v.Token == "" {
			t.Errorf("signed seed %q: status %d, issued %v, signature valid %v (%s), signer %q, error %q; want a token for a seed of the toolkit's, signed by the tenant\n%s",
				v.Valor, v.Status, v.Issued, v.SignatureValid, v.SignatureError, v.Subject, v.Error, v.Signed)
		}
	}
	if len(rep.Refused) != 0 {
		t.Errorf("the toolkit's receiver refused %v", rep.Refused)
	}

	// The delivery: delivered, the ARECF the toolkit signed recorded byte
	// for byte, the e-CF the toolkit received the one Sello signed.
	if delivered.Delivery != (sello.Delivery{Status: sello.DeliveryDelivered}) {
		t.Errorf("delivery: %+v; want delivered", delivered.Delivery)
	}
	if len(rep.ECFs) != 1 {
		t.Fatalf("the toolkit's receiver got %d e-CFs; want one", len(rep.ECFs))
	}
	e := rep.ECFs[0]
	signed, err := d.st.FindDocumentXML(t.Context(), doc.TenantID, doc.Environment, doc.ENCF)
	if err != nil {
		t.Fatal(err)
	}
	if e.Filename != tenantRNC+doc.ENCF+".xml" || e.Received != string(signed) {
		t.Errorf("the toolkit got %s (%d bytes); want %s%s.xml, the signed e-CF (%d bytes)", e.Filename, len(e.Received), tenantRNC, doc.ENCF, len(signed))
	}
	if !e.SignatureValid || !strings.Contains(e.Subject, "Emisor de prueba") {
		t.Errorf("the e-CF's signature, by the toolkit's verifier: valid %v (%s), signer %q; want valid, by the tenant", e.SignatureValid, e.SignatureError, e.Subject)
	}
	want := [][2]string{{"Version", "1.0"}, {"RNCEmisor", tenantRNC}, {"RNCComprador", toolkitRNC}, {"eNCF", doc.ENCF}, {"Estado", "0"}}
	if len(e.ARECFFields) != len(want)+1 || fmt.Sprint(e.ARECFFields[:len(want)]) != fmt.Sprint(want) || e.ARECFFields[len(want)][0] != "FechaHoraAcuseRecibo" {
		t.Errorf("the toolkit's ARECF: %v; want %v and FechaHoraAcuseRecibo\n%s", e.ARECFFields, want, e.ARECF)
	}
	arecf, err := d.st.FindDocumentARECF(t.Context(), doc.TenantID, doc.Environment, doc.ID)
	if err != nil || string(arecf) != e.ARECF {
		t.Errorf("the stored ARECF (%v):\n%s\nwant the toolkit's, byte for byte:\n%s", err, arecf, e.ARECF)
	}

	// The approvals: both legs sent; the toolkit got the stored ACECFs,
	// signed by the tenant (its verifier says so), with the documents'
	// fields.
	if len(rep.Approvals) != len(approvals) {
		t.Fatalf("the toolkit's receiver got %d ACECFs; want %d", len(rep.Approvals), len(approvals))
	}
	dateTime := regexp.MustCompile(`^(3[01]|[12][0-9]|0[1-9])-(1[0-2]|0[1-9])-[0-9]{4} (2[0-3]|[01][0-9]):[0-5][0-9]:[0-5][0-9]$`)
	for i, a := range approvals {
		in, got := inbound[i], rep.Approvals[i]
		if a.Status != sello.ApprovalSendSent || a.Issuer.Status != sello.ApprovalSendSent || a.DGII.Status != sello.ApprovalSendSent {
			t.Errorf("approval of %s: %s, issuer %+v, DGII %+v; want sent on both legs", in.ENCF, a.Status, a.Issuer, a.DGII)
		}
		if got.Status != 200 || got.Filename != tenantRNC+in.ENCF+".xml" || got.Received != string(a.ACECF) {
			t.Errorf("the toolkit answered %d to %s (%d bytes); want 200 to %s%s.xml, the stored ACECF (%d bytes)", got.Status, got.Filename, len(got.Received), tenantRNC, in.ENCF, len(a.ACECF))
		}
		if !got.SignatureValid || !strings.Contains(got.Subject, "Emisor de prueba") {
			t.Errorf("the ACECF's signature, by the toolkit's verifier: valid %v (%s), signer %q; want valid, by the tenant", got.SignatureValid, got.SignatureError, got.Subject)
		}
		want := [][2]string{{"Version", "1.0"}, {"RNCEmisor", toolkitRNC}, {"eNCF", in.ENCF}, {"FechaEmision", fmt.Sprintf("%02d-%02d-%04d", in.IssueDate.Day, in.IssueDate.Month, in.IssueDate.Year)},
			{"MontoTotal", "1180.00"}, {"RNCComprador", tenantRNC}, {"Estado", "1"}}
		if a.State == sello.ApprovalRejected {
			want[6][1] = "2"
			want = append(want, [2]string{"DetalleMotivoRechazo", "Mercancía dañada & incompleta"})
		}
		n := len(want)
		if len(got.Fields) != n+1 || fmt.Sprint(got.Fields[:n]) != fmt.Sprint(want) || got.Fields[n][0] != "FechaHoraAprobacionComercial" || !dateTime.MatchString(got.Fields[n][1]) {
			t.Errorf("the ACECF's fields, as the toolkit reads them: %v; want %v and FechaHoraAprobacionComercial dd-MM-yyyy HH:mm:ss\n%s", got.Fields, want, got.Received)
		}
	}
	t.Logf("the test took %s", time.Since(start).Round(time.Millisecond))
}

// fromToolkit is the company's E31 number n to the tenant: signed with
// company, sent to DGII (the simulator) with sess, which accepts it, then
// received by the tenant, once DGII's confirmation job (20 s at most) has
// found it accepted.
func (d *deliveryTest) fromToolkit(t *testing.T, sess *dgii.Session, company *xmldsig.Signer, n int64) *sello.InboundDocument {
	t.Helper()
	golden, err := os.ReadFile(filepath.Join("..", "ecf", "testdata", "golden", "E31.xml"))
	if err != nil {
		t.Fatal(err)
	}
	encf := sello.ENCF{Type: sello.TypeCreditoFiscal, Number: n}.String()
	x := rncEmisorRE.ReplaceAll(golden, []byte("<RNCEmisor>"+toolkitRNC+"</RNCEmisor>"))
	x = rncCompradorRE.ReplaceAll(x, []byte("<RNCComprador>"+d.tenant.RNC+"</RNCComprador>"))
	x = encfRE.ReplaceAll(x, []byte("<eNCF>"+encf+"</eNCF>"))
	signed, err := company.Sign(x)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.SendECF(t.Context(), encf, signed); err != nil {
		t.Fatal(err)
	}
	h, err := ecf.ParseECFHeader(signed)
	if err != nil {
		t.Fatal(err)
	}
	in := storetest.MustCreateInbound(t, d.st, &sello.InboundDocument{
		TenantID: d.tenant.ID, Environment: sello.EnvTest, Type: h.TipoeCF, ENCF: h.ENCF,
		IssuerRNC: h.RNCEmisor, IssuerName: h.RazonSocialEmisor, BuyerRNC: h.RNCComprador,
		IssueDate: h.FechaEmision, Total: h.MontoTotal, XML: signed, Acuse: []byte("<ARECF/>"),
		SecurityCode: h.SecurityCode,
	})
	if !testwait.Within(20*time.Second, 5*time.Millisecond, func() bool {
		if in, err = d.st.FindInboundDocument(t.Context(), in.TenantID, in.Environment, in.ID); err != nil {
			t.Fatal(err)
		}
		return in.DGII.Status == sello.DGIIAccepted
	}) {
		t.Fatalf("inbound %s: DGII %+v after 20 s; want accepted", in.ENCF, in.DGII)
	}
	return in
}

// toolkitReceiver is tools/dgii-ecf-receiver.mjs running.
type toolkitReceiver struct {
	url   string // http://127.0.0.1:port
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
	err   *bytes.Buffer
}

// startToolkitReceiver runs the script with node on a free loopback port,
// input (with the port added) written to dir, and waits (30 s at most)
// until it listens. The test's end kills it if stop did not stop it.
func startToolkitReceiver(t *testing.T, node, modules, dir string, input map[string]any) *toolkitReceiver {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	input["port"] = port
	b, _ := json.Marshal(input)
	file := filepath.Join(dir, "receiver.json")
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	r := &toolkitReceiver{url: fmt.Sprintf("http://127.0.0.1:%d", port), err: &bytes.Buffer{}}
	r.cmd = exec.CommandContext(ctx, node, filepath.Join(oracle.ToolsDir(), "dgii-ecf-receiver.mjs"), file)
	r.cmd.Dir = dir
	r.cmd.Env = append(os.Environ(), "SELLO_NODE_MODULES="+modules)
	r.cmd.Stderr = r.err
	if r.stdin, err = r.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := r.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	r.out = bufio.NewReader(stdout)
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if r.cmd.ProcessState == nil {
			r.cmd.Process.Kill()
			r.cmd.Wait()
		}
	})
	ready := make(chan error, 1)
	go func() {
		line, err := r.out.ReadString('\n')
		if err == nil && line != "listening\n" {
			err = fmt.Errorf("first line %q", line)
		}
		ready <- err
	}()
	select {
	case err := <-ready:
		if err != nil {
			t.Fatalf("node dgii-ecf-receiver.mjs did not start: %v\n%s", err, r.err.Bytes())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("node dgii-ecf-receiver.mjs not listening after 30 s\n%s", r.err.Bytes())
	}
	return r
}

// stop ends the script's input, which stops it, and returns its report.
func (r *toolkitReceiver) stop(t *testing.T) *receiverReport {
	t.Helper()
	r.stdin.Close()
	b, readErr := io.ReadAll(r.out)
	if err := r.cmd.Wait(); err != nil || readErr != nil {
		t.Fatalf("node dgii-ecf-receiver.mjs: %v %v\n%s", err, readErr, r.err.Bytes())
	}
	var rep receiverReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("the script's report (%d bytes): %v\n%.2000s\n%s", len(b), err, b, r.err.Bytes())
	}
	if r.err.Len() > 0 {
		t.Logf("node's stderr:\n%s", r.err.Bytes())
	}
	return &rep
}

// receiverReport is what tools/dgii-ecf-receiver.mjs reports.
type receiverReport struct {
	Toolkit     string
	Seeds       []string
	Validations []struct {
		Filename, Signed, Valor string
		Issued                  bool
		toolkitSigner
		Status       int
		Token, Error string
	}
	ECFs []struct {
		Filename, Received string
		toolkitSigner
		ARECF       string
		ARECFFields [][2]string
	}
	Approvals []struct {
		Filename, Received string
		toolkitSigner
		Fields [][2]string
		Status int
	}
	Refused []map[string]any
}

// toolkitSigner is what the toolkit's verifier (validateXMLCertificate)
// said of a signed document.
type toolkitSigner struct {
	SignatureValid bool
	SignatureError string
	Subject        string
	Fingerprint256 string
}
