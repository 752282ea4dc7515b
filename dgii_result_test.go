package sello_test

import (
	"encoding/json"
	"testing"

	"github.com/sello-do/sello"
)

// TestDGIIResultJSON checks the one shape of DGII's answer: every field
// written, null where DGII gave nothing, and the forms Sello stored before
// read into it.
func TestDGIIResultJSON(t *testing.T) {
	for _, tt := range []struct {
		name string
		r    *sello.DGIIResult
		want string
	}{
		{"Verdict", &sello.DGIIResult{Codigo: new(2), Estado: "Rechazado", SecuenciaUtilizada: new(true),
			Mensajes: []sello.DGIIMessage{{Codigo: new(613), Valor: "RNC del comprador no válido"}}},
			`{"codigo":2,"estado":"Rechazado","mensajes":[{"codigo":613,"valor":"RNC del comprador no válido"}],"secuenciaUtilizada":true}`},
		{"Void", sello.NewDGIITextResult("1", "Anulación procesada", []string{"Las secuencias fueron anuladas correctamente."}),
			`{"codigo":1,"estado":"Anulación procesada","mensajes":[{"codigo":null,"valor":"Las secuencias fueron anuladas correctamente."}],"secuenciaUtilizada":null}`},
		{"NothingGiven", sello.NewDGIITextResult("", "", nil),
			`{"codigo":null,"estado":null,"mensajes":[],"secuenciaUtilizada":null}`},
		{"CodigoNotANumber", sello.NewDGIITextResult("ERR", "", []string{"bad"}),
			`{"codigo":null,"estado":null,"mensajes":[{"codigo":null,"valor":"bad"}],"secuenciaUtilizada":null}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.r)
			if err != nil || string(b) != tt.want {
				t.Fatalf("got %s, %v; want %s", b, err, tt.want)
			}
			var back sello.DGIIResult
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if again, _ := json.Marshal(back); string(again) != tt.want {
				t.Fatalf("read back: got %s, want %s", again, tt.want)
			}
		})
	}
	t.Run("OldVoidForm", func(t *testing.T) {
		var r sello.DGIIResult
		if err := json.Unmarshal([]byte(`{"codigo":"3","nombre":"Anulación rechazada","mensajes":["El campo NoLinea no es válido."]}`), &r); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(r)
		if got, want := string(b), `{"codigo":3,"estado":"Anulación rechazada","mensajes":[{"codigo":null,"valor":"El campo NoLinea no es válido."}],"secuenciaUtilizada":null}`; got != want {
			t.Fatalf("got %s, want %s", got, want)
		}
	})
	t.Run("ErrNotAnObject", func(t *testing.T) {
		var r sello.DGIIResult
		if err := json.Unmarshal([]byte(`{"mensajes":[42]}`), &r); err == nil {
			t.Fatal("a message that is neither text nor an object read without error")
		}
	})
}
