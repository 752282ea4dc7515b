package sello_test

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/i18n"
)

// formatArg is, for each function or method that takes a client-facing
// message, the index of its message (a catalogue key): Errorf's format,
// Problems.Add's message, the checkers' and validators' add, the XML
// readers' bad.
var formatArg = map[string]int{
	"Errorf": 1, "Textf": 0, "ValidationErrorf": 1,
	"Add": 1, "add": 1, "Addf": 1, "addf": 1,
	"bad": 0, "refuseApproval": 0,
}

// messageTypes are the composite literals whose Message field reaches a
// client.
var messageTypes = []string{"Error", "sello.Error", "ErrorDetail", "sello.ErrorDetail"}

// sourceMessage is one client-facing message literal in the module's code.
type sourceMessage struct {
	pos string
	key string
}

// walkMessages returns the message literals of the module's non-test Go
// files and the places where a message is built outside the catalogue
// (fmt.Sprintf, concatenation, ErrorMessageOf where ErrorText keeps the
// language).
func walkMessages(t *testing.T) (msgs []sourceMessage, problems []string) {
	t.Helper()
	fset := token.NewFileSet()
	files := map[string]*ast.File{}          // by path
	consts := map[string]map[string]string{} // by directory: string constants by name
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); path != "." && err == nil {
				return filepath.SkipDir // another module (the client SDK): its messages are its own
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		if strings.Contains(path, "internal/i18n") {
			return nil // the catalogue itself
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files[path] = f
		dir := filepath.Dir(path)
		if consts[dir] == nil {
			consts[dir] = map[string]string{}
		}
		for _, decl := range f.Decls {
			if g, ok := decl.(*ast.GenDecl); ok && g.Tok == token.CONST {
				for _, spec := range g.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, name := range vs.Names {
						if i < len(vs.Values) {
							if s, ok := stringConst(vs.Values[i]); ok {
								consts[dir][name.Name] = s
							}
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range slices.Sorted(maps.Keys(files)) {
		f, dir := files[path], filepath.Dir(path)
		at := func(n ast.Node) string { return fset.Position(n.Pos()).String() }
		check := func(e ast.Expr, what string) {
			if s, ok := stringConst(e); ok {
				msgs = append(msgs, sourceMessage{at(e), s})
				return
			}
			if id, ok := ast.Unparen(e).(*ast.Ident); ok {
				if s, ok := consts[dir][id.Name]; ok {
					msgs = append(msgs, sourceMessage{at(e), s})
				}
				return
			}
			switch x := ast.Unparen(e).(type) {
			case *ast.CallExpr:
				switch name := callName(x); name {
				case "fmt.Sprintf", "Sprintf":
					problems = append(problems, fmt.Sprintf("%s: %s formatted with fmt.Sprintf: use Textf, Addf or Errorf so that it is written in the reader's language", at(e), what))
				case "ErrorMessageOf", "sello.ErrorMessageOf":
					problems = append(problems, fmt.Sprintf("%s: %s is ErrorMessageOf: pass ErrorText(err) (AddText) so that it is written in the reader's language", at(e), what))
				}
			case *ast.BinaryExpr:
				if x.Op == token.ADD {
					problems = append(problems, fmt.Sprintf("%s: %s concatenated: use a format (Textf, Addf, Errorf) so that it is written in the reader's language", at(e), what))
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				name := callName(n)
				base := name[strings.LastIndex(name, ".")+1:]
				i, ok := formatArg[base]
				if !ok || name == "fmt.Errorf" || skipCall(n, base) || len(n.Args) <= i {
					return true
				}
				if (base == "Add" || base == "add") && len(n.Args) != 2 {
					return true
				}
				check(n.Args[i], base+"'s message")
				if base != "Add" && base != "add" {
					for _, a := range n.Args[i+1:] {
						if c, ok := ast.Unparen(a).(*ast.CallExpr); ok && strings.HasSuffix(callName(c), "ErrorMessageOf") {
							problems = append(problems, fmt.Sprintf("%s: an argument of %s is ErrorMessageOf: pass ErrorText(err) so that it is written in the reader's language", at(a), base))
						}
					}
				}
			case *ast.CompositeLit:
				if !slices.Contains(messageTypes, typeName(n.Type)) {
					if at, ok := n.Type.(*ast.ArrayType); !ok || !slices.Contains(messageTypes, typeName(at.Elt)) {
						return true
					}
					for _, el := range n.Elts { // elided element types
						if c, ok := el.(*ast.CompositeLit); ok && c.Type == nil {
							messageFields(c, check)
						}
					}
					return true
				}
				messageFields(n, check)
			}
			return true
		})
	}
	return msgs, problems
}

// messageFields checks the Message field of a composite literal.
func messageFields(c *ast.CompositeLit, check func(ast.Expr, string)) {
	for _, el := range c.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok && id.Name == "Message" {
				check(kv.Value, "a Message field")
			}
		}
	}
}

// skipCall reports the calls whose name is in formatArg but which take no
// message: fmt's and testing's Errorf (their format comes first), and
// adding to HTTP headers or URL values.
func skipCall(c *ast.CallExpr, base string) bool {
	switch base {
	case "Errorf":
		if len(c.Args) > 0 {
			if _, ok := stringConst(c.Args[0]); ok {
				return true
			}
		}
	case "Add", "add":
		if sel, ok := c.Fun.(*ast.SelectorExpr); ok {
			if _, ok := sel.X.(*ast.CallExpr); ok {
				return true // w.Header().Add(…)
			}
			recv := strings.ToLower(types(sel.X))
			for _, s := range []string{"header", "query", "values", "form"} {
				if strings.Contains(recv, s) {
					return true
				}
			}
		}
	}
	return false
}

// types is the source text of a simple expression (a.b.c).
func types(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return types(x.X) + "." + x.Sel.Name
	}
	return ""
}

func callName(c *ast.CallExpr) string {
	switch f := c.Fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		if x := types(f.X); x != "" {
			return x + "." + f.Sel.Name
		}
		return "." + f.Sel.Name
	}
	return ""
}

func typeName(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	return types(e)
}

// stringConst is the value of a string literal or a concatenation of them.
func stringConst(e ast.Expr) (string, bool) {
	switch x := ast.Unparen(e).(type) {
	case *ast.BasicLit:
		if x.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(x.Value)
		return s, err == nil
	case *ast.BinaryExpr:
		if x.Op != token.ADD {
			return "", false
		}
		a, ok1 := stringConst(x.X)
		b, ok2 := stringConst(x.Y)
		return a + b, ok1 && ok2
	}
	return "", false
}

// TestErrorMessagesCatalogued walks the module's code: every client-facing
// message it writes (Errorf's format, a detail's message, an Error's or
// ErrorDetail's Message) has its Spanish in the catalogue, and none is
// built where the catalogue cannot see it. A new message without Spanish
// fails here.
func TestErrorMessagesCatalogued(t *testing.T) {
	msgs, problems := walkMessages(t)
	if len(msgs) < 300 {
		t.Fatalf("found %d messages: the walk misses the code", len(msgs))
	}
	seen := map[string]bool{}
	for _, m := range msgs {
		if seen[m.key] {
			continue
		}
		seen[m.key] = true
		e, ok := i18n.Lookup(m.key)
		switch {
		case !ok:
			t.Errorf("%s: no Spanish in the catalogue for %q", m.pos, m.key)
		case e.EN != m.key:
			t.Errorf("%s: the catalogue's English for %q is %q: an error message's key is its English", m.pos, m.key, e.EN)
		}
	}
	for _, p := range problems {
		t.Error(p)
	}
	t.Logf("%d messages, %d distinct", len(msgs), len(seen))
}

// TestErrorCodesCatalogued: every error code has a short title in both
// languages (the API answers the code itself, never translated).
func TestErrorCodesCatalogued(t *testing.T) {
	for _, code := range sello.ErrorCodes {
		e, ok := i18n.Lookup(string(code))
		if !ok || e.EN == "" || e.ES == "" || e.EN == e.ES {
			t.Errorf("%s: title %+v, want one in each language", code, e)
		}
		if got := sello.ErrorTitle(code, i18n.ES); got != e.ES {
			t.Errorf("ErrorTitle(%s, es) = %q", code, got)
		}
	}
}

// TestCatalogueVerbs: each entry's Spanish takes the same arguments as its
// English, verb for verb in the same order.
func TestCatalogueVerbs(t *testing.T) {
	for _, k := range i18n.Keys() {
		e, _ := i18n.Lookup(k)
		if en, es := verbs(e.EN), verbs(e.ES); !slices.Equal(en, es) {
			t.Errorf("%q: verbs %q in English, %q in Spanish (%q)", k, en, es, e.ES)
		}
	}
}

// verbs lists the fmt verbs of a format with their flags ("%q", "%03d"),
// leaving out "%%".
func verbs(format string) []string {
	var out []string
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("+-#0123456789.*[]", format[j]) >= 0 {
			j++
		}
		if j < len(format) {
			if format[j] != '%' {
				out = append(out, format[i:j+1])
			}
			i = j
		}
	}
	return out
}

