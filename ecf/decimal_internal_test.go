package ecf

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/shopspring/decimal"
)

// parseDecimalText is ParseDecimal without its fast path.
func parseDecimalText(s string) (*Decimal, error) {
	v, err := decimal.NewFromString(s)
	if err != nil {
		return nil, err
	}
	return newDecimal(v), nil
}

// assertSameDecimal checks that ParseDecimal reads s as its text round
// trip does.
func assertSameDecimal(t *testing.T, s string) {
	t.Helper()
	if !plainDecimal(s) {
		return
	}
	got, err := ParseDecimal(s)
	want, wantErr := parseDecimalText(s)
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("ParseDecimal(%q): %v, want %v", s, err, wantErr)
	}
	if err == nil && (!reflect.DeepEqual(got, want) || got.String() != want.String() || got.Scale() != want.Scale()) {
		t.Fatalf("ParseDecimal(%q) = %#v (%s), want %#v (%s)", s, got, got, want, want)
	}
}

func TestParseDecimalFast(t *testing.T) {
	for _, s := range []string{
		"0", "0.00", "-0.00", "+0", "1180", "1180.00", "1180.5", "12.3456", "12.34560", "0.5", ".5", "5.",
		"-3.25", "+5", "007.10", "999999999999999.99", "9999999999999999.99", "99999999999999999.9",
		"123456789012345678", "1234567890123456789", "0.000000000000000001", "-0.001", "1.00000000000000000000",
	} {
		assertSameDecimal(t, s)
	}
	for i := range 5000 {
		assertSameDecimal(t, fmt.Sprintf("%d.%03d", i*7919, i%1000))
	}
}

func FuzzParseDecimal(f *testing.F) {
	f.Add("1180.00")
	f.Add("-0.001")
	f.Fuzz(assertSameDecimal)
}

// TestCheckDecimalLimits: the precomputed limits give the text
// comparison's answer.
func TestCheckDecimalLimits(t *testing.T) {
	for _, s := range []string{"999.99", "1000.00", "-999.9999", "-1000", "9999999999999999.99", "10000000000000000.00", "-10000000000000000.001", "0.00", "1000.123456789"} {
		for _, digits := range []int{3, 16} {
			v := MustDecimal(s).Value()
			want := v.Abs().GreaterThanOrEqual(decimal.New(1, int32(digits)))
			if got := tooManyDigits(v, digits); got != want {
				t.Errorf("tooManyDigits(%s, %d) = %v, want %v", s, digits, got, want)
			}
		}
	}
}
