package jsonstrict

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   string
		fold bool
		kind Kind // 0: valid
		off  int
		path string
		key  string
	}{
		{name: "OK", in: ` {"a":[1,-0.5e+3,"x\u00e9\ud83d\ude00",true,false,null,{}],"b":{"a":1}} `},
		{name: "ErrDuplicateKeyEscapedSlash", in: `{"\/":1,"/":2}`, kind: DuplicateKey, off: 8, key: "/"},
		{name: "OKUTF8", in: "{\"NombreItem\":\"Café ñandú 😀\"}"},
		{name: "OKCaseDiffers", in: `{"encfs":1,"ENCFS":2}`},
		{name: "ErrInvalidUTF8", in: "{\"ECF\":{\"NombreItem\":\"ab\xff\xfe\"}}", kind: InvalidUTF8, off: 24, path: "ECF.NombreItem"},
		{name: "ErrInvalidUTF8OutsideString", in: "[1,\xff]", kind: InvalidUTF8, off: 3, path: "[1]"},
		{name: "ErrInvalidUTF8InKey", in: "{\"a\":{\"b\xc3\":1}}", kind: InvalidUTF8, off: 8, path: "a"},
		{name: "ErrEncodedSurrogate", in: "[\"\xed\xa0\x80\"]", kind: InvalidUTF8, off: 2, path: "[0]"},
		{name: "ErrOverlong", in: "\"\xc0\xaf\"", kind: InvalidUTF8, off: 1},
		{name: "ErrLoneHighSurrogate", in: `{"a":"x\ud800"}`, kind: LoneSurrogate, off: 7, path: "a"},
		{name: "ErrHighSurrogateThenOther", in: `["\ud800\u0041"]`, kind: LoneSurrogate, off: 2, path: "[0]"},
		{name: "ErrHighSurrogateThenHigh", in: `["\ud800\ud800"]`, kind: LoneSurrogate, off: 2, path: "[0]"},
		{name: "ErrLoneLowSurrogate", in: `["ok","\uDC00"]`, kind: LoneSurrogate, off: 7, path: "[1]"},
		{name: "ErrDuplicateKey", in: `{"ECF":{"Comprador":{"RNCComprador":"1","RNCComprador":"2"}}}`, kind: DuplicateKey, off: 40, path: "ECF.Comprador", key: "RNCComprador"},
		{name: "ErrDuplicateKeyEscaped", in: `{"encfs":["X"],"enc\u0066s":[]}`, kind: DuplicateKey, off: 15, key: "encfs"},
		{name: "ErrDuplicateKeyFold", in: `{"encfs":["X"],"ENCFS":[]}`, fold: true, kind: DuplicateKey, off: 15, key: "ENCFS"},
		{name: "ErrDuplicateKeyFoldKelvin", in: "{\"k\":1,\"\u212a\":2}", fold: true, kind: DuplicateKey, off: 7, key: "\u212a"},
		{name: "ErrDuplicateKeyInArray", in: `[{"a":1},{"a":1,"b":2,"a":3}]`, kind: DuplicateKey, off: 22, path: "[1]", key: "a"},
		{name: "ErrSyntaxTrailing", in: `{} x`, kind: Syntax, off: 3},
		{name: "ErrSyntaxEmpty", in: ``, kind: Syntax},
		{name: "ErrSyntaxNumber", in: `[01]`, kind: Syntax, off: 2, path: "[0]"},
		{name: "ErrSyntaxControl", in: "[\"a\tb\"]", kind: Syntax, off: 3, path: "[0]"},
		{name: "ErrSyntaxBadEscape", in: `["\x"]`, kind: Syntax, off: 2, path: "[0]"},
		{name: "ErrSyntaxUnclosed", in: `{"a":[1,2`, kind: Syntax, off: 9, path: "a[1]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := check([]byte(tt.in), tt.fold)
			if tt.kind == 0 {
				if err != nil {
					t.Fatalf("got %v, want nil", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want an *Error", err)
			}
			if e.Kind != tt.kind || e.Offset != tt.off || e.Path != tt.path || e.Key != tt.key {
				t.Fatalf("got kind %d offset %d path %q key %q (%v), want %d %d %q %q", e.Kind, e.Offset, e.Path, e.Key, e, tt.kind, tt.off, tt.path, tt.key)
			}
		})
	}
}