func TestVerbs(t *testing.T) {
	if got, want := verbs("a %s b %%, %03d–%q %.2f"), []string{"%s", "%03d", "%q", "%.2f"}; !slices.Equal(got, want) {
		t.Fatalf("verbs = %q, want %q", got, want)
	}
}

// TestLocalizedMessage: an error formatted from a catalogued format is
// written in Spanish with its arguments, nested texts in Spanish too;
// English is the Message byte for byte; a message changed after it was
// formatted falls back to itself; an internal error stays generic.
func TestLocalizedMessage(t *testing.T) {
	e := sello.Errorf(sello.CodeNotFound, "Tenant %q not found.", "t_1")
	if got, want := sello.LocalizedMessage(e, i18n.EN), e.Message; got != want {
		t.Errorf("en: %q, want %q", got, want)
	}
	if got, want := sello.LocalizedMessage(fmt.Errorf("wrapped: %w", e), i18n.ES), `No se encontró la empresa "t_1".`; got != want {
		t.Errorf("es: %q, want %q", got, want)
	}
	_, perr := sello.ParseDocumentType("99")
	var p sello.Problems
	p.AddText("ranges[0].type", sello.ErrorText(perr))
	p.Addf("ranges[0].from", "Must be a sequential from 1 to %d.", 9)
	p.Add("ranges", "Required: at least one range to void.")
	ve := p.Errorf(sello.CodeInvalidRequest, "The void is not valid: %d problem(s).", p.Len())
	en, es := ve.LocalizedDetails(i18n.EN), ve.LocalizedDetails(i18n.ES)
	if !slices.Equal(en, ve.Details) || len(es) != 3 {
		t.Fatalf("details en %+v, es %+v", en, es)
	}
	for i, want := range []string{
		`Tipo de e-CF desconocido "99": use uno de 31, 32, 33, 34, 41, 43, 44, 45, 46, 47.`,
		"Debe ser un secuencial del 1 al 9.",
		"Obligatorio: al menos un rango a anular.",
	} {
		if es[i].Message != want || es[i].Path != en[i].Path {
			t.Errorf("detail %d: %+v, want %q at %s", i, es[i], want, en[i].Path)
		}
	}
	if got, want := sello.LocalizedMessage(ve, i18n.ES), "La anulación no es válida: 3 problema(s)."; got != want {
		t.Errorf("es: %q, want %q", got, want)
	}
	changed := sello.Errorf(sello.CodeNotFound, "Tenant %q not found.", "t_1")
	changed.Message += " Ask the operator."
	if got := sello.LocalizedMessage(changed, i18n.ES); got != changed.Message {
		t.Errorf("changed message: %q", got)
	}
	if got, want := sello.LocalizedMessage(errors.New("secret"), i18n.ES), "Ocurrió un error interno."; got != want {
		t.Errorf("internal: %q, want %q", got, want)
	}
	// A literal with "%" is written as it is, in both languages.
	lit := &sello.Error{Code: sello.CodeInvalidRequest, Message: "100% sure"}
	if got := sello.LocalizedMessage(lit, i18n.ES); got != "100% sure" {
		t.Errorf("literal: %q", got)
	}
}
