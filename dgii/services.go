package dgii

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/sello-do/sello"
)

// DGII's status codes (consultaresultado, recepción FC, consultaestado).
const (
	CodigoNoEncontrado        = 0
	CodigoAceptado            = 1
	CodigoRechazado           = 2
	CodigoEnProceso           = 3
	CodigoAceptadoCondicional = 4
)

// Result is DGII's verdict on an e-CF (consultaresultado) or an RFCE
// (recepción FC).
type Result struct {
	// TrackID is "" for an RFCE.
	TrackID string
	// Codigo is one of the Codigo constants.
	Codigo int
	Estado string
	// RNC is the issuer's RNC.
	RNC  string
	ENCF string
	// SecuenciaUtilizada, meaningful when Rechazado, says whether the
	// e-NCF is spent (true) or may be used again in another document
	// (false). nil when DGII did not say.
	SecuenciaUtilizada *bool
	// FechaRecepcion is when DGII received the e-CF, zero when DGII gave
	// no date or one in an unknown format; FechaRecepcionText is the date
	// as DGII wrote it.
	FechaRecepcion     time.Time
	FechaRecepcionText string
	// Mensajes are DGII's validation messages, without the empty
	// placeholder DGII sends with acceptances.
	Mensajes []sello.DGIIMessage
}

// Final reports whether the verdict will not change: anything but En
// Proceso (and No encontrado, which may still become a verdict shortly
// after a send).
func (r *Result) Final() bool {
	return r.Codigo == CodigoAceptado || r.Codigo == CodigoRechazado || r.Codigo == CodigoAceptadoCondicional
}

// Status is the fiscal status the verdict leads to, or "" when it is not
// final.
func (r *Result) Status() sello.Status {
	switch r.Codigo {
	case CodigoAceptado:
		return sello.StatusAccepted
	case CodigoAceptadoCondicional:
		return sello.StatusAcceptedConditional
	case CodigoRechazado:
		return sello.StatusRejected
	}
	return ""
}

// DGIIResult is the verdict in the domain's form.
func (r *Result) DGIIResult() *sello.DGIIResult {
	m := r.Mensajes
	if m == nil {
		m = []sello.DGIIMessage{}
	}
	return &sello.DGIIResult{
		Codigo:             new(r.Codigo),
		Estado:             r.Estado,
		Mensajes:           m,
		SecuenciaUtilizada: r.SecuenciaUtilizada,
	}
}

// TrackIDEntry is one send of an e-NCF (consultatrackids).
type TrackIDEntry struct {
	TrackID string
	Estado  string
	// Codigo is the Codigo constant the estado text names, -1 if unknown.
	Codigo             int
	FechaRecepcion     time.Time
	FechaRecepcionText string
}

// Estado is consultaestado's answer: the state of an e-CF looked up by
// issuer, e-NCF, buyer and security code. Amounts are as DGII wrote them.
type Estado struct {
	// Codigo is 0 No encontrado, 1 Aceptado, 2 Rechazado (4 Aceptado
	// Condicional for type 32 under RD$250,000 only).
	Codigo          int
	Estado          string
	RNCEmisor       string
	ENCF            string
	MontoTotal      string
	TotalITBIS      string
	FechaEmision    string
	FechaFirma      string
	RNCComprador    string
	CodigoSeguridad string
	IDExtranjero    string
}

// DirectoryEntry is an electronic taxpayer's service hosts. The sender
// appends the standard suffixes (/fe/recepcion/api/ecf, …) to them.
type DirectoryEntry struct {
	Nombre        string
	RNC           string
	URLRecepcion  string
	URLAceptacion string
	// URLOpcional is the authentication host, "" when the taxpayer
	// declares none.
	URLOpcional string
}

// Approval codes (aprobación comercial).
const (
	ApprovalAprobada  = 1 // DGII took the approval
	ApprovalRechazada = 2 // invoice not found, or the approval could not be processed
)

// ApprovalResult is DGII's answer to a commercial approval (ACECF).
type ApprovalResult struct {
	// Codigo is ApprovalAprobada or ApprovalRechazada.
	Codigo   int
	Estado   string
	Mensajes []string
}

// DGIIResult is the answer in the domain's form.
func (r *ApprovalResult) DGIIResult() *sello.DGIIResult {
	d := sello.NewDGIITextResult("", r.Estado, r.Mensajes)
	d.Codigo = new(r.Codigo)
	return d
}

// VoidResult is DGII's answer to a range void (ANECF). Its codigo's values
// are not documented by DGII; read Mensajes.
type VoidResult struct {
	RNC      string
	Codigo   string
	Nombre   string
	Mensajes []string
}

