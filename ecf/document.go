package ecf

import (
	"github.com/sello-do/sello"
)

// Type is the document's TipoeCF ("" when absent).
func (d *Document) Type() sello.DocumentType {
	if e := d.ECF.Encabezado; e != nil && e.IdDoc != nil {
		return sello.DocumentType(e.IdDoc.TipoeCF)
	}
	return ""
}

// ENCF is IdDoc.eNCF ("" when absent).
func (d *Document) ENCF() string {
	if e := d.ECF.Encabezado; e != nil && e.IdDoc != nil {
		return e.IdDoc.ENCF
	}
	return ""
}

// Total is Totales.MontoTotal with exactly two decimals ("1180.00"), or ""
// before Check has computed it.
func (d *Document) Total() string {
	if e := d.ECF.Encabezado; e != nil && e.Totales != nil && e.Totales.MontoTotal != nil {
		return e.Totales.MontoTotal.Value().StringFixed(2)
	}
	return ""
}

// ITBIS is Totales.TotalITBIS with two decimals, or "" when absent.
func (d *Document) ITBIS() string {
	if e := d.ECF.Encabezado; e != nil && e.Totales != nil && e.Totales.TotalITBIS != nil {
		return e.Totales.TotalITBIS.Value().StringFixed(2)
	}
	return ""
}

// BuyerRNC is Comprador.RNCComprador, or "".
func (d *Document) BuyerRNC() string {
	if e := d.ECF.Encabezado; e != nil && e.Comprador != nil {
		return e.Comprador.RNCComprador
	}
	return ""
}

// IssueDate is Emisor.FechaEmision (the zero Date when absent or invalid).
func (d *Document) IssueDate() sello.Date {
	if e := d.ECF.Encabezado; e != nil && e.Emisor != nil {
		if t, ok := parseDGIIDate(e.Emisor.FechaEmision); ok {
			return sello.DateOf(t)
		}
	}
	return sello.Date{}
}

// Number sets IdDoc.eNCF to encf when absent, or checks that it equals encf.
// For the types that carry FechaVencimientoSecuencia (all but 32 and 34) it
// sets that field from seq.ExpiresOn (dd-MM-yyyy) when absent, or checks
// that it equals seq.ExpiresOn; with a sequence without expiry the client
// must give the field. Returns VALIDATION_FAILED with details, or nil.
func (d *Document) Number(encf sello.ENCF, seq *sello.Sequence) error {
	var p sello.Problems
	if d.ECF.Encabezado == nil {
		d.ECF.Encabezado = &Encabezado{}
	}
	if d.ECF.Encabezado.IdDoc == nil {
		d.ECF.Encabezado.IdDoc = &IdDoc{}
	}
	id := d.ECF.Encabezado.IdDoc
	want := encf.String()
	switch {
	case id.ENCF == "":
		id.ENCF = want
	case id.ENCF != want:
		p.Addf(pIdDoc+"eNCF", "Must be %s, the number assigned to this document; got %s.", want, truncate(id.ENCF, 40))
	}
	t := d.Type()
	if t == "" {
		t = encf.Type
	}
	if t.HasSequenceExpiry() {
		var expiry string
		if seq != nil && seq.ExpiresOn != nil {
			expiry = seq.ExpiresOn.DGII()
		}
		switch {
		case id.FechaVencimientoSecuencia == "" && expiry == "":
			p.Addf(pIdDoc+"FechaVencimientoSecuencia", "Required for type %s: the sequence has no registered expiry, so give the date DGII authorized (dd-MM-yyyy).", t)
		case id.FechaVencimientoSecuencia == "":
			id.FechaVencimientoSecuencia = expiry
		case expiry != "" && !sameDate(id.FechaVencimientoSecuencia, *seq.ExpiresOn):
			p.Addf(pIdDoc+"FechaVencimientoSecuencia", "Must be %s, the expiry of the sequence of %s; got %s.", expiry, want, truncate(id.FechaVencimientoSecuencia, 40))
		}
	} else if id.FechaVencimientoSecuencia != "" {
		p.Addf(pIdDoc+"FechaVencimientoSecuencia", "Not allowed for type %s: DGII's format says FechaVencimientoSecuencia must not appear in this type.", t)
	}
	return p.Err()
}

func sameDate(s string, d sello.Date) bool {
	t, ok := parseDGIIDate(s)
	return ok && sello.DateOf(t) == d
}
