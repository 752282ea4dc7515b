package dgiisim

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/dgii"
)

// The simulator as an issuer. In certification DGII's TesteCF sends e-CFs
// to the taxpayer's receiver (FACTS §5.2): SendECF does that for a tenant
// of the running Sello, found through Config.Receivers, so that a tenant's
// receiver services can be exercised with no outside party. The e-CF is a
// fixed type-31 sample of DGII's test counterpart (RNCDGIITest), written
// here rather than with Sello's ecf package, signed with Config.Sign; the
// simulator posts it as any issuer does, with the DGII client's
// dgii.Receptor (authentication, multipart), which needs no copy here.
// The issuer sent it to DGII first, and DGII accepted it: consultaestado
// answers Aceptado for it (its security code, the first six characters of
// its SignatureValue) from before it reaches the receiver, as for the
// simulator's own sends, and No encontrado for any other document under
// its e-NCF.

// SentECF is what a receiver answered to SendECF.
type SentECF struct {
	ENCF   string // the sample's e-NCF
	Status int    // the reception's HTTP status
	Body   []byte // its body: the ARECF when Status is 200
}

// sampleNumber numbers the samples, so that each is a new document: from
// the first send's time in tenths of a second (so that a restarted
// simulator does not repeat an earlier one's numbers), one up each send.
var (
	sampleStart  sync.Once
	sampleNumber atomic.Int64
)

// SendECF sends a sample e-CF of DGII's test counterpart to buyerRNC's
// receiver in env: it authenticates there when the receiver asks (semilla,
// the seed signed with Config.Sign, validacioncertificado), then posts the
// signed e-CF as DGII's issuers do (multipart part xml, file
// {RNCEmisor}{eNCF}.xml). It fails when buyerRNC is not a receiver
// Config.Receivers knows, or Config.Sign is nil.
func (s *Simulator) SendECF(ctx context.Context, hc *http.Client, env sello.Environment, buyerRNC string) (*SentECF, error) {
	if s.cfg.Receivers == nil || s.cfg.Sign == nil {
		return nil, errors.New("dgiisim: SendECF needs Config.Receivers and Config.Sign")
	}
	name, base, ok := s.cfg.Receivers(env, buyerRNC)
	if !ok {
		return nil, fmt.Errorf("dgiisim: %s is not an electronic receiver in %s", buyerRNC, env)
	}
	now := s.now()
	sampleStart.Do(func() { sampleNumber.Store(now.UnixMilli() / 100 % 9_000_000_000) })
	encf := fmt.Sprintf("E31%010d", sampleNumber.Add(1))
	doc, err := s.cfg.Sign([]byte(sampleECF(encf, buyerRNC, name, now)))
	if err != nil {
		return nil, fmt.Errorf("dgiisim: sign the sample: %w", err)
	}
	if err := s.accepted(env, doc, now); err != nil {
		return nil, err
	}
	from := dgii.Sender{Environment: env, RNC: RNCDGIITest, Sign: s.signer}
	body, err := dgii.NewReceptor(dgii.ReceptorConfig{HTTPClient: hc, Now: s.now}).SendECF(ctx, from, receiverEntry(base), RNCDGIITest+encf+".xml", doc)
	return sent(encf, body, err)
}

// accepted records the signed e-CF doc as sent to DGII in env and accepted
// at now, the e-NCF spent.
func (s *Simulator) accepted(env sello.Environment, doc []byte, now time.Time) error {
	parsed, err := parseXML(doc)
	if err != nil {
		return fmt.Errorf("dgiisim: read the signed sample: %w", err)
	}
	sub := &submission{trackID: uuid.NewString()}
	sub.fields(parsed)
	sub.env, sub.received, sub.readyAt = env, now, now
	sub.verdict = verdict{codigo: codigoAceptado, spent: true}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.record(sub)
	return nil
}

// receiverEntry is the directory entry of a receiver whose services are all
// at base, authentication included (as Config.Receivers gives them).
func receiverEntry(base string) dgii.DirectoryEntry {
	return dgii.DirectoryEntry{URLRecepcion: base, URLAceptacion: base, URLOpcional: base}
}

// signer is Config.Sign as the DGII client's receiver wants it.
func (s *Simulator) signer(_ context.Context, xml []byte) ([]byte, error) { return s.cfg.Sign(xml) }

