package dgiisim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/dgiisim"
	"github.com/sello-do/sello/xmldsig"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var ctx = context.Background()

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// harness is a simulator on loopback and a raw HTTP client for it.
type harness struct {
	t     *testing.T
	sim   *dgiisim.Simulator
	srv   *httptest.Server
	clock *clock
	http  *http.Client
}

func newHarness(t *testing.T, cfg dgiisim.Config) *harness {
	t.Helper()
	h := &harness{t: t, clock: &clock{t: time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)}}
	if cfg.Now == nil {
		cfg.Now = h.clock.Now
	}
	if cfg.Verify == nil {
		cfg.Verify = dgiisim.FakeVerify
	}
	h.sim = dgiisim.New(cfg)
	h.srv = httptest.NewServer(h.sim)
	t.Cleanup(h.srv.Close)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	h.http = &http.Client{Transport: tr, Timeout: 10 * time.Second}
	return h
}

// do sends a request and returns the status and body.
func (h *harness) do(method, path, token, accept string, body io.Reader, contentType string) (int, string) {
	h.t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, h.srv.URL+path, body)
	if err != nil {
		h.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := h.http.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func multipartFile(t *testing.T, name string, content []byte) (*bytes.Buffer, string) {
	body, ct := multipartBody(t, name, content)
	return bytes.NewBuffer(body), ct
}

func (h *harness) upload(path, token, name string, content []byte) (int, string) {
	h.t.Helper()
	body, ct := multipartFile(h.t, name, content)
	return h.do(http.MethodPost, path, token, "", body, ct)
}

var valorRE = regexp.MustCompile(`<valor>([^<]+)</valor>`)

// seed gets a seed in env and returns it signed.
func (h *harness) seed(env string) []byte {
	h.t.Helper()
	status, body := h.do(http.MethodGet, "/"+env+"/autenticacion/api/autenticacion/semilla", "", "", nil, "")
	if status != 200 || !valorRE.MatchString(body) || !strings.HasPrefix(body, `<?xml version="1.0" encoding="utf-8"?>`) {
		h.t.Fatalf("semilla: %d %s", status, body)
	}
	signed, _ := dgiisim.FakeSign(ctx, []byte(body))
	return signed
}

func (h *harness) validate(env string, signed []byte) (int, string) {
	h.t.Helper()
	return h.upload("/"+env+"/autenticacion/api/autenticacion/validarsemilla", "", "semilla.xml", signed)
}

func (h *harness) token(env string) string {
	h.t.Helper()
	status, body := h.validate(env, h.seed(env))
	var tok struct{ Token, Expira, Expedido string }
	if status != 200 || json.Unmarshal([]byte(body), &tok) != nil || tok.Token == "" {
		h.t.Fatalf("validarsemilla: %d %s", status, body)
	}
	return tok.Token
}

func ecf(e, buyer string) []byte {
	b, _ := dgiisim.FakeSign(ctx, fmt.Appendf(nil, `<ECF><Encabezado><Version>1.0</Version><IdDoc><TipoeCF>%s</TipoeCF><eNCF>%s</eNCF></IdDoc><Emisor><RNCEmisor>131880681</RNCEmisor><FechaEmision>01-04-2026</FechaEmision></Emisor><Comprador><RNCComprador>%s</RNCComprador></Comprador><Totales><MontoTotal>1180.00</MontoTotal></Totales></Encabezado></ECF>`, e[1:3], e, buyer))
	return b
}

func (h *harness) send(env, token, e string, content []byte) string {
	h.t.Helper()
	status, body := h.upload("/"+env+"/recepcion/api/facturaselectronicas", token, "131880681"+e+".xml", content)
	var r struct{ TrackID string }
	if status != 200 || json.Unmarshal([]byte(body), &r) != nil || r.TrackID == "" {
		h.t.Fatalf("recepcion: %d %s", status, body)
	}
	return r.TrackID
}

type result struct {
	TrackID, Codigo, Estado string
	SecuenciaUtilizada      bool
	Mensajes                []struct {
		Valor  string
		Codigo int
	}
}

func (h *harness) result(env, token, id string) result {
	h.t.Helper()
	status, body := h.do(http.MethodGet, "/"+env+"/consultaresultado/api/consultas/estado?trackid="+id, token, "", nil, "")
	var r result
	if status != 200 || json.Unmarshal([]byte(body), &r) != nil {
		h.t.Fatalf("consultaresultado: %d %s", status, body)
	}
	return r
}

func TestAuthentication(t *testing.T) {
	h := newHarness(t, dgiisim.Config{})
	t.Run("OK", func(t *testing.T) {
		status, body := h.validate("testecf", h.seed("testecf"))
		want := `^\{"token":"[^"]+\.[^"]+\.[^"]+","expira":"2026-04-01T13:00:00Z","expedido":"2026-04-01T12:00:00Z"\}$`
		if status != 200 || !regexp.MustCompile(want).MatchString(body) {
			t.Fatalf("%d %s", status, body)
		}
	})
	t.Run("ErrSeedUsedTwice", func(t *testing.T) {
		signed := h.seed("testecf")
		h.validate("testecf", signed)
		if status, body := h.validate("testecf", signed); status != 400 || !strings.Contains(body, "ya fue usada") {
			t.Fatalf("%d %s", status, body)
		}
	})
	t.Run("ErrSeedOfAnotherEnvironment", func(t *testing.T) {
		if status, _ := h.validate("ecf", h.seed("testecf")); status != 400 {
			t.Fatalf("status %d", status)
		}
	})
	t.Run("ErrUnknownSeed", func(t *testing.T) {
		signed, _ := dgiisim.FakeSign(ctx, []byte(`<SemillaModel><valor>made-up</valor><fecha>x</fecha></SemillaModel>`))
		if status, _ := h.validate("testecf", signed); status != 400 {
			t.Fatalf("status %d", status)
		}
	})
	t.Run("ErrBadSignature", func(t *testing.T) {
		signed := bytes.Replace(h.seed("testecf"), []byte("<fecha>"), []byte("<fecha>1"), 1)
		if status, body := h.validate("testecf", signed); status != 400 || !strings.Contains(body, "Firma del certificado invalida") {
			t.Fatalf("%d %s", status, body)
		}
	})
	t.Run("ErrDOCTYPE", func(t *testing.T) {
		signed, _ := dgiisim.FakeSign(ctx, []byte(`<!DOCTYPE SemillaModel [<!ENTITY x SYSTEM "file:///etc/passwd">]><SemillaModel><valor>&x;</valor></SemillaModel>`))
		if status, _ := h.validate("testecf", signed); status != 400 {
			t.Fatalf("status %d", status)
		}
	})
	t.Run("Bearer", func(t *testing.T) {
		tok := h.token("testecf")
		path := "/testecf/consultaresultado/api/consultas/estado?trackid=x"
		for _, tc := range []struct {
			name, path, token string
			want              int
		}{
			{"OK", path, tok, 200},
			{"NoToken", path, "", 401},
			{"UnknownToken", path, "abc", 401},
			{"OtherEnvironment", "/ecf/consultaresultado/api/consultas/estado?trackid=x", tok, 401},
		} {
			if status, _ := h.do(http.MethodGet, tc.path, tc.token, "", nil, ""); status != tc.want {
				t.Errorf("%s: status %d, want %d", tc.name, status, tc.want)
			}
		}
		h.clock.Add(time.Hour)
		if status, _ := h.do(http.MethodGet, path, tok, "", nil, ""); status != 401 {
			t.Errorf("expired token: status %d, want 401", status)
		}
	})
}

func TestRecepcion(t *testing.T) {
	h := newHarness(t, dgiisim.Config{})
	tok := h.token("testecf")

	t.Run("CaseInsensitivePaths", func(t *testing.T) {
		body, ct := multipartFile(t, "131880681E310000000001.xml", ecf("E310000000001", "101010101"))
		status, out := h.do(http.MethodPost, "/TesteCF/Recepcion/api/FacturasElectronicas", tok, "", body, ct)
		if status != 200 {
			t.Fatalf("%d %s", status, out)
		}
		var r struct{ TrackID string }
		json.Unmarshal([]byte(out), &r)
		status, out = h.do(http.MethodGet, "/TESTECF/ConsultaResultado/api/Consultas/Estado?TrackId="+r.TrackID, tok, "", nil, "")
		if status != 200 || !strings.Contains(out, `"codigo":"1"`) {
			t.Fatalf("%d %s", status, out)
		}
	})

	t.Run("ErrChunked", func(t *testing.T) {
		body, ct := multipartFile(t, "131880681E310000000002.xml", ecf("E310000000002", "101010101"))
		status, out := h.do(http.MethodPost, "/testecf/recepcion/api/facturaselectronicas", tok, "", io.MultiReader(body), ct)
		if status != 400 || !strings.Contains(out, "Multipart cannot be empty") {
			t.Fatalf("%d %s", status, out)
		}
	})

	t.Run("ErrNotMultipart", func(t *testing.T) {
		status, _ := h.do(http.MethodPost, "/testecf/recepcion/api/facturaselectronicas", tok, "", strings.NewReader("<ECF/>"), "text/xml")
		if status != 400 {
			t.Fatalf("status %d", status)
		}
	})

	t.Run("ErrFileName", func(t *testing.T) {
		for _, name := range []string{"factura.xml", "131880681E3100000001.xml", "131880681E310000000003.txt", ""} {
			status, out := h.upload("/testecf/recepcion/api/facturaselectronicas", tok, name, ecf("E310000000003", "101010101"))
			if status != 400 || !strings.Contains(out, `"error":"3243"`) {
				t.Errorf("%q: %d %s", name, status, out)
			}
		}
	})

	for _, tc := range []struct {
		name    string
		content []byte
		msg     string
	}{
		{"DOCTYPE", []byte(`<!DOCTYPE ECF [<!ENTITY x "y">]><ECF/>`), "DOCTYPE"},
		{"NotWellFormed", []byte(`<ECF><Encabezado></ECF>`), "estructura"},
		{"WrongRoot", []byte(`<RFCE/>`), "raíz"},
		{"TypeMismatch", bytes.Replace(ecf("E310000000004", ""), []byte("<TipoeCF>31"), []byte("<TipoeCF>33"), 1), "TipoeCF"},
		{"NoSignature", []byte(`<ECF><Encabezado><IdDoc><TipoeCF>31</TipoeCF><eNCF>E310000000004</eNCF></IdDoc><Emisor><RNCEmisor>131880681</RNCEmisor></Emisor><Totales><MontoTotal>1.00</MontoTotal></Totales></Encabezado></ECF>`), "firma"},
	} {
		t.Run("Rejected"+tc.name, func(t *testing.T) {
			r := h.result("testecf", tok, h.send("testecf", tok, "E310000000004", tc.content))
			if r.Codigo != "2" || r.SecuenciaUtilizada || len(r.Mensajes) != 1 || !strings.Contains(r.Mensajes[0].Valor, tc.msg) {
				t.Fatalf("result = %+v", r)
			}
		})
	}

	t.Run("EnvironmentsAreSeparate", func(t *testing.T) {
		id := h.send("testecf", tok, "E310000000005", ecf("E310000000005", ""))
		cert := h.token("certecf")
		if r := h.result("certecf", cert, id); r.Codigo != "0" || r.Estado != "No encontrado" {
			t.Fatalf("result = %+v", r)
		}
		// The same e-NCF is unused in another environment.
		if r := h.result("certecf", cert, h.send("certecf", cert, "E310000000005", ecf("E310000000005", ""))); r.Codigo != "1" {
			t.Fatalf("result = %+v", r)
		}
	})

	t.Run("XMLAnswer", func(t *testing.T) {
		id := h.send("testecf", tok, "E310000000006", ecf("E310000000006", dgiisim.RNCConditional))
		status, body := h.do(http.MethodGet, "/testecf/consultaresultado/api/consultas/estado?trackid="+id, tok, "application/xml", nil, "")
		var r struct {
			XMLName  xml.Name `xml:"RespuestaConsultaTrackId"`
			TrackID  string   `xml:"trackId"`
			Codigo   int      `xml:"codigo"`
			Estado   string   `xml:"estado"`
			ENCF     string   `xml:"encf"`
			Mensajes []struct {
				Valor  string `xml:"valor"`
				Codigo int    `xml:"codigo"`
			} `xml:"mensajes"`
		}
		if err := xml.Unmarshal([]byte(body), &r); err != nil || status != 200 {
			t.Fatalf("%d %s: %v", status, body, err)
		}
		if r.TrackID != id || r.Codigo != 4 || r.Estado != "Aceptado Condicional" || r.ENCF != "E310000000006" || len(r.Mensajes) != 1 || r.Mensajes[0].Codigo != 40 {
			t.Fatalf("result = %+v", r)
		}
	})

	t.Run("NotFoundRoute", func(t *testing.T) {
		for _, p := range []string{"/testecf/nada", "/prod/recepcion/api/facturaselectronicas", "/"} {
			if status, _ := h.do(http.MethodGet, p, tok, "", nil, ""); status != 404 {
				t.Errorf("%s: status %d", p, status)
			}
		}
	})
}

func TestProcessingDelay(t *testing.T) {
	h := newHarness(t, dgiisim.Config{ProcessingDelay: 2 * time.Second})
	tok := h.token("testecf")
	id := h.send("testecf", tok, "E310000000001", ecf("E310000000001", ""))
	if r := h.result("testecf", tok, id); r.Codigo != "3" || r.Estado != "En Proceso" || len(r.Mensajes) != 0 {
		t.Fatalf("result = %+v", r)
	}
	status, body := h.do(http.MethodGet, "/testecf/consultatrackids/api/trackids/consulta?rncemisor=131880681&encf=E310000000001", tok, "", nil, "")
	if status != 200 || !strings.Contains(body, `"estado":"En Proceso"`) {
		t.Fatalf("%d %s", status, body)
	}
	h.clock.Add(2 * time.Second)
	if r := h.result("testecf", tok, id); r.Codigo != "1" || !r.SecuenciaUtilizada || len(r.Mensajes) != 1 || r.Mensajes[0].Valor != "" {
		t.Fatalf("result = %+v", r)
	}
}

func TestFaults(t *testing.T) {
	h := newHarness(t, dgiisim.Config{})
	semilla := "/testecf/autenticacion/api/autenticacion/semilla"
	h.sim.SetDown(true)
	if status, _ := h.do(http.MethodGet, semilla, "", "", nil, ""); status != 503 {
		t.Fatalf("down: status %d", status)
	}
	h.sim.SetDown(false)
	h.sim.SetErrorRate(1)
	for range 10 {
		if status, _ := h.do(http.MethodGet, semilla, "", "", nil, ""); status != 500 && status != 503 {
			t.Fatalf("error rate 1: status %d", status)
		}
	}
	h.sim.SetErrorRate(0)
	h.sim.SetLatency(50 * time.Millisecond)
	start := time.Now()
	if status, _ := h.do(http.MethodGet, semilla, "", "", nil, ""); status != 200 || time.Since(start) < 50*time.Millisecond {
		t.Fatalf("latency: status %d after %v", status, time.Since(start))
	}
}

func TestBounded(t *testing.T) {
	h := newHarness(t, dgiisim.Config{MaxSubmissions: 2})
	tok := h.token("testecf")
	first := h.send("testecf", tok, "E310000000001", ecf("E310000000001", ""))
	h.send("testecf", tok, "E310000000002", ecf("E310000000002", ""))
	last := h.send("testecf", tok, "E310000000003", ecf("E310000000003", ""))
	if r := h.result("testecf", tok, first); r.Codigo != "0" {
		t.Fatalf("oldest: %+v, want forgotten", r)
	}
	if r := h.result("testecf", tok, last); r.Codigo != "1" {
		t.Fatalf("newest: %+v", r)
	}
}

func TestApprovalRefusesMissingMotivo(t *testing.T) {
	h := newHarness(t, dgiisim.Config{})
	tok := h.token("testecf")
	b, _ := dgiisim.FakeSign(ctx, []byte(`<ACECF><DetalleAprobacionComercial><Version>1.0</Version><RNCEmisor>131880681</RNCEmisor><eNCF>E310000000001</eNCF><FechaEmision>01-04-2026</FechaEmision><MontoTotal>1.00</MontoTotal><RNCComprador>101010101</RNCComprador><Estado>2</Estado></DetalleAprobacionComercial></ACECF>`))
	status, body := h.upload("/testecf/aprobacioncomercial/api/aprobacioncomercial", tok, "101010101E310000000001.xml", b)
	if status != 400 || !strings.Contains(body, "DetalleMotivoRechazo") || !strings.Contains(body, `"codigo":"2"`) {
		t.Fatalf("%d %s", status, body)
	}
}

func TestFakeSignature(t *testing.T) {
	doc := []byte(`<?xml version="1.0"?><ECF><a>1</a></ECF>`)
	signed, err := dgiisim.FakeSign(ctx, doc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(signed, []byte("</Signature></ECF>")) {
		t.Fatalf("signed = %s", signed)
	}
	if _, err := dgiisim.FakeVerify(signed); err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string][]byte{
		"Unsigned": doc,
		"Altered":  bytes.Replace(signed, []byte("<a>1"), []byte("<a>2"), 1),
	} {
		if _, err := dgiisim.FakeVerify(bad); err == nil {
			t.Errorf("%s: verified", name)
		}
	}
	if _, err := dgiisim.FakeSign(ctx, []byte("no tags")); err == nil {
		t.Error("FakeSign without an end tag: want an error")
	}
}

func TestRFCE(t *testing.T) {
	h := newHarness(t, dgiisim.Config{})
	tok := h.token("testecf")
	rfce := func(e, total, buyer string) []byte {
		b, _ := dgiisim.FakeSign(ctx, fmt.Appendf(nil, `<RFCE><Encabezado><Version>1.0</Version><IdDoc><TipoeCF>32</TipoeCF><eNCF>%s</eNCF></IdDoc><Emisor><RNCEmisor>131880681</RNCEmisor></Emisor><Comprador><RNCComprador>%s</RNCComprador></Comprador><Totales><MontoTotal>%s</MontoTotal></Totales><CodigoSeguridadeCF>Xy9aBc</CodigoSeguridadeCF></Encabezado></RFCE>`, e, buyer, total))
		return b
	}
	path := "/testecf/recepcionfc/api/recepcion/ecf"
	status, body := h.upload(path, tok, "131880681E320000000001.xml", rfce("E320000000001", "100.00", "101010101"))
	if status != 200 || body != `{"codigo":1,"estado":"Aceptado","mensajes":[],"encf":"E320000000001","secuenciaUtilizada":true}` {
		t.Fatalf("%d %s", status, body)
	}
	status, body = h.upload(path, tok, "131880681E320000000002.xml", rfce("E320000000002", "100.00", dgiisim.RNCRejectReusable))
	if status != 400 || !strings.Contains(body, `"codigo":2,"estado":"Rechazado","mensajes":[{"valor":"El e-NCF no está autorizado`) || !strings.Contains(body, `"secuenciaUtilizada":false`) {
		t.Fatalf("%d %s", status, body)
	}
	status, body = h.do(http.MethodGet, "/testecf/consultarfce/api/Consultas/Consulta?RNC_Emisor=131880681&ENCF=E320000000001&Cod_Seguridad_eCF=xy9abc", tok, "", nil, "")
	if status != 200 || !strings.Contains(body, `"codigo":"1","estado":"Aceptado"`) {
		t.Fatalf("consultarfce: %d %s", status, body)
	}
	status, body = h.do(http.MethodGet, "/testecf/consultarfce/api/Consultas/Consulta?RNC_Emisor=131880681&ENCF=E320000000001&Cod_Seguridad_eCF=zzzzzz", tok, "", nil, "")
	if status != 200 || !strings.Contains(body, `"codigo":"0"`) {
		t.Fatalf("consultarfce, wrong code: %d %s", status, body)
	}
	// DGII's RFCE XSD refuses a negative or over-long amount anywhere in
	// Totales, as the e-CF's do, not only in MontoTotal.
	for i, amount := range []string{"-1.00", "12345678901234567.00", "1.001"} {
		encf := fmt.Sprintf("E32000000001%d", i)
		doc, _ := dgiisim.FakeSign(ctx, fmt.Appendf(nil, `<RFCE><Encabezado><Version>1.0</Version><IdDoc><TipoeCF>32</TipoeCF><eNCF>%s</eNCF></IdDoc><Emisor><RNCEmisor>131880681</RNCEmisor></Emisor><Comprador><RNCComprador>101010101</RNCComprador></Comprador><Totales><TotalITBIS>%s</TotalITBIS><MontoTotal>100.00</MontoTotal></Totales><CodigoSeguridadeCF>Xy9aBc</CodigoSeguridadeCF></Encabezado></RFCE>`, encf, amount))
		status, body = h.upload(path, tok, "131880681"+encf+".xml", doc)
		if status != 400 || !strings.Contains(body, `"estado":"Rechazado"`) || !strings.Contains(body, "TotalITBIS") {
			t.Errorf("TotalITBIS %s: %d %s, want Rechazado naming TotalITBIS", amount, status, body)
		}
	}
	// An RFCE is not a recepción send: no trackIds.
	if status, _ := h.do(http.MethodGet, "/testecf/consultatrackids/api/trackids/consulta?rncemisor=131880681&encf=E320000000001", tok, "", nil, ""); status != 404 {
		t.Fatalf("consultatrackids: status %d, want 404", status)
	}
}

// TestRecepcion_RealSignature sends e-CFs as Sello signs them to a
// simulator with the real xmldsig verifier.
func TestRecepcion_RealSignature(t *testing.T) {
	at := time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)
	sim := dgiisim.New(dgiisim.Config{Verify: xmldsig.Verify, Now: func() time.Time { return at }})
	token := mustToken(t, sim, at)
	send := func(t *testing.T, encf string, doc []byte) string {
		t.Helper()
		body, ct := multipartBody(t, benchRNC+encf+".xml", doc)
		w := serve(sim, http.MethodPost, "/testecf/recepcion/api/facturaselectronicas", token, ct, body)
		var sent struct{ TrackID string }
		if w.Code != 200 || json.Unmarshal(w.Body.Bytes(), &sent) != nil {
			t.Fatalf("recepcion: %d %s", w.Code, w.Body)
		}
		w = serve(sim, http.MethodGet, "/testecf/consultaresultado/api/consultas/estado?trackid="+sent.TrackID, token, "", nil)
		return w.Body.String()
	}
	t.Run("OK", func(t *testing.T) {
		if got := send(t, "E310000000001", mustSignedECF(t, "E310000000001", at, 1)); !strings.Contains(got, `"estado":"Aceptado"`) {
			t.Errorf("got %s", got)
		}
	})
	t.Run("OK1000Items", func(t *testing.T) {
		doc := mustSignedECF(t, "E310000000002", at, 1000)
		if len(doc) < 64<<10 {
			t.Fatalf("%d bytes: want more than readUpload's first buffer", len(doc))
		}
		if got := send(t, "E310000000002", doc); !strings.Contains(got, `"estado":"Aceptado"`) {
			t.Errorf("got %s", got)
		}
	})
	t.Run("ErrTampered", func(t *testing.T) {
		doc := bytes.Replace(mustSignedECF(t, "E310000000003", at, 1), []byte("Cliente Ejemplo"), []byte("Cliente Ejemplo 2"), 1)
		if got := send(t, "E310000000003", doc); !strings.Contains(got, `"estado":"Rechazado"`) || !strings.Contains(got, `"codigo":11`) {
			t.Errorf("got %s", got)
		}
	})
}

