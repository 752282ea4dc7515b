package ecf

import (
	"testing"

	"github.com/shopspring/decimal"
)

func TestAppendDecimal(t *testing.T) {
	for _, s := range []string{
		"0", "0.00", "1", "-1", "0.05", "-0.05", "0.0001", "1180.00", "123.4567", "-3.25", "999999999999999.99",
		"9999999999999999.9999", "-9999999999999999.9999", "12345678901234567890.12",
	} {
		d := MustDecimal(s)
		if got, want := string(appendDecimal([]byte("x"), d)), "x"+d.String(); got != want {
			t.Errorf("%s: got %s, want %s", s, got, want)
		}
	}
	// A Decimal built without newDecimal (scale 0 or positive exponent).
	for _, v := range []decimal.Decimal{decimal.New(5, 3), decimal.New(-7, 0), decimal.Zero} {
		d := &Decimal{v: v}
		if got, want := string(appendDecimal(nil, d)), d.String(); got != want {
			t.Errorf("%v: got %s, want %s", v, got, want)
		}
	}
}
