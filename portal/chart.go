package portal

import (
	"math"
	"strconv"

	"github.com/shopspring/decimal"
)

// barChart is a bar chart drawn by the server as SVG (chart.templ): bars
// per group (a day, a month), one per series side by side or stacked. It
// carries its numbers for the table that goes with it, so that a reader
// who cannot see the bars reads the same figures.
type barChart struct {
	// ID prefixes the ids of its title and description.
	ID    string
	Title string
	// Desc says what the chart shows, for screen readers (its summary).
	Desc    string
	Stacked bool
	Series  []chartSeries
	Groups  []chartGroup
	// Axis is the first column's heading in the table (Day, Month).
	Axis string
	// Money: the values are amounts (the table shows them as RD$).
	Money bool
	// Total adds a column with each group's total (stacked charts).
	Total string
}

// chartSeries is one series: its name and its colour's class.
type chartSeries struct {
	Name, Class string
}

// chartGroup is one group of bars: its label under the axis (Tick, ""
// for none), its name in the table, and one value per series.
type chartGroup struct {
	Tick, Name string
	Values     []decimal.Decimal
	// Text is each value as the table shows it.
	Text []string
	// TotalText is the group's total as the table shows it.
	TotalText string
	// InTable: the group has a row in the table (days without documents
	// have none).
	InTable bool
}

// The chart's drawing area, in the SVG's user units (it scales to the
// page's width: the viewBox keeps its proportions).
const (
	chartW      = 640.0
	chartH      = 250.0
	chartLeft   = 62.0
	chartRight  = 6.0
	chartTop    = 12.0
	chartBottom = 34.0
)

// bar is one drawn rectangle.
type bar struct {
	X, Y, W, H string
	Class      string
}

// gridLine is one horizontal line of the value axis, with its label.
type gridLine struct {
	Y, Label string
}

// tick is one label under the axis.
type tick struct {
	X, Label string
}

// top is the value the axis goes up to: the largest bar (or stack),
// rounded up to 1, 2, 2.5 or 5 times a power of ten (counts: 1, 2 or 4,
// and at least 2, so that half of it is a whole number too).
func (c *barChart) top() float64 {
	max := 0.0
	for _, g := range c.Groups {
		sum := 0.0
		for _, v := range g.Values {
			f, _ := v.Float64()
			f = math.Max(f, 0)
			if c.Stacked {
				sum += f
			} else {
				sum = math.Max(sum, f)
			}
		}
		max = math.Max(max, sum)
	}
	steps := []float64{1, 2, 2.5, 5, 10}
	if !c.Money {
		steps = []float64{1, 2, 4, 10}
		max = math.Max(max, 2)
	}
	if max <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(max)))
	for _, m := range steps {
		if max <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// Bars are the chart's rectangles; negative values (a month of more
// credit notes than sales) draw nothing: the table has them.
func (c *barChart) Bars() []bar {
	top := c.top()
	plotW, plotH := chartW-chartLeft-chartRight, chartH-chartTop-chartBottom
	slot := plotW / float64(max(len(c.Groups), 1))
	var out []bar
	for i, g := range c.Groups {
		x0 := chartLeft + float64(i)*slot
		if c.Stacked {
			w := slot * 0.72
			y := chartTop + plotH
			for s, v := range g.Values {
				f, _ := v.Float64()
				if f <= 0 {
					continue
				}
				h := f / top * plotH
				y -= h
				out = append(out, bar{X: num(x0 + (slot-w)/2), Y: num(y), W: num(w), H: num(h), Class: c.Series[s].Class})
			}
			continue
		}
		w := slot * 0.8 / float64(len(c.Series))
		for s, v := range g.Values {
			f, _ := v.Float64()
			if f <= 0 {
				continue
			}
			h := f / top * plotH
			out = append(out, bar{X: num(x0 + slot*0.1 + float64(s)*w), Y: num(chartTop + plotH - h), W: num(w * 0.92), H: num(h), Class: c.Series[s].Class})
		}
	}
	return out
}

// Grid is the value axis: zero, half the top and the top.
func (c *barChart) Grid() []gridLine {
	top := c.top()
	plotH := chartH - chartTop - chartBottom
	var out []gridLine
	for _, f := range []float64{0, 0.5, 1} {
		out = append(out, gridLine{Y: num(chartTop + plotH - f*plotH), Label: compact(top*f, !c.Money)})
	}
	return out
}

// Ticks are the labels under the axis.
func (c *barChart) Ticks() []tick {
	slot := (chartW - chartLeft - chartRight) / float64(max(len(c.Groups), 1))
	var out []tick
	for i, g := range c.Groups {
		if g.Tick != "" {
			out = append(out, tick{X: num(chartLeft + (float64(i)+0.5)*slot), Label: g.Tick})
		}
	}
	return out
}

// Rows are the groups the table lists.
func (c *barChart) Rows() []chartGroup {
	var out []chartGroup
	for _, g := range c.Groups {
		if g.InTable {
			out = append(out, g)
		}
	}
	return out
}

func (c *barChart) ViewBox() string { return "0 0 " + num(chartW) + " " + num(chartH) }

// AxisX is where the value axis' labels end.
func (c *barChart) AxisX() string { return num(chartLeft - 6) }

// LineX1 and LineX2 are where the grid lines start and end.
func (c *barChart) LineX1() string { return num(chartLeft) }
func (c *barChart) LineX2() string { return num(chartW - chartRight) }

// TickY is the baseline of the labels under the axis.
func (c *barChart) TickY() string { return num(chartH - 8) }

// num is a coordinate with at most one decimal.
func num(f float64) string { return strconv.FormatFloat(math.Round(f*10)/10, 'f', -1, 64) }

// compact is an axis label: 1500 → 1.5k, 2000000 → 2M (whole numbers
// for counts).
func compact(f float64, whole bool) string {
	switch {
	case f >= 1e6:
		return strconv.FormatFloat(f/1e6, 'f', -1, 64) + "M"
	case f >= 1e3:
		return strconv.FormatFloat(f/1e3, 'f', -1, 64) + "k"
	case whole:
		return strconv.FormatFloat(math.Round(f), 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}
