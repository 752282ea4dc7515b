package ecf

import (
	"regexp"
	"strconv"
	"time"

	"github.com/sello-do/sello"
)

// ApprovalState is ACECF's Estado: the buyer's commercial verdict.
type ApprovalState int

// The two commercial verdicts.
const (
	ApprovalAccepted ApprovalState = 1 // Aprobación comercial aprobada
	ApprovalRejected ApprovalState = 2 // Aprobación comercial rechazada
)

// ACECF is DGII's Aprobación Comercial (ACECF.xsd): the buyer's commercial
// approval or rejection of an e-CF DGII has accepted, sent to the issuer and
// copied to DGII. Every field must match the original e-CF.
type ACECF struct {
	RNCEmisor    string     // the e-CF's issuer
	ENCF         string     // the e-CF's e-NCF
	FechaEmision sello.Date // the e-CF's FechaEmision
	MontoTotal   string     // the e-CF's MontoTotal, exactly two decimals ("1180.00")
	RNCComprador string     // the buyer, who approves
	Estado       ApprovalState
	// DetalleMotivoRechazo is why the buyer rejects: required when Estado
	// is ApprovalRejected, at most 250 characters.
	DetalleMotivoRechazo string
	At                   time.Time // FechaHoraAprobacionComercial, written in GMT-4
}

// maxMotivoRechazo is DetalleMotivoRechazo's maximum length.
const maxMotivoRechazo = 250

var (
	rncPattern     = regexp.MustCompile(`^([0-9]{9}|[0-9]{11})$`)
	encfPattern    = regexp.MustCompile(`^[a-zA-Z0-9]{13}$`)
	amount2Pattern = regexp.MustCompile(`^[0-9]{1,16}\.[0-9]{2}$`)
)

// XML returns the unsigned <ACECF> (compact, with the XML declaration;
// the signer appends the Signature to the root). Returns VALIDATION_FAILED
// with a detail per invalid field, paths starting at "ACECF".
func (a *ACECF) XML() ([]byte, error) {
	if err := a.validate(); err != nil {
		return nil, err
	}
	w := xmlWriter{b: make([]byte, 0, 512)}
	w.raw(XMLDeclaration)
	w.raw("<ACECF><DetalleAprobacionComercial>")
	w.text("Version", "1.0")
	w.text("RNCEmisor", a.RNCEmisor)
	w.text("eNCF", a.ENCF)
	w.text("FechaEmision", a.FechaEmision.DGII())
	w.text("MontoTotal", a.MontoTotal)
	w.text("RNCComprador", a.RNCComprador)
	w.text("Estado", strconv.Itoa(int(a.Estado)))
	w.text("DetalleMotivoRechazo", a.DetalleMotivoRechazo)
	w.text("FechaHoraAprobacionComercial", dgiiDateTime(a.At))
	w.raw("</DetalleAprobacionComercial></ACECF>")
	return w.b, nil
}

func (a *ACECF) validate() error {
	var v validation
	const p = "ACECF."
	v.rnc(p+"RNCEmisor", a.RNCEmisor)
	v.encf(p+"eNCF", a.ENCF)
	v.date(p+"FechaEmision", a.FechaEmision)
	if !amount2Pattern.MatchString(a.MontoTotal) {
		v.add(p+"MontoTotal", "Must be the e-CF's MontoTotal with exactly two decimals, like 1180.00.")
	}
	v.rnc(p+"RNCComprador", a.RNCComprador)
	switch a.Estado {
	case ApprovalAccepted:
	case ApprovalRejected:
		if a.DetalleMotivoRechazo == "" {
			v.add(p+"DetalleMotivoRechazo", "Required when Estado is 2 (rejected): say why.")
		}
	default:
		v.add(p+"Estado", "Must be 1 (approved) or 2 (rejected).")
	}
	v.text(p+"DetalleMotivoRechazo", a.DetalleMotivoRechazo, maxMotivoRechazo)
	v.time(p+"FechaHoraAprobacionComercial", a.At)
	return v.err()
}

// validation collects the details of an invalid ACECF, ARECF or ANECF.
type validation struct{ p sello.Problems }

func (v *validation) add(path, msg string)                  { v.p.Add(path, msg) }
func (v *validation) addf(path, format string, args ...any) { v.p.Addf(path, format, args...) }
func (v *validation) addText(path string, t sello.Text)     { v.p.AddText(path, t) }
func (v *validation) err() error                            { return v.p.Err() }

func (v *validation) rnc(path, s string) {
	if !rncPattern.MatchString(s) {
		v.add(path, "Must be an RNC or cédula: 9 or 11 digits.")
	}
}

func (v *validation) encf(path, s string) {
	if !encfPattern.MatchString(s) {
		v.add(path, "Must be an e-NCF: 13 letters and digits, like E310000000001.")
	}
}

func (v *validation) date(path string, d sello.Date) {
	t := time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC)
	if d.Year < 1900 || d.Year > 2099 || sello.DateOf(t) != d {
		v.add(path, "Must be a valid date between 1900 and 2099.")
	}
}

func (v *validation) time(path string, t time.Time) {
	if y := t.In(sello.DRZone).Year(); y < 1900 || y > 2099 {
		v.add(path, "Must be set: the time of the act, between 1900 and 2099.")
	}
}

func (v *validation) text(path, s string, max int) {
	if msg := checkText(s, max); !msg.IsZero() {
		v.addText(path, msg)
	}
}

// NewACECF is the ACECF of the tenant's approval a of the inbound document
// d: the e-CF's issuer, e-NCF, FechaEmision and MontoTotal (with exactly
// two decimals), the tenant as RNCComprador, a's verdict and reason, dated
// when it was asked for (so every run of the job builds the same ACECF).
// Returns VALIDATION_FAILED (XML's checks) when d's fields do not fit.
func NewACECF(d *sello.InboundDocument, a *sello.InboundApproval) (*ACECF, error) {
	total, err := ParseDecimal(d.Total)
	if err != nil {
		return nil, sello.ValidationErrorf("ACECF.MontoTotal", "The e-CF's MontoTotal %s is not a number.", d.Total)
	}
	x := &ACECF{
		RNCEmisor: d.IssuerRNC, ENCF: d.ENCF, FechaEmision: d.IssueDate,
		MontoTotal: total.Value().StringFixed(2), RNCComprador: d.BuyerRNC,
		Estado: ApprovalAccepted, At: a.RequestedAt,
	}
	if a.State == sello.ApprovalRejected {
		x.Estado, x.DetalleMotivoRechazo = ApprovalRejected, a.Reason
	}
	return x, nil
}
