package main

import (
	"bytes"
	"context"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"encoding/xml"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
	"github.com/sello-do/sello/oracle"
	"github.com/sello-do/sello/xmldsig"
)

// wireSupplierRNC is the company that uses the toolkit: a supplier of the
// demo buyer and a buyer of the demo issuer.
const wireSupplierRNC = "101672919"

// wireHolder is the person whose certificate the toolkit signs with.
const wireHolder = "IDCDO-00100000001"

// TestDGIIECFWire checks Sello's public receivers against an independent
// client: the open npm toolkit dgii-ecf, at the version
// tools/package-lock.json pins, run by node (tools/dgii-ecf-wire.mjs) as
// its users run it, against `sello serve --demo` in eCF with trust roots
// (docs/receptor.md, "Tested against"). The toolkit's company, with a
// certificate of a CA the receivers trust, authenticates at the demo
// buyer's receiver with the toolkit's seed signing, sends its e-CF and
// reads the signed ARECF (Estado 0, the elements and values the toolkit's
// own ARECF has, a signature its verifier accepts); the buyer holds the
// document, byte for byte, with its signer trusted. A stranger's seed gets
// no token and its e-CF is not received. As the buyer of an e-CF the demo
// issuer sent it, the company posts a toolkit-signed ACECF, which the
// issuer's document records with its signer. It skips without node or npm,
// and fails instead in CI (SELLO_REQUIRE_ORACLES).
func TestDGIIECFWire(t *testing.T) {
	modules := oracle.NodeModules(t, "the npm toolkit dgii-ecf")
	node := oracle.Node(t, "the npm toolkit dgii-ecf")
	var pkg struct{ Version string }
	if b, err := os.ReadFile(filepath.Join(modules, "dgii-ecf", "package.json")); err != nil || json.Unmarshal(b, &pkg) != nil || pkg.Version != "1.8.0" {
		t.Fatalf("dgii-ecf in %s: version %q (%v); tools/package-lock.json pins 1.8.0", modules, pkg.Version, err)
	}
	start := time.Now()

	// A CA that stands for an INDOTEL-accredited one, trusted by the
	// receivers; the supplier's certificate from it, and a stranger's
	// self-signed one.
	dir := t.TempDir()
	caKey, ca, err := xmldsig.GenerateCA(pkix.Name{CommonName: "Prueba CA Acreditada"}, time.Now().AddDate(1, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	roots := filepath.Join(dir, "roots.pem")
	if err := os.WriteFile(roots, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	writeP12 := func(name string, signer *xmldsig.Signer, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		b, err := xmldsig.EncodePKCS12(signer.Key, signer.Cert, "clave")
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	key, cert, err := xmldsig.IssueCertificate(caKey, ca, pkix.Name{CommonName: "Persona " + wireHolder, SerialNumber: wireHolder}, time.Now().AddDate(1, 0, 0))
	supplierP12 := writeP12("supplier.p12", &xmldsig.Signer{Key: key, Cert: cert}, err)
	key, cert, err = xmldsig.GenerateSelfSigned(pkix.Name{CommonName: "Empresa Falsa SRL", SerialNumber: "RNC-" + wireSupplierRNC}, time.Now().AddDate(1, 0, 0))
	strangerP12 := writeP12("stranger.p12", &xmldsig.Signer{Key: key, Cert: cert}, err)

	s := MustRunServer(t, "--receiver-trust-roots", roots)
	env := sello.EnvProd
	issuerKey, buyerKey := s.Keys[env], s.BuyerKeys[env]
	docs := "/" + string(env) + "/documentos-ecf"

	// The demo issuer's e-CF to the toolkit's company, accepted by DGII
	// (simulated), for the company to approve.
	encf := document(t, s.Do(t, request{Method: "POST", Path: docs, Key: issuerKey, Body: invoice(withBuyer(wireSupplierRNC))}))["encf"].(string)
	if d := s.waitForPath(t, issuerKey, docs+"/"+encf, func(d map[string]any) bool { return sello.Status(d["status"].(string)).Final() }); d["status"] != string(sello.StatusAccepted) {
		t.Fatalf("the issuer's %s: %v, want accepted", encf, d["status"])
	}
	issued := s.Do(t, request{Method: "GET", Path: docs + "/" + encf + "/xml", Key: issuerKey})
	var head struct {
		FechaEmision string `xml:"Encabezado>Emisor>FechaEmision"`
		MontoTotal   string `xml:"Encabezado>Totales>MontoTotal"`
	}
	if err := xml.Unmarshal(issued.Body, &head); err != nil || head.FechaEmision == "" || head.MontoTotal == "" {
		t.Fatalf("the issuer's signed e-CF: %v %+v", err, head)
	}

	in := map[string]any{
		"environment": "PROD", // dgii-ecf's ENVIRONMENT.PROD is eCF
		"password":    "clave",
		"supplierP12": supplierP12,
		"strangerP12": strangerP12,
		"buyerBase":   s.URL + "/" + string(env) + "/receptor/" + demoBuyerRNC,
		"buyerRNC":    demoBuyerRNC,
		"issuerBase":  s.URL + "/" + string(env) + "/receptor/" + demoRNC,
		"ecf":         string(wireECF(t, 1)),
		"ecfFile":     wireSupplierRNC + "E310000000001.xml",
		"strangerEcf": string(wireECF(t, 2)),
		// DGII's file name is RNCEmisor+e-NCF: the stranger claims the
		// supplier's RNC.
		"strangerEcfFile": wireSupplierRNC + "E310000000002.xml",
		"approval": map[string]string{
			"RNCEmisor": demoRNC, "eNCF": encf, "FechaEmision": head.FechaEmision,
			"MontoTotal": head.MontoTotal, "RNCComprador": wireSupplierRNC,
		},
	}
	input := filepath.Join(dir, "input.json")
	b, _ := json.Marshal(in)
	if err := os.WriteFile(input, b, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(oracle.ToolsDir(), "dgii-ecf-wire.mjs"), input)
	cmd.Dir = dir // the toolkit reads a .env from its working folder
	cmd.Env = append(os.Environ(), "SELLO_NODE_MODULES="+modules)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	nodeStart := time.Now()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node dgii-ecf-wire.mjs: %v\n%s", err, stderr.Bytes())
	}
	nodeTook := time.Since(nodeStart)
	var rep wireReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("the script's report: %v\n%s\n%s", err, out, stderr.Bytes())
	}
	t.Logf("dgii-ecf %s: %d bytes of report; node's stderr:\n%s", rep.Toolkit, len(out), stderr.Bytes())

	// The token, as the toolkit reads it: flat, UTC yyyy-MM-ddTHH:mm:ssZ.
	if rep.Token == nil {
		t.Fatalf("the toolkit got no token at the buyer's receiver: %+v", rep.TokenError)
	}
	expedido, err1 := time.Parse("2006-01-02T15:04:05Z", rep.Token.Expedido)
	expira, err2 := time.Parse("2006-01-02T15:04:05Z", rep.Token.Expira)
	if rep.Token.Token == "" || err1 != nil || err2 != nil || expira.Sub(expedido) != time.Hour {
		t.Errorf("token %+v (%v, %v): want a token, expedido and expira an hour apart in DGII's format", rep.Token, err1, err2)
	}

	// The e-CF: an ARECF Estado 0, signed (the toolkit's verifier accepts
	// it) by the buyer's certificate, with the elements and values of the
	// toolkit's own ARECF for that e-CF, in DGII's order.
	e := rep.ECF
	if e == nil || e.Error != nil {
		t.Fatalf("the toolkit's e-CF: %+v", e)
	}
	if !e.ARECFSignatureValid || !strings.Contains(e.ARECFSigner, "RNC-"+demoBuyerRNC) {
		t.Errorf("the ARECF's signature, by the toolkit's verifier: valid %v (%s), signer %q; want valid, by the buyer's certificate\n%s", e.ARECFSignatureValid, e.ARECFSignatureError, e.ARECFSigner, e.ARECF)
	}
	if want := []string{"Version", "RNCEmisor", "RNCComprador", "eNCF", "Estado", "FechaHoraAcuseRecibo"}; strings.Join(names(e.ARECFFields), ",") != strings.Join(want, ",") ||
		strings.Join(names(e.OwnFields), ",") != strings.Join(want, ",") {
		t.Errorf("the ARECF's elements %v, the toolkit's own %v; want %v", names(e.ARECFFields), names(e.OwnFields), want)
	}
	for i, f := range e.ARECFFields {
		if i < len(e.OwnFields) && f[0] != "FechaHoraAcuseRecibo" && f != e.OwnFields[i] {
			t.Errorf("ARECF %s = %q, the toolkit's own %q", f[0], f[1], e.OwnFields[i][1])
		}
		if f[0] == "Estado" && f[1] != "0" {
			t.Errorf("ARECF Estado %q, want 0 (e-CF Recibido)\n%s", f[1], e.ARECF)
		}
		if f[0] == "FechaHoraAcuseRecibo" && !regexp.MustCompile(`^(3[01]|[12][0-9]|0[1-9])-(1[0-2]|0[1-9])-[0-9]{4} (2[0-3]|[01][0-9]):[0-5][0-9]:[0-5][0-9]$`).MatchString(f[1]) {
			t.Errorf("FechaHoraAcuseRecibo %q: not dd-MM-yyyy HH:mm:ss", f[1])
		}
	}
	if e.ARECFAgain != e.ARECF {
		t.Errorf("the same e-CF again got another acuse:\n%s\nthen\n%s", e.ARECF, e.ARECFAgain)
	}
	// Stored on the buyer's side, byte for byte, its signer trusted.
	list := s.Do(t, request{Method: "GET", Path: "/" + string(env) + "/documentos-recibidos", Key: buyerKey}).JSON(t)["data"].([]any)
	if len(list) != 1 {
		t.Fatalf("the buyer's received documents: %v; want the toolkit's e-CF alone", list)
	}
	got := list[0].(map[string]any)
	signer, _ := got["signer"].(map[string]any)
	if got["encf"] != "E310000000001" || got["issuer"].(map[string]any)["rnc"] != wireSupplierRNC || signer["trusted"] != true || signer["serialNumber"] != wireHolder {
		t.Errorf("the buyer's received document: %v; want E310000000001 of %s, signed by %s, trusted", got, wireSupplierRNC, wireHolder)
	}
	if stored := s.Do(t, request{Method: "GET", Path: "/" + string(env) + "/documentos-recibidos/" + got["id"].(string) + "/xml", Key: buyerKey}); !bytes.Equal(stored.Body, []byte(e.Signed)) {
		t.Errorf("the stored XML (%d bytes) is not what the toolkit signed and sent (%d bytes)", len(stored.Body), len(e.Signed))
	}

	// The stranger: no token, and its e-CF, under the supplier's token, is
	// not received (Estado 1, code 2: the signer is refused).
	if rep.StrangerToken != nil || rep.StrangerTokenError == nil || rep.StrangerTokenError.Status != http.StatusUnauthorized {
		t.Errorf("the stranger's seed: token %+v, error %+v; want 401", rep.StrangerToken, rep.StrangerTokenError)
	}
	if f := rep.StrangerECF; f == nil || value(f.ARECFFields, "Estado") != "1" || value(f.ARECFFields, "CodigoMotivoNoRecibido") != "2" {
		t.Errorf("the stranger's e-CF: %+v; want an ARECF Estado 1, CodigoMotivoNoRecibido 2", f)
	}

	// The ACECF. The toolkit's certification helper dates every ACECF
	// 13-11-2023 19:40:32, before the e-CF: 400, recorded nowhere. Dated
	// now, it is 200 and the issuer's document carries the verdict, signed
	// by the supplier's person, trusted.
	if rep.IssuerToken == nil {
		t.Fatalf("the toolkit got no token at the issuer's receiver: %+v", rep.IssuerTokenError)
	}
	if rep.ACECF2023.Status != http.StatusBadRequest {
		t.Errorf("the ACECF dated 2023: %d %s; want 400", rep.ACECF2023.Status, rep.ACECF2023.Body)
	}
	var ok struct {
		OK                 bool
		ENCF               string
		CommercialApproval struct{ Status, BuyerRnc string }
	}
	if rep.ACECF.Status != http.StatusOK || json.Unmarshal(rep.ACECF.Body, &ok) != nil || !ok.OK || ok.ENCF != encf || ok.CommercialApproval.Status != "approved" {
		t.Fatalf("the ACECF: %d %s; want 200, approved", rep.ACECF.Status, rep.ACECF.Body)
	}
	d := document(t, s.Do(t, request{Method: "GET", Path: docs + "/" + encf, Key: issuerKey}))
	a, _ := d["commercialApproval"].(map[string]any)
	as, _ := a["signer"].(map[string]any)
	if a["status"] != "approved" || a["buyerRnc"] != wireSupplierRNC || as["serialNumber"] != wireHolder || as["trusted"] != true || len(a["verdicts"].([]any)) != 1 {
		t.Errorf("the issuer's commercialApproval: %v; want approved by %s, signed by %s, trusted, one verdict", a, wireSupplierRNC, wireHolder)
	}
	t.Logf("the toolkit's calls took %s; the whole test %s", nodeTook.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
}

// wireECF is the toolkit's company's unsigned type-31 e-CF numbered n to
// the demo buyer, as a supplier's system writes it (Sello's model of the
// e-CF stands for that system): the toolkit signs and sends it.
func wireECF(tb testing.TB, n int64) []byte {
	tb.Helper()
	now := time.Now()
	m := ecf.SampleInvoice(wireSupplierRNC, sello.TodayInDR(now))
	m["ECF"].(map[string]any)["Encabezado"].(map[string]any)["Comprador"].(map[string]any)["RNCComprador"] = demoBuyerRNC
	body, err := json.Marshal(m)
	if err != nil {
		tb.Fatal(err)
	}
	d, err := ecf.Parse(body, ecf.Issuance{TenantRNC: wireSupplierRNC, Now: now})
	if err != nil {
		tb.Fatal(err)
	}
	expires := sello.Date{Year: 2099, Month: 12, Day: 31}
	if err := d.Number(sello.ENCF{Type: sello.TypeCreditoFiscal, Number: n}, &sello.Sequence{ExpiresOn: &expires}); err != nil {
		tb.Fatal(err)
	}
	x, err := d.XML(now.Truncate(time.Second))
	if err != nil {
		tb.Fatal(err)
	}
	return x
}

// wireReport is what tools/dgii-ecf-wire.mjs reports.
type wireReport struct {
	Toolkit    string
	Token      *wireToken
	TokenError *wireFailure
	ECF        *struct {
		Signed              string
		ARECF               string
		ARECFAgain          string
		ARECFSignatureValid bool
		ARECFSignatureError string
		ARECFSigner         string
		ARECFFields         [][2]string
		OwnFields           [][2]string
		Error               *wireFailure
	}
	StrangerToken      *wireToken
	StrangerTokenError *wireFailure
	StrangerECF        *struct {
		ARECF       string
		ARECFFields [][2]string
		Error       *wireFailure
	}
	IssuerToken      *wireToken
	IssuerTokenError *wireFailure
	ACECF2023, ACECF wirePost
}

type wireToken struct{ Token, Expira, Expedido string }

type wireFailure struct {
	Status  int
	Message string
}

// wirePost is an answer to a post: its status and body (JSON as sent).
type wirePost struct {
	Status int
	Body   json.RawMessage
}

// names are the names of fields.
func names(fields [][2]string) []string {
	var n []string
	for _, f := range fields {
		n = append(n, f[0])
	}
	return n
}

// value is the value of the field name, "" when there is none.
func value(fields [][2]string, name string) string {
	for _, f := range fields {
		if f[0] == name {
			return f[1]
		}
	}
	return ""
}
