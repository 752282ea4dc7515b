package xmldsig

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/beevik/etree"
)

// elementWithAttrs returns an element with n distinct attributes, the
// last one repeating the first when dup.
func elementWithAttrs(n int, dup bool) *etree.Element {
	el := etree.NewElement("ECF")
	for i := range n {
		el.Attr = append(el.Attr, etree.Attr{Key: fmt.Sprintf("a%d", i), Value: "1"})
	}
	if dup {
		el.Attr = append(el.Attr, etree.Attr{Key: "a0", Value: "2"})
	}
	return el
}

// TestCheckAttrs: the duplicate check costs time linear in the
// attributes, behind the limits Verify checks first (it took 27 s on
// 80,000 attributes when it compared every pair).
func TestCheckAttrs(t *testing.T) {
	t.Run("ErrDuplicate", func(t *testing.T) {
		err := checkAttrs(elementWithAttrs(100_000, true))
		if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "duplicate attribute a0 on ECF") {
			t.Errorf("got %v, want a duplicate a0", err)
		}
	})
	t.Run("Linear", func(t *testing.T) {
		// 40,000 attributes cost about what putting their names in a set
		// costs (the pairwise check took a thousand times that). The best
		// of five runs each.
		el := elementWithAttrs(40_000, true)
		best := func(f func()) time.Duration {
			d := time.Duration(1 << 62)
			for range 5 {
				start := time.Now()
				f()
				d = min(d, time.Since(start))
			}
			return d
		}
		check := best(func() { checkAttrs(el) })
		set := best(func() {
			m := make(map[attrName]bool, len(el.Attr))
			for _, a := range el.Attr {
				m[attrName{a.Space, a.Key}] = true
			}
		})
		if check > 10*set {
			t.Errorf("checking 40,000 attributes took %v; a set of their names %v", check, set)
		}
	})
	t.Run("ErrDuplicatePrefixed", func(t *testing.T) {
		el := etree.NewElement("a")
		el.CreateAttr("p:x", "1")
		el.CreateAttr("x", "1")
		el.Attr = append(el.Attr, etree.Attr{Space: "p", Key: "x", Value: "2"})
		if err := checkAttrs(el); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "duplicate attribute p:x on a") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("OK", func(t *testing.T) {
		if err := checkAttrs(elementWithAttrs(1000, false)); err != nil {
			t.Error(err)
		}
	})
}

// BenchmarkCheckAttrs is the duplicate check over one element's 1,000,
// 10,000 and 100,000 attributes: linear (Verify refuses more than 16
// before it gets here).
func BenchmarkCheckAttrs(b *testing.B) {
	for _, n := range []int{1000, 10_000, 100_000} {
		el := elementWithAttrs(n, false)
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			for b.Loop() {
				if err := checkAttrs(el); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
