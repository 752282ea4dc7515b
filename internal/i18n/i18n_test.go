package i18n

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func TestFromAcceptLanguage(t *testing.T) {
	for header, want := range map[string]Lang{
		"":                        EN,
		"es":                      ES,
		"es-DO,es;q=0.9,en;q=0.8": ES,
		"en-US,es;q=0.9":          EN,
		"fr, es;q=0.5":            EN,
		"en;q=0.4, es-DO;q=0.6":   ES,
		"ES-do":                   ES,
		"espanol":                 EN,
	} {
		if got := FromAcceptLanguage(header); got != want {
			t.Errorf("FromAcceptLanguage(%q) = %s, want %s", header, got, want)
		}
	}
}

func TestT(t *testing.T) {
	Register(map[string]Entry{"Hello, %s.": {EN: "Hello, %s.", ES: "Hola, %s."}})
	if got := T(ES, "Hello, %s.", "Ana"); got != "Hola, Ana." {
		t.Errorf("es: %q", got)
	}
	if got := T(EN, "Hello, %s.", "Ana"); got != "Hello, Ana." {
		t.Errorf("en: %q", got)
	}
	if got := T(ES, "Not registered %d.", 3); got != "Not registered 3." {
		t.Errorf("missing key: %q", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("registering a key twice with another text did not panic")
		}
	}()
	Register(map[string]Entry{"Hello, %s.": {EN: "Hello, %s.", ES: "Buenas, %s."}})
}

func TestFormat(t *testing.T) {
	for in, want := range map[string]string{
		"1180":        "RD$ 1,180.00",
		"0.5":         "RD$ 0.50",
		"123":         "RD$ 123.00",
		"1234567.891": "RD$ 1,234,567.89",
		"-1000":       "-RD$ 1,000.00",
	} {
		if got := FormatMoney(ES, decimal.RequireFromString(in)); got != want {
			t.Errorf("FormatMoney(%s) = %q, want %q", in, got, want)
		}
	}
	at := time.Date(2026, 11, 26, 18, 5, 0, 0, time.UTC)
	if got := FormatTime(ES, at); got != "26/11/2026 14:05" {
		t.Errorf("es time %q", got)
	}
	if got := FormatTime(EN, at); got != "2026-11-26 14:05" {
		t.Errorf("en time %q", got)
	}
}
