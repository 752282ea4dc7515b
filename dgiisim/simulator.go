package dgiisim

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	mrand "math/rand/v2"
	"mime"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sello-do/sello"
)

// Defaults of Config.
const (
	// DefaultProcessingDelay is DGII-like validation time; give it to
	// Config.ProcessingDelay when wiring a demo (zero means immediate).
	DefaultProcessingDelay = 2 * time.Second
	DefaultTokenTTL        = time.Hour
	DefaultStallTimeout    = 2 * time.Minute
	DefaultMaxSubmissions  = 100_000
)

// Config configures a Simulator. Zero values mean the defaults.
type Config struct {
	// Verify checks a signed document's signature and returns the signer's
	// certificate. nil accepts everything (early tests only); tests use
	// FakeVerify; production wires the real xmldsig verifier.
	Verify func(signedXML []byte) (*x509.Certificate, error)
	// Sign signs the acuses (ARECF) the simulated receivers answer (see
	// receptor.go). nil leaves them unsigned; tests and sello serve wire the
	// real xmldsig signer with a certificate of their own.
	Sign func(xml []byte) ([]byte, error)
	// Now is the simulator's clock. Default time.Now.
	Now func() time.Time
	// ProcessingDelay is how long a received e-CF stays En Proceso before
	// its verdict. Zero gives the verdict at once; DefaultProcessingDelay
	// is DGII-like.
	ProcessingDelay time.Duration
	// TokenTTL is the lifetime of a token. Default one hour, as DGII.
	TokenTTL time.Duration
	// StallTimeout is how long a send for buyer RNC 999000007 is held
	// after it was recorded, unless the client hangs up first. Default 2 min.
	StallTimeout time.Duration
	// MaxSubmissions bounds the sends kept in memory; the oldest are
	// forgotten first. Default 100,000.
	MaxSubmissions int
	// Receivers, when set, answers the directory for an RNC that none of
	// the simulator's own entries holds: the taxpayer's name and the base
	// URL of its receiver services in env (what it registered at DGII), or
	// ok false when it is not an electronic receiver. sello serve points it
	// at its own tenants, so that a document from one tenant to another is
	// delivered in one process.
	Receivers func(env sello.Environment, rnc string) (name, base string, ok bool)
	// BaseURL is the simulator's own base, used in its directory entries.
	// Default: taken from each request (scheme and Host).
	BaseURL string

	// Latency delays every answer. Changeable later with SetLatency.
	Latency time.Duration
	// ErrorRate is the fraction of requests answered 500 or 503 at random.
	// Changeable later with SetErrorRate.
	ErrorRate float64
	// Down answers every request 503. Changeable later with SetDown.
	Down bool

	// Logger receives one record per request. Default: discarded.
	Logger *slog.Logger
}

// Simulator is a DGII stand-in: an http.Handler serving DGII's e-CF web
// services (FACTS §1) for the three environments, with state in memory.
// It is safe for concurrent use.
type Simulator struct {
	cfg Config
	now func() time.Time
	log *slog.Logger

	down      atomic.Bool
	errorRate atomic.Uint64 // math.Float64bits
	latency   atomic.Int64  // time.Duration

	mu         sync.Mutex
	seeds      map[string]seed // by valor
	seedOrder  []string
	tokens     map[string]tokenInfo
	tokenOrder []string
	byTrackID  map[string]*submission
	byDoc      map[docKey][]*submission
	order      []*submission // every send, oldest first, for eviction
	voids      map[voidKey][][2]int64
	receipts   map[receiptKey]*receipt         // what the simulated receivers got
	approvals  map[receiptKey]*approvalReceipt // the approvals the simulated issuers took
}

