package ecf

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"
)

// Decimal is an exact decimal amount, quantity or rate. It decodes from a JSON
// number or string in plain notation ("1180", 1180.5, "-3.25") without ever
// passing through float64, and encodes as a JSON string with at least two
// decimals ("1180.00", "12.3456").
type Decimal struct {
	v decimal.Decimal
}

// maxDecimalLen bounds the length of a decimal literal, far above DGII's 20
// digits, so that absurd input cannot cost time.
const maxDecimalLen = 40

// ParseDecimal parses s in plain decimal notation: an optional minus sign,
// digits, and an optional dot followed by digits.
func ParseDecimal(s string) (*Decimal, error) {
	if !plainDecimal(s) {
		return nil, fmt.Errorf("%q is not a decimal number in plain notation (like 1180.00)", truncate(s, 40))
	}
	if d, ok := parseSmallDecimal(s); ok {
		return d, nil
	}
	v, err := decimal.NewFromString(s)
	if err != nil {
		return nil, fmt.Errorf("%q is not a decimal number", truncate(s, 40))
	}
	return newDecimal(v), nil
}

// MustDecimal is ParseDecimal that panics on error, for tests and constants.
func MustDecimal(s string) *Decimal {
	d, err := ParseDecimal(s)
	if err != nil {
		panic(err)
	}
	return d
}

// newDecimal keeps v exactly, with at least two decimals of scale so that
// equal values decode to equal Decimals whatever their spelling.
func newDecimal(v decimal.Decimal) *Decimal {
	var scale int32
	// Drop trailing zeros beyond the second decimal, then pad to two.
	s := v.String() // String trims trailing zeros
	if i := strings.IndexByte(s, '.'); i >= 0 {
		scale = int32(len(s) - i - 1)
	} else {
		scale = 0
	}
	if scale < 2 {
		scale = 2
	}
	r, _ := decimal.NewFromString(v.StringFixed(scale))
	return &Decimal{v: r}
}

// parseSmallDecimal is ParseDecimal for a plain decimal s (plainDecimal)
// of at most 18 significant digits, the amounts of e-CFs, computed without
// the text round trips of newDecimal; false for any other s.
func parseSmallDecimal(s string) (*Decimal, bool) {
	neg := s[0] == '-'
	if s[0] == '-' || s[0] == '+' {
		s = s[1:]
	}
	whole, frac, _ := strings.Cut(s, ".")
	frac = strings.TrimRight(frac, "0")
	whole = strings.TrimLeft(whole, "0")
	scale := max(len(frac), 2)
	if len(whole)+scale > 18 {
		return nil, false
	}
	var coef int64
	for _, digits := range []string{whole, frac} {
		for i := range len(digits) {
			coef = coef*10 + int64(digits[i]-'0')
		}
	}
	for range scale - len(frac) {
		coef *= 10
	}
	if coef == 0 {
		return nil, false // zero's representation is left to newDecimal
	}
	if neg {
		coef = -coef
	}
	return &Decimal{v: decimal.New(coef, -int32(scale))}, true
}

func plainDecimal(s string) bool {
	if len(s) == 0 || len(s) > maxDecimalLen {
		return false
	}
	i := 0
	if s[0] == '-' || s[0] == '+' {
		i++
	}
	digits, dot, frac := 0, false, 0
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			if dot {
				frac++
			} else {
				digits++
			}
		case c == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return digits > 0 && (!dot || frac > 0)
}

// Value returns the exact value.
func (d *Decimal) Value() decimal.Decimal {
	if d == nil {
		return decimal.Zero
	}
	return d.v
}

// Scale is the number of decimals the value needs (at least 2).
func (d *Decimal) Scale() int32 { return -d.v.Exponent() }

// String formats the value with its scale: "1180.00", "12.3456".
func (d *Decimal) String() string {
	if d == nil {
		return ""
	}
	return d.v.StringFixed(d.Scale())
}

// MarshalJSON encodes the value as a JSON string.
func (d *Decimal) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON accepts a JSON number or string in plain notation.
func (d *Decimal) UnmarshalJSON(b []byte) error {
	s := string(b)
	if len(s) >= 2 && s[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	}
	v, err := ParseDecimal(s)
	if err != nil {
		return err
	}
	*d = *v
	return nil
}

// Equal reports whether d and o hold the same value (nil equals nil only).
func (d *Decimal) Equal(o *Decimal) bool {
	if d == nil || o == nil {
		return d == o
	}
	return d.v.Equal(o.v)
}

// amountOf returns v rounded half away from zero to two decimals as a Decimal.
func amountOf(v decimal.Decimal) *Decimal { return newDecimal(round2(v)) }

// round2 rounds half away from zero on the third decimal (DGII's rule).
func round2(v decimal.Decimal) decimal.Decimal { return v.Round(2) }

// Code is a DGII code or integer (TipoeCF, IndicadorFacturacion, NumeroLinea,
// TipoMoneda…). It decodes from a JSON string or a JSON number, keeping the
// digits as written, and encodes as a JSON string.
type Code string

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