// SendECF sends a signed e-CF to recepción as {RNC}{eNCF}.xml and returns
// DGII's trackId: an acknowledgement, not a verdict (ask Result). It is
// never retried. Errors: ErrUncertain (DGII may have it: reconcile with
// TrackIDs before sending again), ErrUnavailable alone (it did not get
// there), ErrUnauthorized, *Error for a refusal (4xx: bad file name, type
// 32 under RD$250,000, …), or the Signer's error.
func (s *Session) SendECF(ctx context.Context, encf string, signedXML []byte) (trackID string, err error) {
	resp, err := s.do(ctx, request{
		op: "recepcion", method: http.MethodPost, base: s.c.urls.ECF,
		path: "recepcion/api/facturaselectronicas", auth: true,
		file: &filePart{name: s.rnc + encf + ".xml", content: signedXML},
	})
	if err != nil {
		return "", err
	}
	trackID, de, err := parseRecepcion(resp.body)
	if err != nil {
		// A 2xx we cannot read: DGII took something.
		return "", fmt.Errorf("dgii: recepcion: %w: %w", ErrUncertain, err)
	}
	if de != nil {
		de.Status, de.Body = resp.status, string(resp.body[:min(len(resp.body), maxErrorBody)])
		return "", fmt.Errorf("dgii: recepcion: no trackId: %w", de)
	}
	return trackID, nil
}

// Result asks consultaresultado for the verdict on trackID. Codigo 3 (En
// Proceso) means ask again later; 0 (No encontrado) an unknown trackId.
// Retried on network errors, 5xx and 429.
func (s *Session) Result(ctx context.Context, trackID string) (*Result, error) {
	resp, err := s.do(ctx, request{
		op: "consultaresultado", method: http.MethodGet, base: s.c.urls.ECF,
		path: "consultaresultado/api/consultas/estado", auth: true, idempotent: true,
		query: url.Values{"trackid": {trackID}},
	})
	if err != nil {
		return nil, err
	}
	r, err := parseResult(resp.body)
	if err != nil {
		return nil, fmt.Errorf("dgii: consultaresultado: %w", err)
	}
	if r.TrackID == "" {
		r.TrackID = trackID
	}
	return r, nil
}

// SendRFCE sends a signed consumer-invoice summary (type 32 under
// RD$250,000) to recepción FC and returns DGII's synchronous verdict (no
// trackId). DGII answers some rejections with an HTTP error whose body is
// the verdict; those come back as a Result, not an error. Errors as
// SendECF; reconcile an uncertain send with Estado.
func (s *Session) SendRFCE(ctx context.Context, encf string, signedRFCE []byte) (*Result, error) {
	resp, err := s.do(ctx, request{
		op: "recepcionfc", method: http.MethodPost, base: s.c.urls.FC,
		path: "recepcionfc/api/recepcion/ecf", auth: true,
		file: &filePart{name: s.rnc + encf + ".xml", content: signedRFCE},
	})
	if err != nil {
		var de *Error
		if errors.As(err, &de) && de.Status >= 400 && de.Status < 500 && de.Status != 401 {
			if r, perr := parseResult([]byte(de.Body)); perr == nil && r.Final() && r.Estado != "" {
				if r.ENCF == "" {
					r.ENCF = encf
				}
				return r, nil
			}
		}
		return nil, err
	}
	r, err := parseResult(resp.body)
	if err != nil {
		return nil, fmt.Errorf("dgii: recepcionfc: %w: %w", ErrUncertain, err)
	}
	if r.ENCF == "" {
		r.ENCF = encf
	}
	return r, nil
}

// TrackIDs lists every send of the session's e-NCF encf with its state,
// oldest first as DGII lists them; empty when DGII has none. Retried on
// network errors, 5xx and 429.
func (s *Session) TrackIDs(ctx context.Context, encf string) ([]TrackIDEntry, error) {
	resp, err := s.do(ctx, request{
		op: "consultatrackids", method: http.MethodGet, base: s.c.urls.ECF,
		path: "consultatrackids/api/trackids/consulta", auth: true, idempotent: true,
		query: url.Values{"rncemisor": {s.rnc}, "encf": {encf}},
	})
	if err != nil {
		// DGII answers "TrackId no encontrado." with an error status.
		var de *Error
		if errors.As(err, &de) && (de.Status == 404 || de.Status == 400) {
			if entries, perr := parseTrackIDs([]byte(de.Body)); perr == nil && len(entries) == 0 && mentionsNotFound(de) {
				return []TrackIDEntry{}, nil
			}
		}
		return nil, err
	}
	entries, err := parseTrackIDs(resp.body)
	if err != nil {
		return nil, fmt.Errorf("dgii: consultatrackids: %w", err)
	}
	return entries, nil
}