// sent is what a receiver answered: its status and body, a 2xx when err
// is nil, else the answer of a *dgii.ReceptorError; other errors (no
// answer at all) are returned.
func sent(encf string, body []byte, err error) (*SentECF, error) {
	var re *dgii.ReceptorError
	switch {
	case err == nil:
		return &SentECF{ENCF: encf, Status: http.StatusOK, Body: body}, nil
	case errors.As(err, &re) && re.Op != "semilla" && re.Op != "validacioncertificado":
		return &SentECF{ENCF: encf, Status: re.Status, Body: []byte(re.Body)}, nil
	}
	return nil, fmt.Errorf("dgiisim: %w", err)
}

// sampleECF is a type-31 e-CF of DGII's test counterpart to buyerRNC,
// issued now (DR time), one item of RD$1,000.00 plus 18% ITBIS.
func sampleECF(encf, buyerRNC, buyerName string, now time.Time) string {
	dr := now.In(sello.DRZone)
	return strings.NewReplacer(
		"{ENCF}", encf,
		"{EXPIRES}", fmt.Sprintf("31-12-%d", dr.Year()+1),
		"{ISSUED}", dr.Format("02-01-2006"),
		"{BUYER}", buyerRNC,
		"{BUYERNAME}", xmlEscape(buyerName),
		"{SIGNED}", dr.Format("02-01-2006 15:04:05"),
		"{ISSUER}", RNCDGIITest,
	).Replace(`<?xml version="1.0" encoding="utf-8"?><ECF><Encabezado><Version>1.0</Version><IdDoc><TipoeCF>31</TipoeCF><eNCF>{ENCF}</eNCF><FechaVencimientoSecuencia>{EXPIRES}</FechaVencimientoSecuencia><IndicadorMontoGravado>0</IndicadorMontoGravado><TipoIngresos>01</TipoIngresos><TipoPago>1</TipoPago></IdDoc><Emisor><RNCEmisor>{ISSUER}</RNCEmisor><RazonSocialEmisor>DIRECCION GENERAL DE IMPUESTOS INTERNOS</RazonSocialEmisor><DireccionEmisor>Av. Mexico 48, Santo Domingo</DireccionEmisor><FechaEmision>{ISSUED}</FechaEmision></Emisor><Comprador><RNCComprador>{BUYER}</RNCComprador><RazonSocialComprador>{BUYERNAME}</RazonSocialComprador></Comprador><Totales><MontoGravadoTotal>1000.00</MontoGravadoTotal><MontoGravadoI1>1000.00</MontoGravadoI1><ITBIS1>18</ITBIS1><TotalITBIS>180.00</TotalITBIS><TotalITBIS1>180.00</TotalITBIS1><MontoTotal>1180.00</MontoTotal></Totales></Encabezado><DetallesItems><Item><NumeroLinea>1</NumeroLinea><IndicadorFacturacion>1</IndicadorFacturacion><NombreItem>Servicio de prueba</NombreItem><IndicadorBienoServicio>2</IndicadorBienoServicio><CantidadItem>1.00</CantidadItem><PrecioUnitarioItem>1000.00</PrecioUnitarioItem><MontoItem>1000.00</MontoItem></Item></DetallesItems><FechaHoraFirma>{SIGNED}</FechaHoraFirma></ECF>`)
}

// enviarECF is SendECF on request (POST /{env}/simulador/enviarecf?rnc=):
// the simulator's own control, not a DGII service. It answers the sample's
// e-NCF and the receiver's status and answer as JSON, or 400 when the RNC
// is not a receiver the simulator knows.
func (s *Simulator) enviarECF(w http.ResponseWriter, r *http.Request, env sello.Environment) {
	hc := &http.Client{Timeout: 30 * time.Second}
	sent, err := s.SendECF(r.Context(), hc, env, query(r, "rnc"))
	if err != nil {
		respond(w, r, http.StatusBadRequest, obj{{"mensajes", []string{err.Error()}}}, "Error", "")
		return
	}
	respond(w, r, http.StatusOK, obj{{"encf", sent.ENCF}, {"status", sent.Status}, {"respuesta", string(sent.Body)}}, "Envio", "")
}

