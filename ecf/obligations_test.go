package ecf

import (
	"strings"
	"testing"
)

// TestObligations checks the table's shape: one known row per path, ten
// codes 0–3 each, and no child more demanding than a parent that must not
// appear.
func TestObligations(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range obligations {
		if seen[f.path] {
			t.Errorf("%s: duplicate row", f.path)
		}
		seen[f.path] = true
		if len(f.codes) != 10 || strings.Trim(f.codes, "0123") != "" {
			t.Errorf("%s: codes %q must be ten of 0–3", f.path, f.codes)
		}
		if i := strings.LastIndexByte(f.path, '.'); i > 0 {
			parent, ok := fieldsByPath[f.path[:i]]
			if !ok {
				t.Errorf("%s: no row for the parent", f.path)
				continue
			}
			for col := range 10 {
				if parent.codes[col] == '0' && f.codes[col] != '0' {
					t.Errorf("%s: code %c for column %d under a forbidden parent", f.path, f.codes[col], col)
				}
			}
		}
	}
}