func mentionsNotFound(e *Error) bool {
	for _, m := range e.Mensajes {
		if codigoFromEstado(m) == CodigoNoEncontrado {
			return true
		}
	}
	return false
}

// Estado asks consultaestado for the state of an e-CF or RFCE by issuer,
// e-NCF, buyer ("" when none) and security code ("" to omit). Retried on
// network errors, 5xx and 429.
func (s *Session) Estado(ctx context.Context, rncEmisor, encf, rncComprador, securityCode string) (*Estado, error) {
	q := url.Values{"rncemisor": {rncEmisor}, "ncfelectronico": {encf}}
	if rncComprador != "" {
		q.Set("rnccomprador", rncComprador)
	}
	if securityCode != "" {
		q.Set("codigoseguridad", securityCode)
	}
	resp, err := s.do(ctx, request{
		op: "consultaestado", method: http.MethodGet, base: s.c.urls.ECF,
		path: "consultaestado/api/consultas/estado", auth: true, idempotent: true, query: q,
	})
	if err != nil {
		return nil, err
	}
	e, err := parseEstado(resp.body)
	if err != nil {
		return nil, fmt.Errorf("dgii: consultaestado: %w", err)
	}
	return e, nil
}

// Directory returns the directory entries of the electronic taxpayer rnc
// (obtenerdirectorioporrnc), or the whole directory (listado) when rnc is
// "". DGII answers either a list or a single object; both come back as a
// list, empty when the taxpayer is not electronic. Retried on network
// errors, 5xx and 429.
func (s *Session) Directory(ctx context.Context, rnc string) ([]DirectoryEntry, error) {
	r := request{
		op: "consultadirectorio", method: http.MethodGet, base: s.c.urls.ECF,
		path: "consultadirectorio/api/consultas/listado", auth: true, idempotent: true,
	}
	if rnc != "" {
		r.path = "consultadirectorio/api/consultas/obtenerdirectorioporrnc"
		r.query = url.Values{"RNC": {rnc}}
	}
	resp, err := s.do(ctx, r)
	if err != nil {
		var de *Error
		if errors.As(err, &de) && de.Status == 404 {
			return []DirectoryEntry{}, nil
		}
		return nil, err
	}
	entries, err := parseDirectory(resp.body)
	if err != nil {
		return nil, fmt.Errorf("dgii: consultadirectorio: %w", err)
	}
	return entries, nil
}

// SendApproval sends a signed commercial approval (ACECF) to DGII as
// fileName ({RNCComprador}{eNCF}.xml). Never retried; errors as SendECF.
func (s *Session) SendApproval(ctx context.Context, fileName string, signedACECF []byte) (*ApprovalResult, error) {
	resp, err := s.do(ctx, request{
		op: "aprobacioncomercial", method: http.MethodPost, base: s.c.urls.ECF,
		path: "aprobacioncomercial/api/aprobacioncomercial", auth: true,
		file: &filePart{name: fileName, content: signedACECF},
	})
	if err != nil {
		return nil, err
	}
	r, err := parseApproval(resp.body)
	if err != nil {
		return nil, fmt.Errorf("dgii: aprobacioncomercial: %w: %w", ErrUncertain, err)
	}
	return r, nil
}

// VoidRanges sends a signed range void (ANECF) to anulación as
// {RNC}ANECF.xml (DGII defines no file name for it). Never retried; errors
// as SendECF. A 4xx *Error carries DGII's codigo and mensajes (ranges
// already used, NoLinea out of order, …).
func (s *Session) VoidRanges(ctx context.Context, signedANECF []byte) (*VoidResult, error) {
	resp, err := s.do(ctx, request{
		op: "anulacionrangos", method: http.MethodPost, base: s.c.urls.ECF,
		path: "anulacionrangos/api/operaciones/anularrango", auth: true,
		file: &filePart{name: s.rnc + "ANECF.xml", content: signedANECF},
	})
	if err != nil {
		return nil, err
	}
	r, err := parseVoid(resp.body)
	if err != nil {
		return nil, fmt.Errorf("dgii: anulacionrangos: %w: %w", ErrUncertain, err)
	}
	return r, nil
}

// Reachable asks DGII's authentication service of env for a seed, which
// needs no certificate: nil when DGII answers, else an error as the other
// calls' (ErrUnavailable when DGII is down). The contingency job asks it
// while an environment is in contingency.
func (c *Client) Reachable(ctx context.Context, env sello.Environment) error {
	s := &Session{c: c, env: env, slot: &tokenSlot{}}
	_, err := s.do(ctx, request{
		op: "semilla", method: http.MethodGet, base: c.urls.ECF,
		path: "autenticacion/api/autenticacion/semilla", idempotent: true,
	})
	return err
}
