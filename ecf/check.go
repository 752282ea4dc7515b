package ecf

import (
	"time"

	"github.com/sello-do/sello"
)

// Issuance is who issues a document and when: what Check needs besides
// the document.
type Issuance struct {
	TenantRNC string    // RNCEmisor must equal this
	Now       time.Time // for date rules (FechaEmision not in the future in DR time, etc.)
}

// Check validates the document against DGII's rules for its TipoeCF and fills
// in the computed totals: Totales fields omitted are computed from the items
// by DGII's rules; fields given are checked against the computed values with
// DGII's tolerances. It returns nil, or VALIDATION_FAILED whose details list
// every violation. It checks the e-NCF's format and type when present, not
// its sequence.
func Check(d *Document, c Issuance) error {
	if d == nil {
		var p sello.Problems
		p.Add("ECF", "Required.")
		return p.Err()
	}
	var p sello.Problems
	check(d, c, &p, nil)
	return p.Err()
}

// check adds the violations of d to p, leaving out those at or under the
// path of one of skip (problems already reported there).
func check(d *Document, c Issuance, p *sello.Problems, skip []sello.ErrorDetail) {
	ch := &checker{doc: d, issuance: c, col: -1, problems: p, skip: skip}
	ch.typ = sello.DocumentType(ch.idDoc().TipoeCF)
	ch.col = typeIndex(ch.typ)
	ch.checkStructure()
	if ch.tooManyItems {
		return // the rules walk the items: the count is the problem
	}
	ch.checkRules()
}

// checker collects every violation of one document.
type checker struct {
	doc      *Document
	issuance Issuance
	typ      sello.DocumentType
	col      int // typ's column in the obligation table, -1 when unknown
	problems *sello.Problems
	skip     []sello.ErrorDetail
	// received is set when reading another taxpayer's e-CF (ReadXML):
	// the elements Sello fills in for its own documents are required.
	received bool
	// tooManyItems is set when the document has more items than its type
	// allows: the structure check reports it and walks no item.
	tooManyItems bool
	// totals computed from the items (totals.go), valid when computed.
	sum      *sums
	computed bool
}

func (c *checker) add(path, msg string) {
	if !covered(path, c.skip) {
		c.problems.Add(path, msg)
	}
}

func (c *checker) addf(path, format string, args ...any) {
	if !covered(path, c.skip) {
		c.problems.Addf(path, format, args...)
	}
}

func (c *checker) addText(path string, t sello.Text) {
	if !covered(path, c.skip) {
		c.problems.AddText(path, t)
	}
}

// Nil-safe accessors: an absent section reads as an empty one.

func (c *checker) enc() *Encabezado {
	if c.doc.ECF.Encabezado == nil {
		return &Encabezado{}
	}
	return c.doc.ECF.Encabezado
}

func (c *checker) idDoc() *IdDoc {
	if e := c.enc(); e.IdDoc != nil {
		return e.IdDoc
	}
	return &IdDoc{}
}

func (c *checker) emisor() *Emisor {
	if e := c.enc(); e.Emisor != nil {
		return e.Emisor
	}
	return &Emisor{}
}

func (c *checker) items() []Item {
	if c.doc.ECF.DetallesItems == nil {
		return nil
	}
	return c.doc.ECF.DetallesItems.Item
}

// allowed reports whether the element at generic path may appear in this type.
func (c *checker) allowed(path string) bool { return c.col < 0 || code(path, c.col) != '0' }

// conditional reports whether the element at generic path has DGII code 2
// (conditional) for this type.
func (c *checker) conditional(path string) bool { return c.col >= 0 && code(path, c.col) == '2' }
