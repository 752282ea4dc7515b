package api_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"testing"

	"github.com/sello-do/sello"
)

// errorAnswer is an error answer over HTTP: status, headers and body,
// the body without its correlation id (each request has its own).
type errorAnswer struct {
	status int
	header http.Header
	body   map[string]any
	raw    []byte
}

func (a errorAnswer) error() map[string]any { return a.body["error"].(map[string]any) }

// TestErrorLanguage: the same failing request answered in English
// without Accept-Language (byte for byte what it was: the English is the
// message the code formats) and in another language than Spanish, in
// Spanish when the header prefers es, with the same status, code and
// detail paths; over real HTTP.
func TestErrorLanguage(t *testing.T) {
	f := mustFixture(t)
	srv := httptest.NewServer(f.handler)
	t.Cleanup(srv.Close)
	do := func(t *testing.T, method, path, key, lang string, body []byte) errorAnswer {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if key != "" {
			req.Header.Set("X-API-KEY", key)
		}
		req.Header.Set("Content-Type", "application/json")
		if lang != "" {
			req.Header.Set("Accept-Language", lang)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		a := errorAnswer{status: resp.StatusCode, header: resp.Header, raw: raw}
		if err := json.Unmarshal(raw, &a.body); err != nil || a.body["ok"] != false || a.body["correlationId"] == "" {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, raw)
		}
		delete(a.body, "correlationId")
		return a
	}
	for _, tt := range []struct {
		name, method, path string
		key                bool
		body               []byte
		status             int
		code               sello.ErrorCode
		en, es             string
		details            map[string]string // path → Spanish message
	}{
		{
			name: "ErrUnauthenticated", method: "GET", path: "/TesteCF/documentos-ecf",
			status: http.StatusUnauthorized, code: sello.CodeUnauthenticated,
			en: "Missing X-API-KEY header: send the API key as X-API-KEY: <key>.",
			es: "Falta el encabezado X-API-KEY: envíe la clave API como X-API-KEY: <clave>.",
		},
		{
			name: "ErrNotFound", method: "GET", path: "/TesteCF/nada", key: true,
			status: http.StatusNotFound, code: sello.CodeNotFound,
			en: "No such endpoint: GET /TesteCF/nada.",
			es: "No existe el endpoint: GET /TesteCF/nada.",
		},
		{
			name: "ErrValidationFailed", method: "POST", path: "/TesteCF/documentos-ecf?validate=true", key: true,
			body:   invoiceWithName(t, ""),
			status: http.StatusUnprocessableEntity, code: sello.CodeValidationFailed,
			en: "The document is not valid: 1 problem.",
			es: "El comprobante no es válido: 1 problema.",
			details: map[string]string{
				"ECF.DetallesItems.Item[0].NombreItem": "No debe estar vacío: la DGII rechaza los elementos vacíos; omita el campo.",
			},
		},
		{
			// A detail that is another error's message, inside the
			// answer's message: both in Spanish.
			name: "ErrRequestInvalid", method: "POST", path: "/TesteCF/documentos-ecf/status/batch", key: true,
			body:   []byte(`{"encfs":["bad","E310000000001","E31"]}`),
			status: http.StatusUnprocessableEntity, code: sello.CodeValidationFailed,
			en: `The request is not valid: encfs[0]: e-NCF "bad" must have 13 characters (E, the type, 10 digits) (and 1 more problem).`,
			es: `La solicitud no es válida: encfs[0]: El e-NCF "bad" debe tener 13 caracteres (E, el tipo, 10 dígitos) (y 1 problema más).`,
			details: map[string]string{
				"encfs[0]": `El e-NCF "bad" debe tener 13 caracteres (E, el tipo, 10 dígitos).`,
				"encfs[2]": `El e-NCF "E31" debe tener 13 caracteres (E, el tipo, 10 dígitos).`,
			},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			key := ""
			if tt.key {
				key = f.key
			}
			none := do(t, tt.method, tt.path, key, "", tt.body)
			if none.status != tt.status || none.error()["code"] != string(tt.code) || none.error()["message"] != tt.en {
				t.Fatalf("without Accept-Language: %d %s, want %d %s %q", none.status, none.raw, tt.status, tt.code, tt.en)
			}
			for _, lang := range []string{"en-US", "fr-FR, es;q=0.5", "en"} {
				if got := do(t, tt.method, tt.path, key, lang, tt.body); got.status != none.status || !reflect.DeepEqual(got.body, none.body) {
					t.Errorf("Accept-Language %s: %d %s, want the English answer %s", lang, got.status, got.raw, none.raw)
				}
			}
			for _, lang := range []string{"es-DO", "es", "es-DO,es;q=0.9,en;q=0.8", "en;q=0.5, es-419"} {
				es := do(t, tt.method, tt.path, key, lang, tt.body)
				if es.status != tt.status || es.error()["code"] != string(tt.code) || es.error()["message"] != tt.es {
					t.Errorf("Accept-Language %s: %d %s, want %d %s %q", lang, es.status, es.raw, tt.status, tt.code, tt.es)
				}
				if got := es.header.Get("Content-Language"); got != "es" {
					t.Errorf("Accept-Language %s: Content-Language %q", lang, got)
				}
				if got := es.header.Values("Vary"); !slices.Contains(got, "Accept-Language") {
					t.Errorf("Accept-Language %s: Vary %q", lang, got)
				}
				enDetails, _ := none.error()["details"].([]any)
				esDetails, _ := es.error()["details"].([]any)
				if len(esDetails) != len(enDetails) || len(esDetails) != len(tt.details) {
					t.Fatalf("Accept-Language %s: details %v, English %v", lang, esDetails, enDetails)
				}
				for i, d := range esDetails {
					d, en := d.(map[string]any), enDetails[i].(map[string]any)
					if d["path"] != en["path"] || d["message"] != tt.details[d["path"].(string)] {
						t.Errorf("Accept-Language %s: detail %v, want %q at %v", lang, d, tt.details[d["path"].(string)], en["path"])
					}
				}
			}
		})
	}
}