// TestDirectoryReceivers checks that Config.Receivers answers the directory
// for RNCs the simulator's own entries do not hold, in the environment
// asked, and that an RNC it does not know stays absent.
func TestDirectoryReceivers(t *testing.T) {
	h := newHarness(t, dgiisim.Config{Receivers: func(env sello.Environment, rnc string) (string, string, bool) {
		if rnc != "130000002" {
			return "", "", false
		}
		return "Comprador SRL", "http://sello.example/" + string(env) + "/receptor/" + rnc, true
	}})
	tok := h.token("testecf")
	path := "/testecf/consultadirectorio/api/consultas/obtenerdirectorioporrnc?RNC="
	status, body := h.do(http.MethodGet, path+"130000002", tok, "", nil, "")
	want := `[{"nombre":"Comprador SRL","rnc":"130000002","urlRecepcion":"http://sello.example/TesteCF/receptor/130000002","urlAceptacion":"http://sello.example/TesteCF/receptor/130000002","urlOpcional":"http://sello.example/TesteCF/receptor/130000002"}]`
	if status != http.StatusOK || body != want {
		t.Fatalf("got %d %s\nwant %s", status, body, want)
	}
	if status, body := h.do(http.MethodGet, path+"130000003", tok, "", nil, ""); status != http.StatusOK || body != "[]" {
		t.Fatalf("an unknown RNC: %d %s, want []", status, body)
	}
}
