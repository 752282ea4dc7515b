package jsonstrict

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// decodeStd is what callers decode with when Decode reports false.
func decodeStd(body []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// assertSameTree checks Decode against encoding/json on body: where
// jsonstrict passes it, Decode must read it, and to the same value;
// wherever Decode reads a body, encoding/json must read the same.
func assertSameTree(t *testing.T, body []byte) {
	t.Helper()
	got, ok := Decode(body)
	strict := Check(body) == nil
	if strict && !ok && !deep(body) {
		t.Fatalf("Decode(%q) gave up on a body jsonstrict passes", body)
	}
	if !ok {
		return
	}
	if !strict {
		t.Fatalf("Decode(%q) read a body jsonstrict refuses", body)
	}
	want, err := decodeStd(body)
	if err != nil {
		t.Fatalf("Decode(%q) read what encoding/json refuses: %v", body, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Decode(%q) = %#v, encoding/json %#v", body, got, want)
	}
}

// deep reports whether body nests past maxTreeDepth, where Decode
// gives up by design.
func deep(body []byte) bool {
	return bytes.Count(body, []byte("["))+bytes.Count(body, []byte("{")) > maxTreeDepth
}

var treeCases = []string{
	`{}`, `[]`, ` {"a":1} `, "\t\r\n{\"a\" : [ 1 , 2 ]}\n",
	`{"ECF":{"Encabezado":{"Version":"1.0","IdDoc":{"TipoeCF":31}}}}`,
	`{"n":[0,-0,1,-1,12.5,1e3,1E+3,1e-3,-0.0e0,123456789012345678901234567890.000001]}`,
	`{"b":[true,false,null],"e":{},"a":[],"aa":[[],[{}]]}`,
	`{"s":"plain","u":"Artículo ñ 日本 😀","esc":"\"\\\/\b\f\n\r\t"}`,
	`{"\u00e9t\u00E9":"\u0041\u00e9\u65e5\ud83d\ude00\u0000x"}`,
	`{"k":"a\"b","k2":"tail\\"}`,
	`{"x":"\u2028\u2029<>&"}`,
	// Bodies Decode must leave to encoding/json (or refuse).
	`{"a":1}{}`, `{"a":1,"a":2}`, `{"a":"\ud800"}`, `{"a":"\udc00\ud800"}`, "{\"a\":\"\xff\"}",
	`{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":+1}`, `{"a":tru}`, `{"a":"x\q"}`,
	"{\"a\":\"\x01\"}", `{"a":[1,]}`, `{"a":1,}`, `{,}`, `[`, `"`, ``, ` `, `nul`, `{"a" 1}`,
	`{"a":"\u12"}`, `{"a":"\u12G4"}`, `{"a":"\ud83d\u0041"}`, `{"a":"\ud83dx"}`,
}

func TestDecode(t *testing.T) {
	for _, c := range treeCases {
		assertSameTree(t, []byte(c))
	}
	// The ones it reads are read, not left to encoding/json.
	for _, c := range []string{treeCases[4], treeCases[7], treeCases[8]} {
		if _, ok := Decode([]byte(c)); !ok {
			t.Errorf("Decode(%s) gave up", c)
		}
	}
	if _, ok := Decode([]byte(strings.Repeat("[", maxTreeDepth+2) + strings.Repeat("]", maxTreeDepth+2))); ok {
		t.Error("Decode read a body nested past maxTreeDepth")
	}
}

// FuzzDecode: on any body Decode agrees with encoding/json where
// it reads it, and reads every body jsonstrict passes.
func FuzzDecode(f *testing.F) {
	for _, c := range treeCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		assertSameTree(t, body)
	})
}