// SendACECF plays the buyer of a tenant's e-CF that DGII received (one the
// tenant sent to recepción): it approves it (approve true) or rejects it with
// reason, in a signed ACECF posted to the tenant's commercial approval
// service, found through Config.Receivers, authenticating there first; the
// ACECF's fields are those of the e-CF as DGII received it, and its buyer
// that e-CF's RNCComprador. It fails when DGII has no such e-CF of issuerRNC
// in env, or the issuer is not a receiver Config.Receivers knows.
func (s *Simulator) SendACECF(ctx context.Context, hc *http.Client, env sello.Environment, issuerRNC, encf string, approve bool, reason string) (*SentECF, error) {
	if s.cfg.Receivers == nil || s.cfg.Sign == nil {
		return nil, errors.New("dgiisim: SendACECF needs Config.Receivers and Config.Sign")
	}
	s.mu.Lock()
	var sub *submission
	for _, prev := range s.byDoc[docKey{env, issuerRNC, encf}] {
		sub = prev
	}
	s.mu.Unlock()
	if sub == nil || sub.rncComprador == "" {
		return nil, fmt.Errorf("dgiisim: DGII has no e-CF %s of %s with a buyer in %s", encf, issuerRNC, env)
	}
	_, base, ok := s.cfg.Receivers(env, issuerRNC)
	if !ok {
		return nil, fmt.Errorf("dgiisim: %s is not an electronic receiver in %s", issuerRNC, env)
	}
	estado, detail := "1", ""
	if !approve {
		estado, detail = "2", "<DetalleMotivoRechazo>"+xmlEscape(reason)+"</DetalleMotivoRechazo>"
	}
	total, err := twoDecimals(sub.montoTotal)
	if err != nil {
		return nil, err
	}
	acecf := `<?xml version="1.0" encoding="utf-8"?><ACECF><DetalleAprobacionComercial><Version>1.0</Version><RNCEmisor>` + issuerRNC +
		`</RNCEmisor><eNCF>` + encf + `</eNCF><FechaEmision>` + sub.fechaEmision + `</FechaEmision><MontoTotal>` + total +
		`</MontoTotal><RNCComprador>` + sub.rncComprador + `</RNCComprador><Estado>` + estado + `</Estado>` + detail +
		`<FechaHoraAprobacionComercial>` + s.now().In(sello.DRZone).Format("02-01-2006 15:04:05") +
		`</FechaHoraAprobacionComercial></DetalleAprobacionComercial></ACECF>`
	doc, err := s.cfg.Sign([]byte(acecf))
	if err != nil {
		return nil, fmt.Errorf("dgiisim: sign the ACECF: %w", err)
	}
	from := dgii.Sender{Environment: env, RNC: sub.rncComprador, Sign: s.signer}
	err = dgii.NewReceptor(dgii.ReceptorConfig{HTTPClient: hc, Now: s.now}).SendApproval(ctx, from, receiverEntry(base), sub.rncComprador+encf+".xml", doc)
	return sent(encf, nil, err)
}

// twoDecimals writes an amount with exactly two decimals, as the ACECF's
// MontoTotal is (FACTS §1.8).
func twoDecimals(amount string) (string, error) {
	whole, frac, _ := strings.Cut(amount, ".")
	if whole == "" || len(frac) > 2 && strings.TrimRight(frac[2:], "0") != "" {
		return "", fmt.Errorf("dgiisim: MontoTotal %q has no two-decimal form", amount)
	}
	frac = (frac + "00")[:2]
	return whole + "." + frac, nil
}

// enviarACECF is SendACECF on request (POST
// /{env}/simulador/enviaracecf?rnc=&encf=&estado=aprobado|rechazado&motivo=):
// the simulator's own control, not a DGII service.
func (s *Simulator) enviarACECF(w http.ResponseWriter, r *http.Request, env sello.Environment) {
	hc := &http.Client{Timeout: 30 * time.Second}
	approve := query(r, "estado") != "rechazado"
	sent, err := s.SendACECF(r.Context(), hc, env, query(r, "rnc"), strings.ToUpper(query(r, "encf")), approve, query(r, "motivo"))
	if err != nil {
		respond(w, r, http.StatusBadRequest, obj{{"mensajes", []string{err.Error()}}}, "Error", "")
		return
	}
	respond(w, r, http.StatusOK, obj{{"encf", sent.ENCF}, {"status", sent.Status}, {"respuesta", string(sent.Body)}}, "Envio", "")
}
