package ecf

import (
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/sello-do/sello"
)

// field is one row of the obligation table: an element, its format, and its
// DGII obligation code per type.
type field struct {
	path   string // generic path without indexes: "ECF.DetallesItems.Item.MontoItem"
	format format
	codes  string // ten codes '0'–'3' in sello.DocumentTypes order
}

type formatKind int

const (
	kGroup formatKind = iota
	kList
	kText
	kAlfa
	kPattern
	kDate
	kDateTime
	kEnum
	kDigits
	kDecimal
	kENCF
)

type sign int

const (
	nonNegative sign = iota
	positive
	signed
)

// format is what DGII's XSD says an element looks like.
type format struct {
	kind      formatKind
	min, max  int            // text length in characters; list max occurs; integer range
	digits    int            // max integer digits (kDigits, kDecimal)
	decimals  int32          // max decimals (kDecimal)
	sign      sign           // kDecimal
	re        *regexp.Regexp // kPattern
	what      sello.Text     // kPattern: what the pattern means
	enum      []string       // kEnum
	enumLabel sello.Text     // kEnum: short description of a long list
}

var (
	group = format{kind: kGroup}

	rnc         = pattern(`^([0-9]{9}|[0-9]{11})$`, sello.Textf("an RNC or cédula: 9 or 11 digits"))
	phone       = pattern(`^[0-9]{3}-[0-9]{3}-[0-9]{4}$`, sello.Textf("a phone number 999-999-9999"))
	email       = patternMax(`^\w+([-+.]\w+)*@\w+([-.]\w+)*\.\w+([-.]\w+)*$`, sello.Textf("an e-mail address"), 80)
	terminoPago = patternMax(`^[\s\p{L}\p{N}_]{1,15}$`, sello.Textf("up to 15 letters, digits or spaces"), 15)
	// encf is checked by sello.ParseENCF, stricter than the XSD's
	// [a-zA-Z0-9]{13}, so that a bad e-NCF gets one precise message.
	encf     = format{kind: kENCF}
	date     = format{kind: kDate}
	dateTime = format{kind: kDateTime}

	amount         = dec(16, 2, nonNegative)
	positiveAmount = dec(16, 2, positive)
	signedAmount   = dec(16, 2, signed)
	quantity3      = dec(16, 3, nonNegative)
	price4         = dec(16, 4, nonNegative)
	percent        = dec(3, 2, positive)
	exchangeRate   = dec(3, 4, positive)

	provinciaMunicipio = format{kind: kEnum, enum: provinciaMunicipioCodes(), enumLabel: sello.Textf("a province or municipality code of DGII's Tabla III (6 digits, like 010100)")}
	unidadMedida       = format{kind: kEnum, enum: numberRange(1, 62, 1), enumLabel: sello.Textf("a unit of DGII's Tabla IV: 1 to 62")}
	tipoImpuesto       = format{kind: kEnum, enum: numberRange(1, 39, 3), enumLabel: sello.Textf("a tax code of DGII's Tabla I: 001 to 039")}
)

func pattern(expr string, what sello.Text) format { return patternMax(expr, what, 0) }

func patternMax(expr string, what sello.Text, max int) format {
	return format{kind: kPattern, re: regexp.MustCompile(expr), what: what, max: max}
}

func text(max int) format             { return format{kind: kText, min: 1, max: max} }
func textRange(min, max int) format   { return format{kind: kText, min: min, max: max} }
func alfa(max int) format             { return format{kind: kAlfa, max: max} }
func enum(values ...string) format    { return format{kind: kEnum, enum: values} }
func digits(n int) format             { return format{kind: kDigits, digits: n, min: 0, max: -1} }
func intRange(n, min, max int) format { return format{kind: kDigits, digits: n, min: min, max: max} }
func list(max int) format             { return format{kind: kList, max: max} }

func dec(digits int, decimals int32, s sign) format {
	return format{kind: kDecimal, digits: digits, decimals: decimals, sign: s}
}

// numberRange returns from…to as strings zero-padded to width.
func numberRange(from, to, width int) []string {
	out := make([]string, 0, to-from+1)
	for i := from; i <= to; i++ {
		out = append(out, fmt.Sprintf("%0*d", width, i))
	}
	return out
}