func TestCheckManyKeys(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := range 1000 {
		fmt.Fprintf(&b, `"k%d":%d,`, i, i)
	}
	b.WriteString(`"k500":0}`)
	var e *Error
	if err := Check([]byte(b.String())); !errors.As(err, &e) || e.Kind != DuplicateKey || e.Key != "k500" {
		t.Fatalf("got %v, want duplicate key k500", err)
	}
	if !strings.Contains(e.Error(), `duplicate key "k500" in the top-level object`) {
		t.Fatalf("message %q", e.Error())
	}
}

func TestCheckDepth(t *testing.T) {
	for _, depth := range []int{MaxDepth, MaxDepth + 1} {
		in := []byte(strings.Repeat("[", depth) + strings.Repeat("]", depth))
		if got, want := Check(in) == nil, json.Valid(in); got != want {
			t.Errorf("depth %d: Check ok %v, json.Valid %v", depth, got, want)
		}
	}
}

// FuzzCheck holds Check to encoding/json: it accepts only what json.Valid
// accepts, calls a syntax error only what json.Valid refuses, and what it
// accepts decodes to the same strings (no U+FFFD put in) with no key twice.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		`{"ECF":{"Encabezado":{"IdDoc":{"TipoeCF":"31"}},"DetallesItems":{"Item":[{"NombreItem":"Café"}]}}}`,
		`{"encfs":["E310000000001"],"ENCFS":[]}`,
		`["\ud83d\ude00","\ud800","\udc00x"]`,
		"[\"\xff\"]", `{"a":1,"a":2}`, `{"a\u0000":1,"a":2}`, `-0.0e-0`, ` [ ] `, `{"":{"":[]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, fold := range []bool{false, true} {
			err := check(b, fold)
			var e *Error
			if err != nil && !errors.As(err, &e) {
				t.Fatalf("error %v is not an *Error", err)
			}
			valid := json.Valid(b)
			switch {
			case err == nil && !valid:
				t.Fatalf("Check accepts what json.Valid refuses: %q", b)
			case err != nil && e.Kind == Syntax && valid:
				t.Fatalf("Check calls valid JSON a syntax error (%v): %q", err, b)
			case err != nil && (e.Offset < 0 || e.Offset > len(b)):
				t.Fatalf("offset %d outside the body", e.Offset)
			case err == nil:
				verify(t, b, fold)
			}
		}
	})
}

// verify decodes b token by token and fails on a key seen twice in an
// object or a string encoding/json had to repair.
func verify(t *testing.T, b []byte, fold bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	type obj struct {
		keys   map[string]bool
		expect bool // the next string is a key
	}
	var stack []*obj
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return
		} else if err != nil {
			t.Fatalf("decode: %v", err)
		}
		var top *obj
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				if top != nil {
					top.expect = true
				}
				stack = append(stack, &obj{keys: map[string]bool{}, expect: true})
			case '[':
				if top != nil {
					top.expect = true
				}
				stack = append(stack, nil)
			default:
				stack = stack[:len(stack)-1]
			}
			continue
		case string:
			if strings.ContainsRune(v, '\uFFFD') && !bytes.Contains(b, []byte("\uFFFD")) && !bytes.Contains(bytes.ToLower(b), []byte(`\ufffd`)) {
				t.Fatalf("Check accepts %q, which decodes to U+FFFD", b)
			}
			if top != nil && top.expect {
				k := v
				if fold {
					k = string(foldName([]byte(v)))
				}
				if top.keys[k] {
					t.Fatalf("Check accepts key %q twice in %q", v, b)
				}
				top.keys[k] = true
				top.expect = false
				continue
			}
		}
		if top != nil {
			top.expect = true
		}
	}
}

func benchBody(size int) []byte {
	item := `{"NumeroLinea":%d,"IndicadorFacturacion":1,"NombreItem":"Café molido ñ \u00e9 100g","IndicadorBienoServicio":1,"CantidadItem":"2.00","UnidadMedida":43,"PrecioUnitarioItem":"125.50","MontoItem":"251.00"}`
	var b bytes.Buffer
	b.WriteString(`{"ECF":{"Encabezado":{"IdDoc":{"TipoeCF":"31"}},"DetallesItems":{"Item":[`)
	for i := 1; b.Len() < size-4; i++ {
		if i > 1 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, item, i)
	}
	b.WriteString(`]}}}`)
	return b.Bytes()
}

func BenchmarkCheck(b *testing.B) {
	for _, size := range []int{1 << 10, 2 << 20} {
		body := benchBody(size)
		if err := Check(body); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("Check/%dB", size), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if err := Check(body); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("JSONValid/%dB", size), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if !json.Valid(body) {
					b.Fatal("invalid")
				}
			}
		})
	}
}