// New returns a simulator with cfg's defaults filled in.
func New(cfg Config) *Simulator {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.TokenTTL <= 0 {
		cfg.TokenTTL = DefaultTokenTTL
	}
	if cfg.StallTimeout <= 0 {
		cfg.StallTimeout = DefaultStallTimeout
	}
	if cfg.MaxSubmissions <= 0 {
		cfg.MaxSubmissions = DefaultMaxSubmissions
	}
	if cfg.ProcessingDelay < 0 {
		cfg.ProcessingDelay = 0
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Simulator{
		cfg:       cfg,
		now:       cfg.Now,
		log:       cfg.Logger,
		seeds:     map[string]seed{},
		tokens:    map[string]tokenInfo{},
		byTrackID: map[string]*submission{},
		byDoc:     map[docKey][]*submission{},
		voids:     map[voidKey][][2]int64{},
		receipts:  map[receiptKey]*receipt{},
		approvals: map[receiptKey]*approvalReceipt{},
	}
	s.SetDown(cfg.Down)
	s.SetErrorRate(cfg.ErrorRate)
	s.SetLatency(cfg.Latency)
	return s
}

// SetDown makes every service answer 503 (true) or serve again (false).
func (s *Simulator) SetDown(down bool) { s.down.Store(down) }

// SetErrorRate sets the fraction (0 to 1) of requests answered 500 or 503.
func (s *Simulator) SetErrorRate(rate float64) {
	s.errorRate.Store(math.Float64bits(max(0, min(1, rate))))
}

// SetLatency delays every answer by d.
func (s *Simulator) SetLatency(d time.Duration) { s.latency.Store(int64(max(0, d))) }

// The environments' path segments.
var envs = map[string]sello.Environment{"testecf": sello.EnvTest, "certecf": sello.EnvCert, "ecf": sello.EnvProd}

// ServeHTTP routes /{env}/{service}/… case-insensitively, as DGII does.
func (s *Simulator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	sw := &statusWriter{ResponseWriter: w, status: 200}
	s.serve(sw, r)
	s.log.Debug("dgiisim", "method", r.Method, "path", r.URL.Path, "status", sw.status, "duration_ms", time.Since(start).Milliseconds())
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (s *Simulator) serve(w http.ResponseWriter, r *http.Request) {
	if d := time.Duration(s.latency.Load()); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	if s.down.Load() {
		unavailable(w)
		return
	}
	if rate := math.Float64frombits(s.errorRate.Load()); rate > 0 && mrand.Float64() < rate {
		if mrand.IntN(2) == 0 {
			http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		} else {
			unavailable(w)
		}
		return
	}

	parts := strings.Split(strings.Trim(strings.ToLower(r.URL.Path), "/"), "/")
	env, ok := envs[parts[0]]
	if !ok || len(parts) < 2 {
		http.NotFound(w, r)
		return
	}
	if r.Method == http.MethodPost && len(parts) == 3 && parts[1] == "simulador" {
		switch parts[2] {
		case "enviarecf":
			s.enviarECF(w, r, env)
			return
		case "enviaracecf":
			s.enviarACECF(w, r, env)
			return
		}
	}
	if parts[1] == "emisorreceptor" {
		s.emisorReceptor(w, r, env, r.Method+" "+strings.Join(parts[2:], "/"))
		return
	}
	route := r.Method + " " + strings.Join(parts[1:], "/")
	switch route {
	case "GET autenticacion/api/autenticacion/semilla":
		s.semilla(w, r, env)
		return
	case "POST autenticacion/api/autenticacion/validarsemilla":
		s.validarSemilla(w, r, env)
		return
	}
	handlers := map[string]func(http.ResponseWriter, *http.Request, sello.Environment){
		"POST recepcion/api/facturaselectronicas":                      s.recepcion,
		"GET consultaresultado/api/consultas/estado":                   s.consultaResultado,
		"POST recepcionfc/api/recepcion/ecf":                           s.recepcionFC,
		"GET consultarfce/api/consultas/consulta":                      s.consultaRFCE,
		"GET consultatrackids/api/trackids/consulta":                   s.consultaTrackIDs,
		"GET consultaestado/api/consultas/estado":                      s.consultaEstado,
		"GET consultadirectorio/api/consultas/listado":                 s.directorio,
		"GET consultadirectorio/api/consultas/obtenerdirectorioporrnc": s.directorio,
		"POST aprobacioncomercial/api/aprobacioncomercial":             s.aprobacionComercial,
		"POST anulacionrangos/api/operaciones/anularrango":             s.anulacion,
	}
	h, ok := handlers[route]
	if !ok {
		http.NotFound(w, r)
		return
	}
	if !s.authorized(r, env) {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	h(w, r, env)
}

func unavailable(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "30")
	http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
}

// query returns a query parameter by case-insensitive name, as ASP.NET
// binds them.
func query(r *http.Request, name string) string {
	for k, v := range r.URL.Query() {
		if strings.EqualFold(k, name) && len(v) > 0 {
			return strings.TrimSpace(v[0])
		}
	}
	return ""
}

// Authentication.

const (
	maxSeeds  = 10_000
	maxTokens = 10_000
	seedTTL   = 10 * time.Minute
)

type seed struct {
	env    sello.Environment
	issued time.Time
	used   bool
}

type tokenInfo struct {
	env     sello.Environment
	expires time.Time
	subject string
}

func randomString(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// semilla issues a new seed, pretty-printed as DGII does.
func (s *Simulator) semilla(w http.ResponseWriter, r *http.Request, env sello.Environment) {
	now := s.now()
	valor := randomString(48)
	s.mu.Lock()
	s.seeds[valor] = seed{env: env, issued: now}
	s.seedOrder = append(s.seedOrder, valor)
	for len(s.seedOrder) > maxSeeds {
		delete(s.seeds, s.seedOrder[0])
		s.seedOrder = s.seedOrder[1:]
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	fmt.Fprintf(w, `<?xml version="1.0" encoding="utf-8"?>
<SemillaModel xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">
  <valor>%s</valor>
  <fecha>%s</fecha>
</SemillaModel>`, valor, now.In(sello.DRZone).Format("2006-01-02T15:04:05.0000000-07:00"))
}

// validarSemilla trades a signed, issued, unused seed for a token.
func (s *Simulator) validarSemilla(w http.ResponseWriter, r *http.Request, env sello.Environment) {
	refuse := func(msg string) {
		respond(w, r, http.StatusBadRequest, obj{{"error", "Semilla no válida"}, {"mensaje", msg}}, "RespuestaAutenticacion", "")
	}
	up, fail := readUpload(w, r)
	if fail != "" {
		refuse(fail)
		return
	}
	doc, err := parseXML(up.content)
	if err != nil || doc.name != "SemillaModel" || doc.get("valor") == "" {
		refuse("El archivo no es una semilla válida.")
		return
	}
	var subject string
	if s.cfg.Verify != nil {
		cert, err := s.cfg.Verify(up.content)
		if err != nil {
			refuse("Firma del certificado invalida")
			return
		}
		subject = cert.Subject.SerialNumber
	}
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	sd, ok := s.seeds[doc.get("valor")]
	if !ok || sd.used || sd.env != env || now.Sub(sd.issued) > seedTTL {
		refuse("La semilla no fue emitida, ya fue usada o expiró.")
		return
	}
	sd.used = true
	s.seeds[doc.get("valor")] = sd
	token := fakeJWT(now, now.Add(s.cfg.TokenTTL))
	s.tokens[token] = tokenInfo{env: env, expires: now.Add(s.cfg.TokenTTL), subject: subject}
	s.tokenOrder = append(s.tokenOrder, token)
	for len(s.tokenOrder) > maxTokens {
		delete(s.tokens, s.tokenOrder[0])
		s.tokenOrder = s.tokenOrder[1:]
	}
	respond(w, r, http.StatusOK, obj{
		{"token", token},
		{"expira", now.Add(s.cfg.TokenTTL).UTC().Format("2006-01-02T15:04:05Z")},
		{"expedido", now.UTC().Format("2006-01-02T15:04:05Z")},
	}, "RespuestaAutenticacion", "")
}

// fakeJWT returns an opaque token shaped like DGII's JWT.
func fakeJWT(nbf, exp time.Time) string {
	h := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	p := base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil,
		`{"jti":%q,"nbf":%d,"exp":%d,"iss":"DGII.FE","aud":"USUARIOS.DGII.FE"}`, randomString(12), nbf.Unix(), exp.Unix()))
	return h + "." + p + "." + randomString(32)
}

// authorized checks the Bearer token: issued, unexpired, for env.
func (s *Simulator) authorized(r *http.Request, env sello.Environment) bool {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return false
	}
	s.mu.Lock()
	t, ok := s.tokens[strings.TrimSpace(token)]
	s.mu.Unlock()
	return ok && t.env == env && s.now().Before(t.expires)
}

// Uploads.

type upload struct {
	fileName string
	content  []byte
}

const maxUpload = 10 << 20

// readUpload reads the multipart part "xml". It refuses what DGII refuses:
// a body without Content-Length (chunked: "Multipart cannot be empty"), no
// part named xml. It reads the body to its end, so the server notices when
// the client hangs up.
func readUpload(w http.ResponseWriter, r *http.Request) (upload, string) {
	defer io.Copy(io.Discard, r.Body)
	if r.ContentLength < 0 || len(r.TransferEncoding) > 0 {
		return upload{}, "Multipart cannot be empty"
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "multipart/form-data" {
		return upload{}, "Tipo de archivo no válido, favor proveer un XML"
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxUpload)
	mr, err := r.MultipartReader()
	if err != nil {
		return upload{}, "Multipart cannot be empty"
	}
	for {
		p, err := mr.NextPart()
		if err != nil {
			return upload{}, "Archivo no válido: falta el parámetro xml"
		}
		if p.FormName() != "xml" {
			continue
		}
		// The part is smaller than the body, whose length is known: room
		// for all of it (up to 64 KiB, what the client says is not trusted
		// further) and for ReadFrom's last read, which finds the end.
		buf := bytes.NewBuffer(make([]byte, 0, min(r.ContentLength, 64<<10)+bytes.MinRead))
		if _, err := buf.ReadFrom(p); err != nil {
			return upload{}, "Archivo no válido"
		}
		if buf.Len() == 0 {
			return upload{}, "Multipart cannot be empty"
		}
		return upload{fileName: p.FileName(), content: buf.Bytes()}, ""
	}
}

// fileNameRE is DGII's file name for e-CF, RFCE, ACECF and ARECF: an RNC
// (9 digits) or cédula (11) and an e-NCF.
var fileNameRE = regexp.MustCompile(`^(\d{9}|\d{11})(E\d{12})\.xml$`)

// errStall ends a handler that held its answer until the client left.
var errStall = errors.New("client left")

// stall holds a request for StallTimeout or until the client hangs up.
func (s *Simulator) stall(ctx context.Context) error {
	t := time.NewTimer(s.cfg.StallTimeout)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return errStall
	}
}
