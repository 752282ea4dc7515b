package dgii_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/dgii"
	"github.com/sello-do/sello/dgiisim"
)

const issuer = "131880681" // also DGII's test counterpart in the directory

// clock is a settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// seen is one request as it reached the simulator.
type seen struct {
	method, path     string
	contentLength    int64
	transferEncoding []string
	fileName         string
	partContentType  string
	authorization    string
}

// recorder sits in front of the simulator and records every request, and
// can answer some paths itself.
type recorder struct {
	mu       sync.Mutex
	requests []seen
	// override, when set, may answer a request instead of the simulator.
	override func(w http.ResponseWriter, r *http.Request) bool
}

func (rec *recorder) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := seen{
			method: r.Method, path: strings.ToLower(r.URL.Path), contentLength: r.ContentLength,
			transferEncoding: r.TransferEncoding, authorization: r.Header.Get("Authorization"),
		}
		if r.Body != nil && r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(b))
			if _, params, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err == nil {
				mr := multipart.NewReader(bytes.NewReader(b), params["boundary"])
				if p, err := mr.NextPart(); err == nil {
					s.fileName, s.partContentType = p.FileName(), p.Header.Get("Content-Type")
				}
			}
		}
		rec.mu.Lock()
		rec.requests = append(rec.requests, s)
		override := rec.override
		rec.mu.Unlock()
		if override != nil && override(w, r) {
			return
		}
		next.ServeHTTP(w, r)
	})
}

// count returns how many requests had a path ending in suffix.
func (rec *recorder) count(suffix string) int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	n := 0
	for _, s := range rec.requests {
		if strings.HasSuffix(s.path, suffix) {
			n++
		}
	}
	return n
}

func (rec *recorder) last(suffix string) seen {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for i := len(rec.requests) - 1; i >= 0; i-- {
		if strings.HasSuffix(rec.requests[i].path, suffix) {
			return rec.requests[i]
		}
	}
	return seen{}
}

func (rec *recorder) setOverride(f func(w http.ResponseWriter, r *http.Request) bool) {
	rec.mu.Lock()
	rec.override = f
	rec.mu.Unlock()
}

// Paths' last segments, for counting.
const (
	pSemilla    = "/semilla"
	pValidar    = "/validarsemilla"
	pRecepcion  = "/facturaselectronicas"
	pResultado  = "consultaresultado/api/consultas/estado"
	pRFCE       = "recepcionfc/api/recepcion/ecf"
	pTrackIDs   = "/trackids/consulta"
	pDirectorio = "/obtenerdirectorioporrnc"
)

// fixture is a simulator behind a recorder on loopback, and a client.
type fixture struct {
	sim      *dgiisim.Simulator
	srv      *httptest.Server
	rec      *recorder
	simClock *clock
	clock    *clock
	client   *dgii.Client
	sess     *dgii.Session
	tr       *http.Transport
}

type options struct {
	sim     dgiisim.Config
	client  dgii.Config
	timeout time.Duration
}

func newFixture(t *testing.T, opt options) *fixture {
	t.Helper()
	f := &fixture{rec: &recorder{}, simClock: newClock(), clock: newClock()}
	if opt.sim.Now == nil {
		opt.sim.Now = f.simClock.Now
	}
	if opt.sim.Verify == nil {
		opt.sim.Verify = dgiisim.FakeVerify
	}
	f.sim = dgiisim.New(opt.sim)
	f.srv = httptest.NewServer(f.rec.wrap(f.sim))
	t.Cleanup(f.srv.Close)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	f.tr = tr
	if opt.timeout == 0 {
		opt.timeout = 10 * time.Second
	}
	cfg := opt.client
	cfg.URLs = dgii.URLs{ECF: f.srv.URL, FC: f.srv.URL}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Transport: tr, Timeout: opt.timeout}
	}
	if cfg.Now == nil {
		cfg.Now = f.clock.Now
	}
	if cfg.Backoff == nil {
		cfg.Backoff = func(int) time.Duration { return 0 }
	}
	f.client = dgii.New(cfg)
	f.sess = f.client.Session(sello.EnvTest, issuer, dgiisim.FakeSign)
	return f
}

// doc is a minimal e-CF or RFCE for the simulator.
type doc struct {
	root, tipo, encf, rnc, buyer, total string
	pad                                 int // bytes of an XML comment after the header, for a long e-CF
}

func (d doc) xml() []byte {
	if d.root == "" {
		d.root = "ECF"
	}
	if d.tipo == "" {
		d.tipo = d.encf[1:3]
	}
	if d.rnc == "" {
		d.rnc = issuer
	}
	if d.total == "" {
		d.total = "1180.00"
	}
	var buyer, code string
	if d.buyer != "" {
		buyer = "<Comprador><RNCComprador>" + d.buyer + "</RNCComprador><RazonSocialComprador>Comprador</RazonSocialComprador></Comprador>"
	}
	if d.root == "RFCE" {
		code = "<CodigoSeguridadeCF>Ab12Cd</CodigoSeguridadeCF>"
	}
	pad := ""
	if d.pad > 0 {
		pad = "<!--" + strings.Repeat("x", d.pad) + "-->"
	}
	return fmt.Appendf(nil, `<?xml version="1.0" encoding="utf-8"?>
<%s>%s<Encabezado><Version>1.0</Version><IdDoc><TipoeCF>%s</TipoeCF><eNCF>%s</eNCF></IdDoc><Emisor><RNCEmisor>%s</RNCEmisor><RazonSocialEmisor>Emisor</RazonSocialEmisor><FechaEmision>01-04-2026</FechaEmision></Emisor>%s<Totales><MontoTotal>%s</MontoTotal><TotalITBIS>180.00</TotalITBIS></Totales>%s</Encabezado><FechaHoraFirma>01-04-2026 08:00:00</FechaHoraFirma></%s>`,
		d.root, pad, d.tipo, d.encf, d.rnc, buyer, d.total, code, d.root)
}

func (d doc) signed(t *testing.T) []byte {
	t.Helper()
	b, err := dgiisim.FakeSign(context.Background(), d.xml())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// send sends d through recepción and returns its trackId.
func (f *fixture) send(t *testing.T, d doc) string {
	t.Helper()
	id, err := f.sess.SendECF(context.Background(), d.encf, d.signed(t))
	if err != nil {
		t.Fatalf("SendECF(%s): %v", d.encf, err)
	}
	return id
}

func (f *fixture) result(t *testing.T, trackID string) *dgii.Result {
	t.Helper()
	r, err := f.sess.Result(context.Background(), trackID)
	if err != nil {
		t.Fatalf("Result(%s): %v", trackID, err)
	}
	return r
}

func encf(n int) string { return fmt.Sprintf("E31%010d", n) }
