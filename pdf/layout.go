package pdf

import (
	"github.com/johnfercher/maroto/v2/pkg/components/col"
	"github.com/johnfercher/maroto/v2/pkg/components/row"
	"github.com/johnfercher/maroto/v2/pkg/components/text"
	"github.com/johnfercher/maroto/v2/pkg/core"
	"github.com/johnfercher/maroto/v2/pkg/core/entity"
)

// pager adds rows to a maroto document and breaks pages itself, so that
// every page starts with the page header and the items table repeats its
// column heads, and so that the timbre can be pushed to the bottom of the
// last page.
//
// maroto breaks a page when a row does not fit, measuring rows with its
// provider. pager measures them with the same provider and the same root
// cell (captured by a zero-height probe row, see probe), so its running
// height equals maroto's; before a row that would not fit it fills the page
// with an empty row, and the next row then opens a new page exactly where
// pager expects.
type pager struct {
	m      core.Maroto
	cfg    *entity.Config
	prov   core.Provider
	cell   entity.Cell // the root cell: usable width and height of a page
	avail  float64     // usable height kept for rows
	used   float64     // height of the rows on the current page
	pages  int
	header func() []core.Row // rows that open every page
}

func newPager(m core.Maroto, reserve float64) *pager {
	p := &pager{m: m, cfg: m.GetCurrentConfig()}
	pr := &probe{Component: text.New("")}
	m.AddRows(row.New().Add(col.New().Add(pr)))
	p.prov, p.cell = pr.prov, pr.cell
	p.avail = p.cell.Height - reserve
	p.pages = 1
	return p
}

// height measures r as maroto will.
func (p *pager) height(r core.Row) float64 {
	r.SetConfig(p.cfg)
	return r.GetHeight(p.prov, &p.cell)
}

// fits reports whether h more millimetres fit on the current page.
func (p *pager) fits(h float64) bool { return p.used+h <= p.avail }

// remaining is the usable height left on the current page.
func (p *pager) remaining() float64 { return p.avail - p.used }

// add appends rows, opening a new page (with the page header) before a row
// that does not fit.
func (p *pager) add(rows ...core.Row) {
	for _, r := range rows {
		h := p.height(r)
		if !p.fits(h) && p.used > 0 {
			p.newPage()
		}
		p.m.AddRows(r)
		p.used += h
	}
}

// addTogether appends rows on one page: on a new page if they do not all
// fit on this one.
func (p *pager) addTogether(rows ...core.Row) {
	var h float64
	for _, r := range rows {
		h += p.height(r)
	}
	if !p.fits(h) && p.used > 0 {
		p.newPage()
	}
	for _, r := range rows {
		p.m.AddRows(r)
		p.used += p.height(r)
	}
}

// newPage fills the current page and starts the next with the page header.
func (p *pager) newPage() {
	// A filler a hair shorter than what is left fits maroto's test
	// (used + h <= height); the next row then cannot, and maroto opens the
	// page.
	if fill := p.cell.Height - p.used - 0.01; fill > 0 {
		p.m.AddRows(row.New(fill))
	}
	p.used = 0
	p.pages++
	if p.header != nil {
		for _, r := range p.header() {
			p.m.AddRows(r)
			p.used += p.height(r)
		}
	}
}

// space adds an empty row of height h (when positive) on the current page.
func (p *pager) space(h float64) {
	if h <= 0 {
		return
	}
	p.m.AddRows(row.New(h))
	p.used += h
}

// probe is a component of height zero that records the provider and cell
// maroto measures it with.
type probe struct {
	core.Component
	prov core.Provider
	cell entity.Cell
}

func (pr *probe) GetHeight(prov core.Provider, cell *entity.Cell) float64 {
	if pr.prov == nil {
		pr.prov, pr.cell = prov, *cell
	}
	return 0
}

func (pr *probe) Render(core.Provider, *entity.Cell) {}
