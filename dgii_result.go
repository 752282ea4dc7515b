package sello

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// DGIIResult is DGII's answer, in the one shape the API gives it wherever
// DGII answered (docs/api.md, Conventions): a document's verdict, a
// certification row's, a void's, the DGII leg of a commercial approval.
// DGII answers these services in different forms (a verdict's integer
// codigo and estado with {codigo, valor} messages; anulación's string
// codigo, nombre and plain-text messages); NewDGIITextResult reads the
// latter into this shape.
type DGIIResult struct {
	// Codigo is DGII's codigo (for a verdict: 1 Aceptado, 2 Rechazado, 3 En
	// Proceso, 4 Aceptado Condicional); nil when DGII's answer carried
	// none that is a whole number.
	Codigo *int
	// Estado is DGII's estado (anulación calls it nombre); "" when DGII
	// gave none.
	Estado   string
	Mensajes []DGIIMessage
	// SecuenciaUtilizada says, for a rejected document, whether its e-NCF
	// is spent; nil when DGII did not say (and for every other answer).
	SecuenciaUtilizada *bool
}

// DGIIMessage is one of DGII's messages.
type DGIIMessage struct {
	// Codigo is the message's code; nil for a message DGII gave as text
	// alone.
	Codigo *int   `json:"codigo"`
	Valor  string `json:"valor"`
}

// Verdict is the status DGII's verdict gives a document (FACTS §1.4):
// codigo 1 Aceptado, 4 Aceptado Condicional, 2 Rechazado. Any other
// codigo (0 No encontrado, 3 En Proceso), or none, is no verdict: an error.
func (r *DGIIResult) Verdict() (Status, error) {
	if r.Codigo == nil {
		return "", fmt.Errorf("dgii answered no codigo (%s), not a verdict", r.Estado)
	}
	switch *r.Codigo {
	case 1:
		return StatusAccepted, nil
	case 4:
		return StatusAcceptedConditional, nil
	case 2:
		return StatusRejected, nil
	}
	return "", fmt.Errorf("dgii answered codigo %d (%s), not a verdict", *r.Codigo, r.Estado)
}

// NewDGIITextResult is DGII's answer given as text: codigo as a string
// (nil when it is not a whole number), estado (anulación's nombre) and
// messages without codes.
func NewDGIITextResult(codigo, estado string, mensajes []string) *DGIIResult {
	r := &DGIIResult{Estado: estado}
	if n, err := strconv.Atoi(strings.TrimSpace(codigo)); err == nil {
		r.Codigo = &n
	}
	for _, m := range mensajes {
		r.Mensajes = append(r.Mensajes, DGIIMessage{Valor: m})
	}
	return r
}

// dgiiResultJSON is a DGIIResult's JSON: every field present, null where
// there is no value.
type dgiiResultJSON struct {
	Codigo             *int          `json:"codigo"`
	Estado             *string       `json:"estado"`
	Mensajes           []DGIIMessage `json:"mensajes"`
	SecuenciaUtilizada *bool         `json:"secuenciaUtilizada"`
}

// MarshalJSON writes r with every field: estado null when empty, mensajes
// [] when none.
func (r DGIIResult) MarshalJSON() ([]byte, error) {
	m := r.Mensajes
	if m == nil {
		m = []DGIIMessage{}
	}
	return json.Marshal(dgiiResultJSON{Codigo: r.Codigo, Estado: nullable(r.Estado), Mensajes: m, SecuenciaUtilizada: r.SecuenciaUtilizada})
}

// UnmarshalJSON reads r in every form Sello stored it: this one, and a
// void's earlier {codigo: "1", nombre, mensajes: ["…"]}.
func (r *DGIIResult) UnmarshalJSON(b []byte) error {
	var v struct {
		Codigo             json.RawMessage   `json:"codigo"`
		Estado             *string           `json:"estado"`
		Nombre             *string           `json:"nombre"`
		Mensajes           []json.RawMessage `json:"mensajes"`
		SecuenciaUtilizada *bool             `json:"secuenciaUtilizada"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*r = DGIIResult{SecuenciaUtilizada: v.SecuenciaUtilizada, Codigo: jsonCodigo(v.Codigo)}
	switch {
	case v.Estado != nil:
		r.Estado = *v.Estado
	case v.Nombre != nil:
		r.Estado = *v.Nombre
	}
	for _, raw := range v.Mensajes {
		var m DGIIMessage
		if err := json.Unmarshal(raw, &m.Valor); err != nil {
			var o struct {
				Codigo json.RawMessage `json:"codigo"`
				Valor  string          `json:"valor"`
			}
			if err := json.Unmarshal(raw, &o); err != nil {
				return fmt.Errorf("dgii message: %w", err)
			}
			m = DGIIMessage{Codigo: jsonCodigo(o.Codigo), Valor: o.Valor}
		}
		r.Mensajes = append(r.Mensajes, m)
	}
	return nil
}

// jsonCodigo reads a codigo written as a number or as a string of one;
// nil for null, absent or anything else.
func jsonCodigo(raw json.RawMessage) *int {
	var n int
	if json.Unmarshal(raw, &n) == nil && len(raw) > 0 && string(raw) != "null" {
		return &n
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
			return &n
		}
	}
	return nil
}

// String is r in one line, as the CLI prints it: codigo, estado and
// messages ("2 Rechazado: 30 MontoTotal no cuadra"), "-" for what DGII did
// not give.
func (r *DGIIResult) String() string {
	codigo := "-"
	if r.Codigo != nil {
		codigo = strconv.Itoa(*r.Codigo)
	}
	s := strings.TrimSpace(codigo + " " + r.Estado)
	var ms []string
	for _, m := range r.Mensajes {
		ms = append(ms, m.String())
	}
	if len(ms) > 0 {
		s += ": " + strings.Join(ms, "; ")
	}
	return s
}

// String is m as "codigo valor", or its valor alone when it has no codigo.
func (m DGIIMessage) String() string {
	if m.Codigo == nil {
		return m.Valor
	}
	return strconv.Itoa(*m.Codigo) + " " + m.Valor
}
