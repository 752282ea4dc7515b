// Package i18n is the one catalogue of the strings people read: the
// portal's pages and the API's error messages. Spanish (es-DO) comes first;
// English is the other language. A string is looked up by its key (for the
// API's errors, the English format string itself), so that no page or
// handler hard-codes a sentence in one language.
//
// Each part of the product registers its strings from its own file (see
// Register), so that the catalogue grows without one shared list.
package i18n

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"
)

// Lang is a language the product speaks.
type Lang string

// The languages, Spanish first.
const (
	ES Lang = "es"
	EN Lang = "en"
)

// Langs lists the languages, the default first.
var Langs = []Lang{ES, EN}

// ParseLang returns the language a stored or chosen value names: EN for
// "en", ES for anything else (the portal's default).
func ParseLang(s string) Lang {
	if strings.EqualFold(strings.TrimSpace(s), "en") {
		return EN
	}
	return ES
}

// FromAcceptLanguage is the API's language for an Accept-Language header:
// Spanish when the most preferred language the header names is Spanish
// ("es", "es-DO", …), English otherwise, so that integrations that send no
// header or another language see no change.
func FromAcceptLanguage(header string) Lang {
	best, bestQ := "", -1.0
	for _, part := range strings.Split(header, ",") {
		tag, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		tag = strings.ToLower(strings.TrimSpace(tag))
		if tag == "" {
			continue
		}
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		if q > bestQ {
			best, bestQ = tag, q
		}
	}
	if best == "es" || strings.HasPrefix(best, "es-") {
		return ES
	}
	return EN
}

// Entry is one string in both languages. The English and Spanish texts are
// fmt formats that take the same arguments in the same order.
type Entry struct{ EN, ES string }

var (
	mu      sync.RWMutex
	entries = map[string]Entry{}
)

// Register adds entries to the catalogue, by key. It panics on a key
// registered twice with different texts or an entry missing a language, so
// that a gap shows at start, not in front of a user. Call it from an init
// function.
func Register(m map[string]Entry) {
	mu.Lock()
	defer mu.Unlock()
	for k, e := range m {
		if e.EN == "" || e.ES == "" {
			panic(fmt.Sprintf("i18n: %q lacks a language", k))
		}
		if old, ok := entries[k]; ok && old != e {
			panic(fmt.Sprintf("i18n: %q registered twice", k))
		}
		entries[k] = e
	}
}

// Lookup returns the entry for key.
func Lookup(key string) (Entry, bool) {
	mu.RLock()
	defer mu.RUnlock()
	e, ok := entries[key]
	return e, ok
}

// Keys lists every registered key, sorted.
func Keys() []string {
	mu.RLock()
	defer mu.RUnlock()
	keys := make([]string, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// T is the string for key in lang, formatted with args. A key that is not
// in the catalogue is formatted as it is (it is its own English text), so
// that a missing entry degrades to English instead of to nothing; tests
// check that none is missing.
func T(lang Lang, key string, args ...any) string {
	format := key
	if e, ok := Lookup(key); ok {
		format = e.EN
		if lang == ES {
			format = e.ES
		}
	}
	if len(args) == 0 {
		return format
	}
	return fmt.Sprintf(format, args...)
}

// drTime is the Dominican Republic's zone (UTC-4, no daylight saving).
var drTime = time.FixedZone("AST", -4*60*60)

// FormatMoney formats an amount in Dominican pesos the way each language's
// readers expect: "RD$ 1,180.00" (the DR writes thousands with commas and
// decimals with a point in both languages).
func FormatMoney(_ Lang, amount decimal.Decimal) string {
	s := amount.StringFixed(2)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	out := "RD$ " + b.String() + "." + frac
	if neg {
		out = "-" + out
	}
	return out
}

// FormatTime formats an instant in the Dominican Republic's time: es
// "26/11/2026 14:05", en "2026-11-26 14:05".
func FormatTime(lang Lang, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	t = t.In(drTime)
	if lang == EN {
		return t.Format("2006-01-02 15:04")
	}
	return t.Format("02/01/2006 15:04")
}

// FormatDate formats a date: es "26/11/2026", en "2026-11-26".
func FormatDate(lang Lang, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	if lang == EN {
		return t.Format("2006-01-02")
	}
	return t.Format("02/01/2006")
}
