package portal

import "testing"

// SetCSVMaxRows bounds the documents' CSV export at n rows for the test
// tb (the bound is the package's: tests that change it do not run in
// parallel).
func SetCSVMaxRows(tb testing.TB, n int) {
	old := csvMaxRows
	csvMaxRows = n
	tb.Cleanup(func() { csvMaxRows = old })
}
