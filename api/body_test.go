package api_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/apitest"
)

// invoiceWithName is the test invoice whose first item's NombreItem is
// the raw JSON string content name (bytes as given, escapes allowed).
func invoiceWithName(tb testing.TB, name string) []byte {
	tb.Helper()
	body := apitest.Invoice(testRNC, func(ecf map[string]any) {
		ecf["DetallesItems"].(map[string]any)["Item"].([]any)[0].(map[string]any)["NombreItem"] = "MARKER"
	})
	if bytes.Count(body, []byte(`"MARKER"`)) != 1 {
		tb.Fatalf("no MARKER in %s", body)
	}
	return bytes.Replace(body, []byte(`"MARKER"`), []byte(`"`+name+`"`), 1)
}

// wantError checks an error answer's status, code and that its message
// holds each of msgs.
func wantError(tb testing.TB, rec *httptest.ResponseRecorder, status int, code sello.ErrorCode, msgs ...string) {
	tb.Helper()
	var b struct {
		Error struct {
			Code    sello.ErrorCode `json:"code"`
			Message string          `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &b); err != nil || rec.Code != status || b.Error.Code != code {
		tb.Fatalf("got %d %s, want %d %s", rec.Code, rec.Body, status, code)
	}
	for _, m := range msgs {
		if !strings.Contains(b.Error.Message, m) {
			tb.Errorf("message %q does not say %q", b.Error.Message, m)
		}
	}
}

func TestInvalidUTF8IsInvalidJSON(t *testing.T) {
	f := mustFixture(t)
	for name, path := range map[string]string{"Create": "/TesteCF/documentos-ecf", "Validate": "/TesteCF/documentos-ecf?validate=true"} {
		t.Run("OK"+name, func(t *testing.T) {
			// A surrogate pair and raw UTF-8 are text like any other.
			rec := f.do("POST", path, invoiceWithName(t, `Café \ud83d\ude00 ñ`))
			if rec.Code != http.StatusOK && rec.Code != http.StatusAccepted {
				t.Fatalf("got %d %s", rec.Code, rec.Body)
			}
		})
		t.Run("ErrInvalidUTF8"+name, func(t *testing.T) {
			body := invoiceWithName(t, "Caf\xff\xfe")
			off := bytes.Index(body, []byte("\xff"))
			rec := f.do("POST", path, body)
			wantError(t, rec, http.StatusBadRequest, sello.CodeInvalidJSON,
				"invalid UTF-8 at byte offset "+strconv.Itoa(off), "ECF.DetallesItems.Item[0].NombreItem")
		})
		for _, esc := range []string{`\ud800`, `x\udc00`, `\ud800\u0041`} {
			t.Run("ErrLoneSurrogate"+name, func(t *testing.T) {
				rec := f.do("POST", path, invoiceWithName(t, esc))
				wantError(t, rec, http.StatusBadRequest, sello.CodeInvalidJSON, "lone UTF-16 surrogate", "ECF.DetallesItems.Item[0].NombreItem")
			})
		}
	}
	t.Run("ErrStatusBatch", func(t *testing.T) {
		rec := f.do("POST", "/TesteCF/documentos-ecf/status/batch", []byte("{\"encfs\":[\"E31\xff\"]}"))
		wantError(t, rec, http.StatusBadRequest, sello.CodeInvalidJSON, "invalid UTF-8 at byte offset 14", "encfs[0]")
	})
}

func TestDuplicateKeysAreInvalidJSON(t *testing.T) {
	f := mustFixture(t)
	twice := bytes.Replace(apitest.Invoice(testRNC), []byte(`"RNCComprador":`), []byte(`"RNCComprador":"101010101","RNCComprador":`), 1)
	if bytes.Equal(twice, apitest.Invoice(testRNC)) {
		t.Fatal("the invoice has no RNCComprador")
	}
	for _, path := range []string{"/TesteCF/documentos-ecf", "/TesteCF/documentos-ecf?validate=true"} {
		rec := f.do("POST", path, twice)
		wantError(t, rec, http.StatusBadRequest, sello.CodeInvalidJSON, `duplicate key "RNCComprador" in object ECF.Encabezado.Comprador`)
	}
	// encoding/json matches encfs to the field case-insensitively: every
	// spelling of it counts.
	for _, body := range []string{
		`{"encfs":["X"],"encfs":["E310000000001"]}`,
		`{"encfs":["X"],"ENCFS":["E310000000001"]}`,
		`{"encfs":["X"],"enc\u0066s":["E310000000001"]}`,
	} {
		rec := f.do("POST", "/TesteCF/documentos-ecf/status/batch", []byte(body))
		wantError(t, rec, http.StatusBadRequest, sello.CodeInvalidJSON, "duplicate key", "in the top-level object at byte offset 15 (first at 1)")
	}
}

func TestContentTypeIsCaseInsensitive(t *testing.T) {
	f := mustFixture(t)
	send := func(ct string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "/TesteCF/documentos-ecf?validate=true", bytes.NewReader(apitest.Invoice(testRNC)))
		req.Header.Set("X-API-KEY", f.key)
		req.Header.Set("Content-Type", ct)
		rec := httptest.NewRecorder()
		f.handler.ServeHTTP(rec, req)
		return rec
	}
	for _, ct := range []string{"application/json", "application/json; charset=Utf-8", "Application/JSON;charset=UTF-8", `application/json; Charset="utf-8"`} {
		if rec := send(ct); rec.Code != http.StatusOK {
			t.Errorf("%s: got %d %s, want 200", ct, rec.Code, rec.Body)
		}
	}
	for _, ct := range []string{"application/json; charset=latin1", "application/json; charset=utf-16", "application/json; charset=utf8", "text/json"} {
		wantError(t, send(ct), http.StatusUnsupportedMediaType, sello.CodeUnsupportedMediaType)
	}
}

// TestContentTypeMissing: a body sent without Content-Type is 415 with a
// message that says which one to send: application/json on every JSON
// endpoint; for the certification test set, the three it takes.
func TestContentTypeMissing(t *testing.T) {
	f := mustFixture(t)
	certKey := mustKey(t, f, f.tenant.ID, sello.EnvCert, sello.ScopeAdmin)
	const sendJSON = "The request has no Content-Type: send the JSON body with Content-Type: application/json."
	const testSet = `send DGII's workbook as multipart/form-data (part "file") or as application/vnd.openxmlformats-officedocument.spreadsheetml.sheet, or the rows as application/json.`
	for _, tt := range []struct{ key, path, contentType, want string }{
		{f.key, "/TesteCF/documentos-ecf", "", sendJSON},
		{f.key, "/TesteCF/documentos-ecf?validate=true", "", sendJSON},
		{f.key, "/TesteCF/documentos-ecf/status/batch", "", sendJSON},
		{f.key, "/TesteCF/secuencias", "", sendJSON},
		{f.key, "/TesteCF/anulaciones", "", sendJSON},
		{f.key, "/TesteCF/aprobaciones-comerciales", "", sendJSON},
		{certKey, "/CerteCF/certificacion/pruebas", "", "The request has no Content-Type: " + testSet},
		{certKey, "/CerteCF/certificacion/pruebas", "text/csv", `Content-Type "text/csv" is not accepted here: ` + testSet},
	} {
		t.Run(tt.path+" "+tt.contentType, func(t *testing.T) {
			req := httptest.NewRequest("POST", tt.path, strings.NewReader(`{}`))
			req.Header.Set("X-API-KEY", tt.key)
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			rec := httptest.NewRecorder()
			f.handler.ServeHTTP(rec, req)
			wantError(t, rec, http.StatusUnsupportedMediaType, sello.CodeUnsupportedMediaType, tt.want)
		})
	}
}

// TestSlowBodyAnswer sends a create whose body stops arriving until the
// server's read limit passes: the answer is 400 INVALID_REQUEST saying so,
// and names no socket address.
func TestSlowBodyAnswer(t *testing.T) {
	f := mustFixture(t)
	ts := httptest.NewUnstartedServer(f.handler)
	ts.Config.ReadTimeout = 300 * time.Millisecond
	ts.Start()
	t.Cleanup(ts.Close)
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// The header and a first part of the body; the rest never comes.
	fmt.Fprintf(conn, "POST /TesteCF/documentos-ecf HTTP/1.1\r\nHost: sello\r\nX-API-KEY: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"ECF\":", f.key)
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusBadRequest || body.Error.Code != string(sello.CodeInvalidRequest) {
		t.Fatalf("got %d %s %q, want 400 INVALID_REQUEST", resp.StatusCode, body.Error.Code, body.Error.Message)
	}
	if !strings.Contains(body.Error.Message, "time limit") || strings.Contains(body.Error.Message, "tcp") ||
		strings.Contains(body.Error.Message, "127.0.0.1") {
		t.Errorf("message %q: want it to say the body did not arrive in time, naming no address", body.Error.Message)
	}
}

// TestUnknownFieldSuggestion: an unknown field name in a request body gets
// the closest known name of its object, at its full path, in the details
// and in the message; in a document as in the smaller bodies.
func TestUnknownFieldSuggestion(t *testing.T) {
	f := mustFixture(t)
	doc := apitest.Invoice(testRNC, func(ecf map[string]any) {
		apitest.Section(ecf, "Comprador")["RNCCompradr"] = "131880681"
	})
	for _, tt := range []struct {
		name, path, body   string
		detailPath, detail string // a detail at detailPath says detail
		message            string // the whole message, "" for any
	}{
		{"OKStatusBatch", "/TesteCF/documentos-ecf/status/batch", `{"encf":["E310000000001"]}`,
			"encf", `unknown field; did you mean "encfs"?`,
			`The request is not valid: encf: unknown field; did you mean "encfs"?`},
		{"OKSequence", "/TesteCF/secuencias", `{"type":"E31","from":1,"to":10,"expiresOm":"2099-12-31"}`,
			"expiresOm", `unknown field; did you mean "expiresOn"?`,
			`The request is not valid: expiresOm: unknown field; did you mean "expiresOn"?`},
		{"OKVoidNested", "/TesteCF/anulaciones", `{"ranges":[{"type":"E31","from":1,"to":1},{"type":"E31","form":2,"to":2}]}`,
			"ranges[1].form", `unknown field; did you mean "from"?`,
			`The request is not valid: ranges[1].form: unknown field; did you mean "from"?`},
		{"OKApprovalTwo", "/TesteCF/aprobaciones-comerciales", `{"inboundDocumentId":"x","estdo":"aprobado","motiv":"x"}`,
			"motiv", `unknown field; did you mean "motivo"?`,
			`The request is not valid: estdo: unknown field; did you mean "estado"? (and 1 more problem).`},
		{"ErrFar", "/TesteCF/documentos-ecf/status/batch", `{"encfs":["E310000000001"],"numbers":1}`,
			"numbers", "unknown field",
			"The request is not valid: numbers: unknown field."},
		{"OKDocument", "/TesteCF/documentos-ecf", string(doc),
			"ECF.Encabezado.Comprador.RNCCompradr", `Unknown field: did you mean "RNCComprador"?`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := f.do("POST", tt.path, []byte(tt.body))
			wantError(t, rec, http.StatusUnprocessableEntity, sello.CodeValidationFailed)
			var b struct {
				Error struct {
					Message string
					Details []sello.ErrorDetail
				}
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &b); err != nil {
				t.Fatal(err)
			}
			if tt.message != "" && b.Error.Message != tt.message {
				t.Errorf("message %q, want %q", b.Error.Message, tt.message)
			}
			if !slices.Contains(b.Error.Details, sello.ErrorDetail{Path: tt.detailPath, Message: tt.detail}) {
				t.Errorf("no detail {%s %q} in %+v", tt.detailPath, tt.detail, b.Error.Details)
			}
		})
	}
}
