package ecf

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/sello-do/sello"
)

// ANECFRange is one range of unused e-NCF sequentials to void: From through
// To (inclusive) of type Type, series E.
type ANECFRange struct {
	Type     sello.DocumentType
	From, To int64
}

// ANECF is DGII's Anulación de e-NCF (ANECF.xsd): the issuer voids ranges
// of sequentials that were never used, or whose e-CFs were signed but sent
// neither to DGII nor to the buyer.
type ANECF struct {
	RNCEmisor string
	At        time.Time // FechaHoraAnulacioneNCF, written in GMT-4
	Ranges    []ANECFRange
}

// maxANECFRanges is how many Secuencias one Anulacion line may hold.
const maxANECFRanges = 10_000

// XML returns the unsigned <ANECF> (compact, with the XML declaration; the
// signer appends the Signature to the root). Ranges are grouped by type
// into Anulacion lines in DGII's type order, NoLinea 1, 2…, each with its
// ranges in ascending order and its count, and the Encabezado carries the
// total count. Returns VALIDATION_FAILED with a detail per problem, paths
// "ANECF.RNCEmisor", "ANECF.Ranges[2]"….
func (a *ANECF) XML() ([]byte, error) {
	lines, err := a.lines()
	if err != nil {
		return nil, err
	}
	var total int64
	for _, l := range lines {
		total += l.count
	}
	w := xmlWriter{b: make([]byte, 0, 256+96*len(a.Ranges))}
	w.raw(XMLDeclaration)
	w.raw("<ANECF><Encabezado>")
	w.text("Version", "1.0")
	w.text("RncEmisor", a.RNCEmisor)
	w.text("CantidadeNCFAnulados", strconv.FormatInt(total, 10))
	w.text("FechaHoraAnulacioneNCF", dgiiDateTime(a.At))
	w.raw("</Encabezado><DetalleAnulacion>")
	for i, l := range lines {
		w.raw("<Anulacion>")
		w.text("NoLinea", strconv.Itoa(i+1))
		w.text("TipoeCF", string(l.typ))
		w.raw("<TablaRangoSecuenciasAnuladaseNCF>")
		for _, r := range l.ranges {
			w.raw("<Secuencias>")
			w.text("SecuenciaeNCFDesde", sello.ENCF{Type: r.Type, Number: r.From}.String())
			w.text("SecuenciaeNCFHasta", sello.ENCF{Type: r.Type, Number: r.To}.String())
			w.raw("</Secuencias>")
		}
		w.raw("</TablaRangoSecuenciasAnuladaseNCF>")
		w.text("CantidadeNCFAnulados", strconv.FormatInt(l.count, 10))
		w.raw("</Anulacion>")
	}
	w.raw("</DetalleAnulacion></ANECF>")
	return w.b, nil
}

// anulacion is one Anulacion line: the ranges of one type.
type anulacion struct {
	typ    sello.DocumentType
	ranges []ANECFRange
	count  int64
}

// lines validates a and groups its ranges by type.
func (a *ANECF) lines() ([]anulacion, error) {
	var v validation
	v.rnc("ANECF.RNCEmisor", a.RNCEmisor)
	v.time("ANECF.FechaHoraAnulacioneNCF", a.At)
	if len(a.Ranges) == 0 {
		v.add("ANECF.Ranges", "Required: at least one range to void.")
	}
	byType := map[sello.DocumentType][]int{} // indexes into a.Ranges
	for i, r := range a.Ranges {
		p := fmt.Sprintf("ANECF.Ranges[%d]", i)
		switch {
		case !slices.Contains(sello.DocumentTypes, r.Type):
			v.add(p+".Type", "Must be one of 31, 32, 33, 34, 41, 43, 44, 45, 46, 47.")
		case r.From < 1 || r.From > sello.MaxSequenceNumber:
			v.addf(p+".From", "Must be a sequential from 1 to %d.", int64(sello.MaxSequenceNumber))
		case r.To < r.From || r.To > sello.MaxSequenceNumber:
			v.addf(p+".To", "Must be from From (%d) to %d.", r.From, int64(sello.MaxSequenceNumber))
		default:
			byType[r.Type] = append(byType[r.Type], i)
		}
	}
	var lines []anulacion
	for _, t := range sello.DocumentTypes {
		idx := byType[t]
		if len(idx) == 0 {
			continue
		}
		slices.SortStableFunc(idx, func(i, j int) int { return cmp.Compare(a.Ranges[i].From, a.Ranges[j].From) })
		l := anulacion{typ: t}
		for k, i := range idx {
			r := a.Ranges[i]
			if k > 0 && r.From <= a.Ranges[idx[k-1]].To {
				v.addf(fmt.Sprintf("ANECF.Ranges[%d]", i), "Overlaps ANECF.Ranges[%d]: each sequential is voided once.", idx[k-1])
			}
			l.ranges = append(l.ranges, r)
			l.count += r.To - r.From + 1
		}
		if len(l.ranges) > maxANECFRanges {
			v.addf("ANECF.Ranges", "At most %d ranges of one type (DGII's limit per Anulacion); type %s has %d.", maxANECFRanges, t, len(l.ranges))
		}
		lines = append(lines, l)
	}
	var total int64
	for _, l := range lines {
		total += l.count
	}
	if total > sello.MaxSequenceNumber {
		v.addf("ANECF.Ranges", "At most %d sequentials in one ANECF (CantidadeNCFAnulados has 10 digits); these ranges hold %d.", int64(sello.MaxSequenceNumber), total)
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	return lines, nil
}
