package sello_test

import (
	"strings"
	"testing"

	"github.com/sello-do/sello"
)

func TestParseENCF(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		for _, typ := range sello.DocumentTypes {
			s := "E" + string(typ) + "0000000042"
			e, err := sello.ParseENCF(s)
			if err != nil {
				t.Fatalf("ParseENCF(%q): %v", s, err)
			}
			if got, want := e, (sello.ENCF{Type: typ, Number: 42}); got != want {
				t.Fatalf("ParseENCF(%q)=%+v, want %+v", s, got, want)
			}
			if got := e.String(); got != s {
				t.Fatalf("String()=%q, want %q", got, s)
			}
		}
	})
	t.Run("Max", func(t *testing.T) {
		e, err := sello.ParseENCF("E319999999999")
		if err != nil || e.Number != sello.MaxSequenceNumber {
			t.Fatalf("got %+v, %v", e, err)
		}
	})
	for _, tt := range []struct{ name, in, msg string }{
		{"ErrEmpty", "", "must have 13 characters"},
		{"ErrShort", "E31000000001", "must have 13 characters"},
		{"ErrLong", "E3100000000011", "must have 13 characters"},
		{"ErrSeries", "B310000000001", "must start with the series E"},
		{"ErrLowercase", "e310000000001", "must start with the series E"},
		{"ErrType", "E350000000001", "unknown type \"35\""},
		{"ErrDigits", "E31000000000A", "must end in 10 digits"},
		{"ErrSign", "E31+000000001", "must end in 10 digits"},
		{"ErrZero", "E310000000000", "sequential 0"},
		{"ErrUnicode", "E31000000000١", "must have 13 characters"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := sello.ParseENCF(tt.in)
			if got, want := sello.ErrorCodeOf(err), sello.CodeInvalidRequest; got != want {
				t.Fatalf("code=%v, want %v (err %v)", got, want, err)
			}
			if msg := sello.ErrorMessageOf(err); !strings.Contains(msg, tt.msg) {
				t.Fatalf("message %q does not contain %q", msg, tt.msg)
			}
		})
	}
}

// FuzzParseENCF checks that the parser never panics, that what it accepts
// has the documented shape, and that accepted values round-trip.
func FuzzParseENCF(f *testing.F) {
	for _, s := range []string{"E310000000001", "E329999999999", "E470000000000", "", "E31", "B310000000001", "E31000000000\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := sello.ParseENCF(s)
		if err != nil {
			if sello.ErrorCodeOf(err) != sello.CodeInvalidRequest {
				t.Fatalf("ParseENCF(%q): error code %v", s, sello.ErrorCodeOf(err))
			}
			return
		}
		if len(s) != 13 || s[0] != 'E' || e.Number < 1 || e.Number > sello.MaxSequenceNumber {
			t.Fatalf("ParseENCF(%q) accepted a malformed e-NCF: %+v", s, e)
		}
		if got := e.String(); got != s {
			t.Fatalf("round trip: ParseENCF(%q).String() = %q", s, got)
		}
	})
}

func TestParseDocumentType(t *testing.T) {
	for _, in := range []string{"31", "E31", "e31"} {
		if got, err := sello.ParseDocumentType(in); err != nil || got != sello.TypeCreditoFiscal {
			t.Fatalf("ParseDocumentType(%q)=%v, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "3", "30", "E3", "E310", "X31"} {
		if _, err := sello.ParseDocumentType(in); sello.ErrorCodeOf(err) != sello.CodeInvalidRequest {
			t.Fatalf("ParseDocumentType(%q): err %v", in, err)
		}
	}
}