// checkString returns a problem with the text s in format f, or the zero Text.
func (f format) checkString(s string) sello.Text {
	if s == "" {
		return sello.Textf("Must not be empty: DGII rejects empty elements; omit the field instead.")
	}
	if !utf8.ValidString(s) {
		return sello.Textf("Must be valid UTF-8 text.")
	}
	for _, r := range s {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0xFFFE || r == 0xFFFF {
			return sello.Textf("Must not contain control characters.")
		}
	}
	n := utf8.RuneCountInString(s)
	switch f.kind {
	case kText:
		if n < f.min || n > f.max {
			if f.min > 1 {
				return sello.Textf("Must have %d to %d characters; it has %d.", f.min, f.max, n)
			}
			return sello.Textf("Must have at most %d characters; it has %d.", f.max, n)
		}
		if strings.TrimSpace(s) == "" {
			return sello.Textf("Must not be blank.")
		}
	case kAlfa:
		if n > f.max {
			return sello.Textf("Must have at most %d characters; it has %d.", f.max, n)
		}
		for _, r := range s {
			if !unicode.IsLetter(r) && r != ' ' && r != ',' {
				return sello.Textf("Must contain only letters, spaces and commas.")
			}
		}
	case kPattern:
		if f.max > 0 && n > f.max {
			return sello.Textf("Must have at most %d characters; it has %d.", f.max, n)
		}
		if !f.re.MatchString(s) {
			return sello.Textf("Must be %s; got %q.", f.what, truncate(s, 40))
		}
	case kENCF:
		if _, err := sello.ParseENCF(s); err != nil {
			return sello.ErrorText(err)
		}
	case kDate:
		if _, ok := parseDGIIDate(s); !ok {
			return sello.Textf("Must be a valid date dd-MM-yyyy (like 31-12-2025); got %q.", truncate(s, 40))
		}
	case kDateTime:
		if _, err := time.Parse("02-01-2006 15:04:05", s); err != nil || !yearOK(s[6:10]) {
			return sello.Textf("Must be a valid date and time dd-MM-yyyy HH:mm:ss; got %q.", truncate(s, 40))
		}
	case kEnum:
		for _, v := range f.enum {
			if v == s {
				return sello.Text{}
			}
		}
		if !f.enumLabel.IsZero() {
			return sello.Textf("Must be %s; got %q.", f.enumLabel, truncate(s, 40))
		}
		return sello.Textf("Must be one of %s; got %q.", strings.Join(f.enum, ", "), truncate(s, 40))
	case kDigits:
		if n == 0 || n > f.digits || strings.Trim(s, "0123456789") != "" {
			return sello.Textf("Must be a whole number of at most %d digits; got %q.", f.digits, truncate(s, 40))
		}
		if f.max >= 0 {
			v := 0
			for _, c := range s {
				v = v*10 + int(c-'0')
			}
			if v < f.min || v > f.max {
				return sello.Textf("Must be between %d and %d; got %s.", f.min, f.max, s)
			}
		}
	}
	return sello.Text{}
}

// checkDecimal returns a problem with the value d in format f, or the zero Text.
func (f format) checkDecimal(d *Decimal) sello.Text {
	v := d.Value()
	switch {
	case f.sign == positive && !v.IsPositive():
		return sello.Textf("Must be greater than zero; got %s.", d)
	case f.sign == nonNegative && v.IsNegative():
		return sello.Textf("Must not be negative; got %s.", d)
	}
	// Without trailing zeros a value has at most its scale's decimals.
	if d.Scale() > f.decimals && significantDecimals(v) > f.decimals {
		return sello.Textf("Must have at most %d decimals; got %s.", f.decimals, d)
	}
	if tooManyDigits(v, f.digits) {
		return sello.Textf("Must have at most %d digits before the decimal point; got %s.", f.digits, d)
	}
	return sello.Text{}
}

// tooManyDigits reports whether |v| ≥ 10^digits.
func tooManyDigits(v decimal.Decimal, digits int) bool {
	if lim, ok := digitLimits[[2]int{digits, int(-v.Exponent())}]; ok {
		return v.Cmp(lim[0]) >= 0 || v.Cmp(lim[1]) <= 0 // at v's exponent: no rescaling
	}
	return v.Abs().GreaterThanOrEqual(decimal.New(1, int32(digits)))
}

// digitLimits holds 10^digits and -10^digits at the exponents of an
// e-CF's values, by digits and scale: the formats' limits.
var digitLimits = func() map[[2]int][2]decimal.Decimal {
	m := map[[2]int][2]decimal.Decimal{}
	for _, digits := range []int{3, 16} {
		for scale := 0; scale <= 8; scale++ {
			pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(digits+scale)), nil)
			lim := decimal.NewFromBigInt(pow, int32(-scale))
			m[[2]int{digits, scale}] = [2]decimal.Decimal{lim, lim.Neg()}
		}
	}
	return m
}()

// significantDecimals is the number of decimals of v without trailing zeros.
func significantDecimals(v decimal.Decimal) int32 {
	s := v.String()
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return int32(len(s) - i - 1)
	}
	return 0
}

// parseDGIIDate parses DGII's dd-MM-yyyy (years 1900–2099, as the XSD).
func parseDGIIDate(s string) (time.Time, bool) {
	if len(s) != 10 {
		return time.Time{}, false
	}
	t, err := time.Parse("02-01-2006", s)
	if err != nil || !yearOK(s[6:10]) {
		return time.Time{}, false
	}
	return t, true
}

func yearOK(y string) bool { return y >= "1900" && y <= "2099" }
