package dgiisim_test

import (
	"bytes"
	"crypto/x509/pkix"
	"encoding/json"
	"fmt"
	"maps"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/dgiisim"
	ecfdoc "github.com/sello-do/sello/ecf"
	"github.com/sello-do/sello/xmldsig"
)

// benchRNC is the issuer of the benchmark's e-CF.
const benchRNC = "131793916"

// mustSignedECF returns a type-31 e-CF of items items as Sello produces it
// (ecf's XML, signed by xmldsig with a fresh key).
func mustSignedECF(tb testing.TB, encf string, at time.Time, items int) []byte {
	tb.Helper()
	invoice := ecfdoc.SampleInvoice(benchRNC, sello.DateOf(at.In(sello.DRZone)))
	list := invoice["ECF"].(map[string]any)["DetallesItems"].(map[string]any)
	first := list["Item"].([]any)[0].(map[string]any)
	var all []any
	for i := range items {
		item := maps.Clone(first)
		item["NumeroLinea"] = i + 1
		all = append(all, item)
	}
	list["Item"] = all
	body, err := json.Marshal(invoice)
	if err != nil {
		tb.Fatal(err)
	}
	d, err := ecfdoc.Decode(body)
	if err != nil {
		tb.Fatal(err)
	}
	if err := ecfdoc.Check(d, ecfdoc.Issuance{TenantRNC: benchRNC, Now: at}); err != nil {
		tb.Fatal(err)
	}
	e, err := sello.ParseENCF(encf)
	if err != nil {
		tb.Fatal(err)
	}
	expiry := sello.Date{Year: at.Year() + 1, Month: 12, Day: 31}
	if err := d.Number(e, &sello.Sequence{ExpiresOn: &expiry}); err != nil {
		tb.Fatal(err)
	}
	unsigned, err := d.XML(at)
	if err != nil {
		tb.Fatal(err)
	}
	return mustSign(tb, unsigned, at)
}

// mustSign signs an e-CF of benchRNC with xmldsig and a fresh key valid at at.
func mustSign(tb testing.TB, unsigned []byte, at time.Time) []byte {
	tb.Helper()
	key, cert, err := xmldsig.GenerateSelfSigned(pkix.Name{CommonName: "Prueba", SerialNumber: "RNC-" + benchRNC}, at.AddDate(1, 0, 0))
	if err != nil {
		tb.Fatal(err)
	}
	signed, err := (&xmldsig.Signer{Key: key, Cert: cert}).Sign(unsigned)
	if err != nil {
		tb.Fatal(err)
	}
	return signed
}

// serve calls sim's handler in-process and returns the recorded answer.
func serve(sim *dgiisim.Simulator, method, path, token, contentType string, body []byte) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, bytes.NewReader(body))
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	w := httptest.NewRecorder()
	sim.ServeHTTP(w, r)
	return w
}

// mustToken returns a token of sim's test environment, from the seed
// exchange with a seed signed by xmldsig.
func mustToken(tb testing.TB, sim *dgiisim.Simulator, at time.Time) string {
	tb.Helper()
	w := serve(sim, http.MethodGet, "/testecf/autenticacion/api/autenticacion/semilla", "", "", nil)
	key, cert, err := xmldsig.GenerateSelfSigned(pkix.Name{CommonName: "Prueba"}, at.AddDate(1, 0, 0))
	if err != nil {
		tb.Fatal(err)
	}
	seed, err := (&xmldsig.Signer{Key: key, Cert: cert}).Sign(w.Body.Bytes())
	if err != nil {
		tb.Fatal(err)
	}
	body, ct := multipartBody(tb, "semilla.xml", seed)
	w = serve(sim, http.MethodPost, "/testecf/autenticacion/api/autenticacion/validarsemilla", "", ct, body)
	var tok struct{ Token string }
	if w.Code != 200 || json.Unmarshal(w.Body.Bytes(), &tok) != nil {
		tb.Fatalf("validarsemilla: %d %s", w.Code, w.Body)
	}
	return tok.Token
}

func multipartBody(tb testing.TB, name string, content []byte) ([]byte, string) {
	tb.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	hd := textproto.MIMEHeader{}
	hd.Set("Content-Disposition", fmt.Sprintf(`form-data; name="xml"; filename=%q`, name))
	hd.Set("Content-Type", "text/xml")
	p, err := w.CreatePart(hd)
	if err != nil {
		tb.Fatal(err)
	}
	p.Write(content)
	w.Close()
	return buf.Bytes(), w.FormDataContentType()
}

// BenchmarkRecepcion is the simulator's reception of a signed one-item
// e-CF, with the real xmldsig verifier, through its handler in-process:
// multipart reading, parsing, checks, signature verification, the verdict
// and the answer.
func BenchmarkRecepcion(b *testing.B) {
	at := time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)
	const encf = "E310000000001"
	signed := mustSignedECF(b, encf, at, 1)
	sim := dgiisim.New(dgiisim.Config{
		Verify:         xmldsig.Verify,
		Now:            func() time.Time { return at },
		MaxSubmissions: 64, // the same e-NCF every time: keep its history short
	})

	token := mustToken(b, sim, at)
	body, ct := multipartBody(b, benchRNC+encf+".xml", signed)
	const path = "/testecf/recepcion/api/facturaselectronicas"
	// The first send is accepted; the next ones are verified the same way,
	// then refused as a reused e-NCF. Check that the signature passed.
	w := serve(sim, http.MethodPost, path, token, ct, body)
	if w.Code != 200 {
		b.Fatalf("recepcion: %d %s", w.Code, w.Body)
	}
	var sent struct{ TrackID string }
	json.Unmarshal(w.Body.Bytes(), &sent)
	w = serve(sim, http.MethodGet, "/testecf/consultaresultado/api/consultas/estado?trackid="+sent.TrackID, token, "", nil)
	if !bytes.Contains(w.Body.Bytes(), []byte(`"estado":"Aceptado"`)) {
		b.Fatalf("consultaresultado: %s", w.Body)
	}

	b.SetBytes(int64(len(signed)))
	b.ReportAllocs()
	for b.Loop() {
		if w = serve(sim, http.MethodPost, path, token, ct, body); w.Code != 200 {
			b.Fatalf("recepcion: %d %s", w.Code, w.Body)
		}
	}
	json.Unmarshal(w.Body.Bytes(), &sent)
	w = serve(sim, http.MethodGet, "/testecf/consultaresultado/api/consultas/estado?trackid="+sent.TrackID, token, "", nil)
	if !bytes.Contains(w.Body.Bytes(), []byte("Secuencia utilizada")) {
		b.Fatalf("consultaresultado of a resend: %s", w.Body) // a signature refusal would be "firma inválida"
	}
}
