package portal

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sello-do/sello/internal/i18n"
)

// usedKey finds the catalogue keys the portal's code and templates use:
// the literal first argument of T (a visit's or a layout's) and the
// second of i18n.T.
var usedKey = regexp.MustCompile(`(?:\.T\(|i18n\.T\([^,()]+,\s*)("(?:[^"\\]|\\.)*")`)

// TestStrings: every key the templates and handlers use, and every key
// of the portal's lookup tables (menu, DGII states, roles, environments,
// messages after an action), is in the catalogue, which holds both
// languages of every entry (i18n.Register refuses one without).
func TestStrings(t *testing.T) {
	files, err := filepath.Glob("*")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, f := range files {
		if !(strings.HasSuffix(f, ".templ") || strings.HasSuffix(f, ".go")) || strings.HasSuffix(f, "_templ.go") || strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range usedKey.FindAllStringSubmatch(string(b), -1) {
			k, err := strconv.Unquote(m[1])
			if err != nil {
				t.Fatalf("%s: %s: %v", f, m[1], err)
			}
			keys = append(keys, k)
		}
	}
	if len(keys) < 50 {
		t.Fatalf("found %d keys in the code; the pattern is broken", len(keys))
	}
	for _, e := range menu {
		keys = append(keys, e.Key)
	}
	for _, m := range []map[string]string{dgiiStateKeys, flashKeys} {
		for _, k := range m {
			keys = append(keys, k)
		}
	}
	for _, k := range roleKeys {
		keys = append(keys, k)
	}
	for _, k := range envDescriptionKeys {
		keys = append(keys, k)
	}
	for _, k := range keys {
		e, ok := i18n.Lookup(k)
		if !ok {
			t.Errorf("key %q is not in the catalogue", k)
			continue
		}
		if e.EN == "" || e.ES == "" {
			t.Errorf("key %q lacks a language: %+v", k, e)
		}
		if strings.Count(e.EN, "%") != strings.Count(e.ES, "%") {
			t.Errorf("key %q: the languages take different arguments: %q, %q", k, e.EN, e.ES)
		}
	}
}

// templText finds the text between a template's tags: what a reader sees
// unless it is an expression ({ … }) or a Go statement (if, for, else).
var (
	templExpr = regexp.MustCompile(`\{[^{}]*\}`)
	templTag  = regexp.MustCompile(`<[^<>]*>`)
)

// TestNoTextInTemplates: no sentence is written into a template; every
// word a reader sees comes from the catalogue. Only the product's name,
// Sello, stands as it is.
func TestNoTextInTemplates(t *testing.T) {
	files, err := filepath.Glob("*.templ")
	if err != nil {
		t.Fatal(err)
	}
	letters := regexp.MustCompile(`\pL{2,}`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inTempl := false
		for n, line := range strings.Split(string(b), "\n") {
			trim := strings.TrimSpace(line)
			switch {
			case strings.HasPrefix(trim, "templ "):
				inTempl = true
				continue
			case line == "}":
				inTempl = false
				continue
			case !inTempl || strings.HasPrefix(trim, "//"):
				continue
			}
			for _, stmt := range []string{"if ", "} else", "for ", "@", "{ children"} {
				if strings.HasPrefix(trim, stmt) {
					trim = ""
				}
			}
			// Expressions may hold nested braces one level deep.
			text := templExpr.ReplaceAllString(templExpr.ReplaceAllString(trim, ""), "")
			text = templTag.ReplaceAllString(text, " ")
			for _, w := range letters.FindAllString(text, -1) {
				if w != "Sello" {
					t.Errorf("%s:%d: %q is written in the template, not looked up: %s", f, n+1, w, strings.TrimSpace(line))
				}
			}
		}
	}
}
