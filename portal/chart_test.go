package portal

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/i18n"
	"github.com/shopspring/decimal"
)

// TestHomeKeys: the catalogue keys Inicio builds (its charts' series,
// the months, the types' short names) are in the catalogue in both
// languages (TestStrings finds only literal keys).
func TestHomeKeys(t *testing.T) {
	var keys []string
	for _, s := range append(append([]stateSeries(nil), issuedSeries...), receivedSeries...) {
		keys = append(keys, s.Key)
	}
	for m := 1; m <= 12; m++ {
		keys = append(keys, fmt.Sprintf("month %d", m), fmt.Sprintf("month %d, short", m))
	}
	for _, typ := range sello.DocumentTypes {
		keys = append(keys, fmt.Sprintf("short name of type %s", typ))
	}
	for _, k := range keys {
		if e, ok := i18n.Lookup(k); !ok || e.EN == "" || e.ES == "" {
			t.Errorf("key %q: %+v, %v", k, e, ok)
		}
	}
}

// TestChartGeometry: the value axis goes up to a round number at or above
// the tallest bar (a stack's sum when stacked; for counts, half of it is
// whole); bars stay inside the drawing; a negative value draws no bar.
func TestChartGeometry(t *testing.T) {
	d := func(fs ...float64) []decimal.Decimal {
		var out []decimal.Decimal
		for _, f := range fs {
			out = append(out, decimal.NewFromFloat(f))
		}
		return out
	}
	for _, c := range []struct {
		chart barChart
		top   float64
		bars  int
	}{
		{barChart{Stacked: true, Series: make([]chartSeries, 2), Groups: []chartGroup{{Values: d(3, 4)}, {Values: d(1, 0)}}}, 10, 3},
		{barChart{Stacked: true, Series: make([]chartSeries, 2), Groups: []chartGroup{{Values: d(1, 0)}}}, 2, 1},
		{barChart{Stacked: true, Series: make([]chartSeries, 1), Groups: []chartGroup{{Values: d(3)}}}, 4, 1},
		{barChart{Money: true, Series: make([]chartSeries, 2), Groups: []chartGroup{{Values: d(1180, 2400)}, {Values: d(-118, 0)}}}, 2500, 2},
		{barChart{Money: true, Series: make([]chartSeries, 2), Groups: []chartGroup{{Values: d(0, 0)}}}, 1, 0},
	} {
		if got := c.chart.top(); got != c.top {
			t.Errorf("%+v: top %v, want %v", c.chart.Groups, got, c.top)
		}
		bars := c.chart.Bars()
		if len(bars) != c.bars {
			t.Errorf("%+v: %d bars, want %d", c.chart.Groups, len(bars), c.bars)
		}
		for _, b := range bars {
			x, _ := strconv.ParseFloat(b.X, 64)
			y, _ := strconv.ParseFloat(b.Y, 64)
			w, _ := strconv.ParseFloat(b.W, 64)
			h, _ := strconv.ParseFloat(b.H, 64)
			if x < chartLeft || x+w > chartW-chartRight || y < chartTop-0.1 || y+h > chartH-chartBottom+0.1 || w <= 0 || h <= 0 {
				t.Errorf("bar %+v outside the drawing", b)
			}
		}
		grid := c.chart.Grid()
		if len(grid) != 3 || grid[0].Label != "0" {
			t.Errorf("grid %+v", grid)
		}
	}
}
