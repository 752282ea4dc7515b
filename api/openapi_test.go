package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/api"
	"github.com/sello-do/sello/apitest"
	"github.com/sello-do/sello/oracle"
)

func TestOpenAPIDocument(t *testing.T) {
	data := api.OpenAPIDocument()
	if !json.Valid(data) {
		t.Fatal("OpenAPIDocument is not valid JSON")
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if got, want := doc.OpenAPI, "3.1.0"; got != want {
		t.Fatalf("openapi = %q, want %q", got, want)
	}
	if err := doc.Validate(loader.Context); err != nil {
		t.Fatalf("validate: %v", err)
	}
	// The contract loads the same document.
	if apitest.NewContract(t).Document().OpenAPI != "3.1.0" {
		t.Fatal("contract did not load the 3.1 document")
	}
}

// operations lists every operation of the public API with every status it
// must document.
var operations = []struct {
	method, path string
	public       bool
	statuses     []int
}{
	{"POST", "/{env}/documentos-ecf", false, []int{200, 202, 400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503}},
	{"GET", "/{env}/documentos-ecf", false, []int{200, 400, 401, 403, 404, 429, 500}},
	{"POST", "/{env}/documentos-ecf/status/batch", false, []int{200, 400, 401, 403, 404, 413, 415, 422, 429, 500}},
	{"GET", "/{env}/documentos-ecf/{encf}", false, []int{200, 401, 403, 404, 429, 500}},
	{"GET", "/{env}/documentos-ecf/{encf}/xml", false, []int{200, 400, 401, 403, 404, 429, 500}},
	{"GET", "/{env}/documentos-ecf/{encf}/pdf", false, []int{200, 400, 401, 403, 404, 429, 500}},
	{"GET", "/{env}/documentos-recibidos", false, []int{200, 400, 401, 403, 404, 429, 500}},
	{"GET", "/{env}/documentos-recibidos/{id}", false, []int{200, 401, 403, 404, 429, 500}},
	{"GET", "/{env}/documentos-recibidos/{id}/xml", false, []int{200, 401, 403, 404, 429, 500}},
	{"GET", "/{env}/documentos-recibidos/{id}/pdf", false, []int{200, 401, 403, 404, 429, 500}},
	{"GET", "/{env}/eventos", false, []int{200, 400, 401, 403, 404, 429, 500}},
	{"POST", "/{env}/aprobaciones-comerciales", false, []int{202, 400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503}},
	{"GET", "/{env}/aprobaciones-comerciales", false, []int{200, 400, 401, 403, 404, 429, 500, 503}},
	{"GET", "/{env}/aprobaciones-comerciales/{id}", false, []int{200, 401, 403, 404, 429, 500, 503}},
	{"POST", "/{env}/secuencias", false, []int{201, 400, 401, 403, 404, 413, 415, 422, 429, 500, 503}},
	{"GET", "/{env}/secuencias", false, []int{200, 400, 401, 403, 404, 429, 500, 503}},
	{"POST", "/{env}/anulaciones", false, []int{202, 400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503}},
	{"GET", "/{env}/anulaciones", false, []int{200, 400, 401, 403, 404, 429, 500, 503}},
	{"GET", "/{env}/anulaciones/{id}", false, []int{200, 401, 403, 404, 429, 500, 503}},
	{"GET", "/{env}/anulaciones/{id}/xml", false, []int{200, 401, 403, 404, 429, 500, 503}},
	{"GET", "/{env}/certificacion/pruebas", false, []int{200, 400, 401, 403, 404, 429, 500, 503}},
	{"POST", "/{env}/certificacion/pruebas", false, []int{202, 400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503}},
	{"GET", "/{env}/certificacion/pruebas/{id}", false, []int{200, 401, 403, 404, 429, 500, 503}},
	{"GET", "/{env}/certificacion/pruebas/{id}/representaciones-impresas", false, []int{200, 401, 403, 404, 409, 429, 500, 503}},
	{"GET", "/{env}/estado-dgii", false, []int{200, 401, 403, 404, 429, 500, 503}},
	{"GET", "/healthz", true, []int{200}},
	{"GET", "/readyz", true, []int{200, 503}},
	{"GET", "/openapi.json", true, []int{200}},
}

func TestOpenAPIOperations(t *testing.T) {
	doc := apitest.NewContract(t).Document()
	if got, want := doc.Paths.Len(), 23; got != want {
		t.Errorf("%d paths, want %d", got, want)
	}
	for _, o := range operations {
		t.Run(o.method+" "+o.path, func(t *testing.T) {
			item := doc.Paths.Value(o.path)
			if item == nil {
				t.Fatalf("path %s missing", o.path)
			}
			op := item.GetOperation(o.method)
			if op == nil {
				t.Fatalf("%s %s missing", o.method, o.path)
			}
			if op.OperationID == "" || op.Description == "" {
				t.Errorf("operationId %q, description %q: both needed", op.OperationID, op.Description)
			}
			for _, status := range o.statuses {
				r := op.Responses.Status(status)
				if r == nil || r.Value == nil {
					t.Errorf("status %d missing", status)
					continue
				}
				if r.Value.Headers["X-Correlation-Id"] == nil {
					t.Errorf("status %d: header X-Correlation-Id missing", status)
				}
				if !o.public && r.Value.Headers["RateLimit"] == nil {
					t.Errorf("status %d: header RateLimit missing", status)
				}
			}
			if r := op.Responses.Status(429); r != nil && r.Value.Headers["Retry-After"] == nil {
				t.Error("status 429: header Retry-After missing")
			}
			// Public operations opt out of the document-wide API key.
			if public := op.Security != nil && len(*op.Security) == 0; public != o.public {
				t.Errorf("public = %v, want %v", public, o.public)
			}
		})
	}
	if len(doc.Security) != 1 || doc.Security[0]["ApiKey"] == nil {
		t.Errorf("document security = %v, want the ApiKey scheme", doc.Security)
	}
	key := doc.Components.SecuritySchemes["ApiKey"]
	if key == nil || key.Value.Type != "apiKey" || key.Value.In != "header" || key.Value.Name != "X-API-KEY" {
		t.Errorf("ApiKey scheme = %+v, want apiKey in header X-API-KEY", key)
	}
}

// TestOpenAPIErrorStatuses checks that each error response of each operation
// accepts exactly the codes api.HTTPStatus maps to its status.
func TestOpenAPIErrorStatuses(t *testing.T) {
	c := apitest.NewContract(t)
	for _, o := range operations {
		op := c.Document().Paths.Value(o.path).GetOperation(o.method)
		for key, r := range op.Responses.Map() {
			status, err := strconv.Atoi(key)
			if err != nil || status < 400 {
				continue
			}
			var accepted []sello.ErrorCode
			for _, code := range sello.ErrorCodes {
				body := errorBody(code)
				resp := response(status, body, rateLimitHeaders(code))
				req := httptest.NewRequest(o.method, "/TesteCF"+strings.TrimPrefix(strings.ReplaceAll(o.path, "{encf}", "E310000000001"), "/{env}"), nil)
				if o.public {
					req = httptest.NewRequest(o.method, o.path, nil)
				}
				if c.ValidateResponse(req, resp, body) == nil {
					accepted = append(accepted, code)
					if api.HTTPStatus(code) != status {
						t.Errorf("%s %s %d accepts %s, whose status is %d", o.method, o.path, status, code, api.HTTPStatus(code))
					}
				}
			}
			if len(accepted) == 0 {
				t.Errorf("%s %s %d (%s) accepts no error code", o.method, o.path, status, *r.Value.Description)
			}
		}
	}
}

func TestOpenAPIErrorCodes(t *testing.T) {
	doc := apitest.NewContract(t).Document()
	enum := stringEnum(t, doc, "ErrorCode")
	for _, code := range sello.ErrorCodes {
		if !slices.Contains(enum, string(code)) {
			t.Errorf("ErrorCode enum lacks %s", code)
		}
		if s := api.HTTPStatus(code); !strings.Contains(doc.Components.Schemas["ErrorCode"].Value.Description, fmt.Sprintf("`%s` %d", code, s)) {
			t.Errorf("ErrorCode description does not give %s's status %d", code, s)
		}
	}
	if len(enum) != len(sello.ErrorCodes) {
		t.Errorf("ErrorCode enum has %d codes, sello.ErrorCodes %d", len(enum), len(sello.ErrorCodes))
	}
}

func TestOpenAPIEventTypes(t *testing.T) {
	doc := apitest.NewContract(t).Document()
	enum := stringEnum(t, doc, "EventType")
	types := eventTypes(t)
	if len(types) < 15 {
		t.Fatalf("found %d EventType constants in ../event.go, want at least 15", len(types))
	}
	for _, typ := range types {
		if !slices.Contains(enum, typ) {
			t.Errorf("EventType enum lacks %s", typ)
		}
	}
	if len(enum) != len(types) {
		t.Errorf("EventType enum has %d types, package sello %d", len(enum), len(types))
	}
}

// eventTypes returns the values of the EventType constants of package sello,
// read from its source so that a new one cannot be forgotten here.
func eventTypes(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../event.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	ast.Inspect(f, func(n ast.Node) bool {
		spec, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		if id, ok := spec.Type.(*ast.Ident); !ok || id.Name != "EventType" {
			return true
		}
		for _, v := range spec.Values {
			if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				s, _ := strconv.Unquote(lit.Value)
				types = append(types, s)
			}
		}
		return true
	})
	return types
}

func stringEnum(t *testing.T, doc *openapi3.T, schema string) []string {
	t.Helper()
	s := doc.Components.Schemas[schema]
	if s == nil {
		t.Fatalf("schema %s missing", schema)
	}
	var out []string
	for _, v := range s.Value.Enum {
		out = append(out, v.(string))
	}
	return out
}

// Samples of what the server answers, built from the domain's own types
// where they exist.

var (
	now      = time.Date(2025, 6, 1, 14, 3, 7, 123_000_000, time.UTC)
	signedAt = now.Add(1500 * time.Millisecond)
)

func queuedDocument() *sello.Document {
	return &sello.Document{
		ID:          "01976a1e-7c5b-7d8e-9f00-3a1b2c3d4e5f",
		TenantID:    "01976a00-0000-7000-8000-000000000001",
		Environment: sello.EnvTest,
		Type:        sello.TypeCreditoFiscal,
		ENCF:        "E310000000042",
		Status:      sello.StatusQueuedForSigning,
		BuyerRNC:    "101672919",
		Total:       "1770.00",
		Delivery:    sello.Delivery{Status: sello.DeliveryNotSent},
		CreatedAt:   now,
		UpdatedAt:   now,
	}
}

func rejectedDocument() *sello.Document {
	d := queuedDocument()
	used := true
	d.Status = sello.StatusRejected
	d.TrackID = "d2b6e27c-3908-46f3-afaa-2207b9501b4b"
	d.SecurityCode = "Xk3Pq9"
	d.SignedAt = &signedAt
	d.QRURL = "https://ecf.dgii.gov.do/testecf/consultatimbre?ENCF=E310000000042"
	d.DGII = &sello.DGIIResult{Codigo: new(2), Estado: "Rechazado", Mensajes: []sello.DGIIMessage{{Codigo: new(613), Valor: "RNC del comprador no válido"}}, SecuenciaUtilizada: &used}
	d.Delivery = sello.Delivery{Status: sello.DeliveryNotApplicable}
	d.CommercialApproval = nil
	d.UpdatedAt = now.Add(4 * time.Second)
	return d
}

func failedDocument() *sello.Document {
	d := queuedDocument()
	d.Type = sello.TypeConsumo
	d.BuyerRNC = "" // a consumer under DOP 250,000: null
	d.ENCF = "E320000000007"
	d.Status = sello.StatusFailed
	d.FailureReason = "The tenant has no valid signing certificate."
	d.Delivery = sello.Delivery{Status: sello.DeliveryNotApplicable}
	d.CommercialApproval = nil
	return d
}

const correlationID = "01976a1e-7c5a-7000-8000-0000000000a1"

// okBody marshals a success body: {"ok":true, fields…, "correlationId"}.
func okBody(fields map[string]any) []byte {
	m := map[string]any{"ok": true, "correlationId": correlationID}
	for k, v := range fields {
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

func errorBody(code sello.ErrorCode) []byte {
	e := map[string]any{"code": code, "message": "Something is wrong."}
	if code == sello.CodeRateLimited {
		e["retryAfterSeconds"] = 1
	}
	if code == sello.CodeValidationFailed {
		e["details"] = []sello.ErrorDetail{{Path: "ECF.Encabezado.Totales.MontoTotal", Message: "does not add up"}}
	}
	b, _ := json.Marshal(map[string]any{"ok": false, "error": e, "correlationId": correlationID})
	return b
}

// rateLimitHeaders are the headers of an answer to a request with a valid key
// (any answer but a 401).
func rateLimitHeaders(code sello.ErrorCode) map[string]string {
	h := map[string]string{
		"RateLimit-Policy": `"standard";q=200;w=4`,
		"RateLimit":        `"standard";r=199;t=1`,
	}
	if code == sello.CodeRateLimited {
		h["RateLimit"] = `"standard";r=0;t=4`
		h["Retry-After"] = "1"
	}
	return h
}

func response(status int, body []byte, headers map[string]string) *http.Response {
	resp := &http.Response{StatusCode: status, Header: http.Header{}}
	resp.Header.Set("Content-Type", "application/json")
	resp.Header.Set("X-Correlation-Id", correlationID)
	for k, v := range headers {
		if v == "" {
			resp.Header.Del(k)
		} else {
			resp.Header.Set(k, v)
		}
	}
	return resp
}

// with returns a copy of h with more headers; "" deletes one.
func with(h map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range h {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// edit decodes body, applies f, and encodes it again.
func edit(body []byte, f func(m map[string]any)) []byte {
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		panic(err)
	}
	f(m)
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

func docOf(m map[string]any) map[string]any { return m["document"].(map[string]any) }

const validateBody = `{"ok":true,"valid":true,"document":{"ECF":{"Encabezado":{"Version":"1.0","IdDoc":{"TipoeCF":"31","TipoIngresos":"01","TipoPago":"1"},"Emisor":{"RNCEmisor":"131880681","RazonSocialEmisor":"Ferretería El Tornillo SRL","DireccionEmisor":"Av. 27 de Febrero 101","FechaEmision":"01-06-2025"},"Comprador":{"RNCComprador":"101672919","RazonSocialComprador":"Constructora Caribe SA"},"Totales":{"MontoGravadoTotal":"1000.00","MontoGravadoI1":"1000.00","ITBIS1":"18","TotalITBIS":"180.00","TotalITBIS1":"180.00","MontoTotal":"1180.00"}},"DetallesItems":{"Item":[{"NumeroLinea":"1","IndicadorFacturacion":"1","NombreItem":"Servicio","IndicadorBienoServicio":"2","CantidadItem":"1.00","PrecioUnitarioItem":"1000.00","MontoItem":"1000.00"}]}}},"correlationId":"` + correlationID + `"}`

func TestContractCheckResponse(t *testing.T) {
	c := apitest.NewContract(t)
	rl := rateLimitHeaders("")
	created := okBody(map[string]any{"document": queuedDocument().Resource()})
	rejected := okBody(map[string]any{"document": rejectedDocument().Resource()})
	failed := okBody(map[string]any{"document": failedDocument().Resource()})
	list := okBody(map[string]any{"data": []sello.DocumentResource{queuedDocument().Resource(), failedDocument().Resource()}, "hasMore": true, "nextCursor": "c2VxOjQy"})
	lastPage := okBody(map[string]any{"data": []sello.DocumentResource{}, "hasMore": false, "nextCursor": nil})
	batch := okBody(map[string]any{"results": []any{
		map[string]any{"encf": "E310000000042", "found": true, "document": rejectedDocument().Resource()},
		map[string]any{"encf": "E310000000099", "found": false, "document": nil},
	}})

	const (
		create   = "POST /TesteCF/documentos-ecf"
		validate = "POST /TesteCF/documentos-ecf?validate=true"
		get      = "GET /TesteCF/documentos-ecf/E310000000042"
		listDocs = "GET /eCF/documentos-ecf?status=accepted&limit=10"
		status   = "POST /CerteCF/documentos-ecf/status/batch"
	)
	tests := []struct {
		name    string
		request string // "METHOD /path?query"
		status  int
		headers map[string]string
		body    []byte
		want    string // "" when valid, else a fragment of the error
	}{
		// Conforming answers.
		{"Created", create, 202, rl, created, ""},
		{"CreatedReplayed", create, 202, with(rl, "Idempotent-Replayed", "true"), created, ""},
		{"CreatedCharset", create, 202, with(rl, "Content-Type", "application/json; charset=utf-8"), created, ""},
		{"Validated", validate, 200, rl, []byte(validateBody), ""},
		{"GetRejected", get, 200, rl, rejected, ""},
		{"GetFailed", get, 200, rl, failed, ""},
		{"List", listDocs, 200, rl, list, ""},
		{"ListLastPage", listDocs, 200, rl, lastPage, ""},
		{"StatusBatch", status, 200, rl, batch, ""},
		{"Unauthenticated", create, 401, nil, errorBody(sello.CodeUnauthenticated), ""},
		{"EnvironmentMismatch", get, 403, rl, errorBody(sello.CodeEnvironmentMismatch), ""},
		{"InsufficientScope", validate, 403, rl, errorBody(sello.CodeInsufficientScope), ""},
		{"ValidationFailed", create, 422, rl, errorBody(sello.CodeValidationFailed), ""},
		{"SequenceExhausted", create, 422, rl, errorBody(sello.CodeSequenceExhausted), ""},
		{"IdempotencyKeyReused", create, 409, rl, errorBody(sello.CodeIdempotencyKeyReused), ""},
		{"RateLimited", status, 429, rateLimitHeaders(sello.CodeRateLimited), errorBody(sello.CodeRateLimited), ""},
		{"NotFound", get, 404, rl, errorBody(sello.CodeNotFound), ""},
		{"Unavailable", create, 503, nil, errorBody(sello.CodeUnavailable), ""},
		{"Healthz", "GET /healthz", 200, nil, []byte(`{"ok":true}`), ""},
		{"Readyz", "GET /readyz", 200, nil, []byte(`{"ok":true}`), ""},
		{"NotReady", "GET /readyz", 503, nil, errorBody(sello.CodeUnavailable), ""},
		{"OpenAPI", "GET /openapi.json", 200, nil, api.OpenAPIDocument(), ""},
		{"UnknownPath", "GET /nope", 404, nil, errorBody(sello.CodeNotFound), ""},
		{"UnknownEnvironment", "POST /Produccion/documentos-ecf", 404, nil, errorBody(sello.CodeNotFound), ""},
		{"UnknownMethod", "DELETE /TesteCF/documentos-ecf", 404, nil, errorBody(sello.CodeNotFound), ""},

		// Answers that break the contract.
		{"ErrUndocumentedStatus", create, 201, rl, created, "status is not supported"},
		{"ErrUndocumentedErrorStatus", listDocs, 409, rl, errorBody(sello.CodeConflict), "status is not supported"},
		{"ErrNoCorrelationID", create, 202, with(rl, "X-Correlation-Id", ""), created, "X-Correlation-Id"},
		{"ErrCorrelationIDMismatch", create, 202, with(rl, "X-Correlation-Id", "other"), created, "differs"},
		{"ErrNoRateLimit", create, 202, with(rl, "RateLimit", ""), created, `"RateLimit" missing`},
		{"ErrBadRateLimit", create, 202, with(rl, "RateLimit", "standard;remaining=4"), created, `"RateLimit" doesn't match`},
		{"ErrBadRateLimitPolicy", get, 200, with(rl, "RateLimit-Policy", `"standard";w=4`), rejected, `"RateLimit-Policy" doesn't match`},
		{"ErrContentType", create, 202, with(rl, "Content-Type", "text/plain"), created, "Content-Type"},
		{"ErrUnknownStatus", create, 202, rl, edit(created, func(m map[string]any) { docOf(m)["status"] = "queued" }), "status"},
		{"ErrTrackIDOmitted", create, 202, rl, edit(created, func(m map[string]any) { delete(docOf(m), "trackId") }), "trackId"},
		{"ErrBuyerRNCOmitted", create, 202, rl, edit(created, func(m map[string]any) { delete(docOf(m), "buyerRnc") }), "buyerRnc"},
		{"ErrBuyerRNCEmpty", create, 202, rl, edit(created, func(m map[string]any) { docOf(m)["buyerRnc"] = "" }), "buyerRnc"},
		{"ErrExtraField", create, 202, rl, edit(created, func(m map[string]any) { docOf(m)["tenantId"] = "t1" }), "tenantId"},
		{"ErrTotalDecimals", create, 202, rl, edit(created, func(m map[string]any) { docOf(m)["total"] = "1770.0" }), "total"},
		{"ErrTotalNumber", create, 202, rl, edit(created, func(m map[string]any) { docOf(m)["total"] = 1770 }), "total"},
		{"ErrTimeWithoutMillis", create, 202, rl, edit(created, func(m map[string]any) { docOf(m)["createdAt"] = "2025-06-01T14:03:07Z" }), "createdAt"},
		{"ErrTimeNotUTC", create, 202, rl, edit(created, func(m map[string]any) { docOf(m)["updatedAt"] = "2025-06-01T10:03:07.123-04:00" }), "updatedAt"},
		{"ErrBadENCF", get, 200, rl, edit(rejected, func(m map[string]any) { docOf(m)["encf"] = "B0100000001" }), "encf"},
		{"ErrTypeWithoutE", get, 200, rl, edit(rejected, func(m map[string]any) { docOf(m)["type"] = "31" }), "type"},
		{"ErrDGIIMensajesNull", get, 200, rl, edit(rejected, func(m map[string]any) { docOf(m)["dgii"].(map[string]any)["mensajes"] = nil }), "mensajes"},
		{"ErrDeliveryStatus", get, 200, rl, edit(rejected, func(m map[string]any) { docOf(m)["delivery"] = map[string]any{"status": "sent"} }), "delivery"},
		{"ErrNotOK", create, 202, rl, edit(created, func(m map[string]any) { m["ok"] = false }), "ok"},
		{"ErrNoCorrelationIDInBody", create, 202, rl, edit(created, func(m map[string]any) { delete(m, "correlationId") }), "correlationId"},
		{"ErrValidateNotValid", validate, 200, rl, edit([]byte(validateBody), func(m map[string]any) { m["valid"] = false }), "valid"},
		{"ErrListNoNextCursor", listDocs, 200, rl, edit(list, func(m map[string]any) { delete(m, "nextCursor") }), "nextCursor"},
		{"ErrListNoHasMore", listDocs, 200, rl, edit(list, func(m map[string]any) { delete(m, "hasMore") }), "hasMore"},
		{"ErrListOldName", listDocs, 200, rl, edit(list, func(m map[string]any) { m["documents"] = m["data"] }), "documents"},
		{"ErrListItemNotDocument", listDocs, 200, rl, edit(list, func(m map[string]any) { m["data"] = []any{map[string]any{"id": "x"}} }), "data"},
		{"ErrBatchFoundWithoutDocument", status, 200, rl, edit(batch, func(m map[string]any) {
			delete(m["results"].([]any)[0].(map[string]any), "document")
		}), "results"},
		{"ErrBatchNotFoundWithDocument", status, 200, rl, edit(batch, func(m map[string]any) {
			m["results"].([]any)[1].(map[string]any)["document"] = m["results"].([]any)[0].(map[string]any)["document"]
		}), "results"},
		{"ErrBatchNotFoundDocumentOmitted", status, 200, rl, edit(batch, func(m map[string]any) {
			delete(m["results"].([]any)[1].(map[string]any), "document")
		}), "results"},
		{"ErrFailureReasonOmitted", get, 200, rl, edit(rejected, func(m map[string]any) { delete(docOf(m), "failureReason") }), "failureReason"},
		{"ErrDeliveryReasonEmpty", get, 200, rl, edit(rejected, func(m map[string]any) { docOf(m)["delivery"].(map[string]any)["reason"] = "" }), "delivery"},
		{"ErrWrongCodeForStatus", create, 401, nil, errorBody(sello.CodeInsufficientScope), "code"},
		{"ErrForbiddenWithoutRateLimit", get, 403, nil, errorBody(sello.CodeEnvironmentMismatch), `"RateLimit" missing`},
		{"ErrUnknownCode", create, 400, rl, edit(errorBody(sello.CodeInvalidJSON), func(m map[string]any) { m["error"].(map[string]any)["code"] = "BAD_JSON" }), "code"},
		{"ErrErrorOK", create, 400, rl, edit(errorBody(sello.CodeInvalidJSON), func(m map[string]any) { m["ok"] = true }), "ok"},
		{"ErrErrorNoMessage", create, 400, rl, edit(errorBody(sello.CodeInvalidJSON), func(m map[string]any) { delete(m["error"].(map[string]any), "message") }), "message"},
		{"ErrDetailWithoutPath", create, 422, rl, edit(errorBody(sello.CodeValidationFailed), func(m map[string]any) {
			m["error"].(map[string]any)["details"] = []any{map[string]any{"message": "bad"}}
		}), "path"},
		{"ErrRetryAfterMissing", status, 429, with(rateLimitHeaders(sello.CodeRateLimited), "Retry-After", ""), errorBody(sello.CodeRateLimited), `"Retry-After" missing`},
		{"ErrRetryAfterSecondsMissing", status, 429, rateLimitHeaders(sello.CodeRateLimited), edit(errorBody(sello.CodeRateLimited), func(m map[string]any) {
			delete(m["error"].(map[string]any), "retryAfterSeconds")
		}), "retryAfterSeconds"},
		{"ErrRetryAfterSecondsNotRateLimited", create, 400, rl, edit(errorBody(sello.CodeInvalidJSON), func(m map[string]any) {
			m["error"].(map[string]any)["retryAfterSeconds"] = 3
		}), "retryAfterSeconds"},
		{"ErrHealthzBody", "GET /healthz", 200, nil, []byte(`{"status":"ok"}`), "doesn't match"},
		{"ErrNotJSON", create, 202, rl, []byte(`{"ok":true`), "decode"},
		{"ErrUnknownPathOK", "GET /nope", 200, nil, []byte(`{"ok":true}`), "not an error"},
		{"ErrUnknownPathPlainText", "GET /nope", 404, with(nil, "Content-Type", "text/plain; charset=utf-8"), []byte("404 page not found\n"), "Content-Type"},
		{"ErrUnknownPathBody", "PUT /TesteCF/documentos-ecf", 405, nil, []byte(`{"error":"method not allowed"}`), "ErrorResponse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method, target, _ := strings.Cut(tt.request, " ")
			req := httptest.NewRequest(method, target, nil)
			resp := response(tt.status, tt.body, tt.headers)
			err := c.ValidateResponse(req, resp, tt.body)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("valid response rejected: %v", err)
			case tt.want != "" && err == nil:
				t.Fatalf("invalid response accepted, want an error about %q", tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Fatalf("error %q does not mention %q", err, tt.want)
			}

			// CheckResponse fails the test exactly when ValidateResponse
			// finds a problem, and says where.
			rec := &recorder{TB: t}
			c.CheckResponse(rec, req, []byte(`{"encfs":[]}`), resp, tt.body)
			if got, want := len(rec.errors) > 0, tt.want != ""; got != want {
				t.Fatalf("CheckResponse failed = %v, want %v (%q)", got, want, rec.errors)
			}
			if tt.want != "" {
				msg := rec.errors[0]
				if head := fmt.Sprintf("%s %s → %d: ", method, target, tt.status); !strings.Contains(msg, head) {
					t.Errorf("message %q lacks %q", msg, head)
				}
			}
		})
	}
}

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
	r.TB.FailNow()
}

func TestContractCheckEventBody(t *testing.T) {
	c := apitest.NewContract(t)
	for _, typ := range eventTypes(t) {
		t.Run(typ, func(t *testing.T) {
			e := sello.NewDocumentEvent(sello.EventType(typ), rejectedDocument(), "info", "Something happened.", now)
			if !strings.HasPrefix(typ, "ecf.") {
				e.Document = nil
				e.Data.Payload = map[string]any{"inboundDocumentId": "01976a2b-0000-7000-8000-00000000d001"}
			}
			body, err := json.Marshal(e.Resource())
			if err != nil {
				t.Fatal(err)
			}
			rec := &recorder{TB: t}
			c.CheckEventBody(rec, body)
			if len(rec.errors) > 0 {
				t.Fatal(rec.errors[0])
			}
		})
	}

	e := sello.NewDocumentEvent(sello.EventECFQueued, queuedDocument(), "info", "Queued.", now)
	valid, _ := json.Marshal(e.Resource())
	for _, tt := range []struct {
		name string
		f    func(m map[string]any)
		want string
	}{
		{"ErrUnknownType", func(m map[string]any) { m["type"] = "ecf.created" }, "type"},
		{"ErrEnvironmentAsInPaths", func(m map[string]any) { m["environment"] = "TesteCF" }, "environment"},
		{"ErrCreatedAtWithoutMillis", func(m map[string]any) { m["createdAt"] = "2025-06-01T14:03:07Z" }, "createdAt"},
		{"ErrIDNotUUID", func(m map[string]any) { m["id"] = "evt_123" }, "id"},
		{"ErrNoPayload", func(m map[string]any) { delete(m["data"].(map[string]any), "payload") }, "payload"},
		{"ErrPayloadNull", func(m map[string]any) { m["data"].(map[string]any)["payload"] = nil }, "payload"},
		{"ErrSeverity", func(m map[string]any) { m["data"].(map[string]any)["severity"] = "debug" }, "severity"},
		{"ErrDocumentMissing", func(m map[string]any) { delete(m, "document") }, "document"},
		{"ErrDocumentExtraField", func(m map[string]any) { docOf(m)["total"] = "1.00" }, "total"},
		{"ErrDocumentTrackIDOmitted", func(m map[string]any) { delete(docOf(m), "trackId") }, "document"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := c.ValidateEventBody(edit(valid, tt.f))
			if err == nil {
				t.Fatalf("invalid event accepted, want an error about %q", tt.want)
			} else if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q does not mention %q", err, tt.want)
			}
			rec := &recorder{TB: t}
			c.CheckEventBody(rec, edit(valid, tt.f))
			if len(rec.errors) != 1 {
				t.Fatalf("CheckEventBody recorded %q, want one failure", rec.errors)
			}
		})
	}
}

func TestContractCheckEventDelivery(t *testing.T) {
	c := apitest.NewContract(t)
	e := sello.NewDocumentEvent(sello.EventECFAccepted, rejectedDocument(), "info", "Accepted.", now)
	body, _ := json.Marshal(e.Resource())
	delivery := func(mod func(h http.Header)) *http.Request {
		r := httptest.NewRequest("POST", "https://erp.example.com/hooks/sello", bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("User-Agent", "Sello-Webhooks/1.0.0")
		r.Header.Set("Sello-Event-Id", e.ID)
		r.Header.Set("Sello-Event-Type", string(e.Type))
		r.Header.Set("Sello-Signature", "t=1748786587,v1="+strings.Repeat("ab", 32)+",v1="+strings.Repeat("0f", 32))
		if mod != nil {
			mod(r.Header)
		}
		return r
	}
	if err := c.ValidateEventDelivery(delivery(nil), body); err != nil {
		t.Fatalf("valid delivery rejected: %v", err)
	}
	for _, tt := range []struct {
		name string
		mod  func(h http.Header)
		want string
	}{
		{"ErrNoSignature", func(h http.Header) { h.Del("Sello-Signature") }, "Sello-Signature"},
		{"ErrSignatureFormat", func(h http.Header) { h.Set("Sello-Signature", "v1=abc,t=1") }, "Sello-Signature"},
		{"ErrUserAgent", func(h http.Header) { h.Set("User-Agent", "Go-http-client/1.1") }, "User-Agent"},
		{"ErrEventIDMismatch", func(h http.Header) { h.Set("Sello-Event-Id", "01976a1e-0000-7000-8000-000000000000") }, "Sello-Event-Id"},
		{"ErrEventTypeMismatch", func(h http.Header) { h.Set("Sello-Event-Type", "ecf.rejected") }, "Sello-Event-Type"},
		{"ErrContentType", func(h http.Header) { h.Set("Content-Type", "text/plain") }, "text/plain"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := c.ValidateEventDelivery(delivery(tt.mod), body)
			if err == nil {
				t.Fatalf("invalid delivery accepted, want an error about %q", tt.want)
			} else if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q does not mention %q", err, tt.want)
			}
		})
	}
}

// TestOpenAPISingleTypes checks that no schema has a type array other than
// OpenAPI 3.1's nullable form [T, "null"]: generators such as oapi-codegen
// refuse ["string","integer"], which anyOf expresses instead.
func TestOpenAPISingleTypes(t *testing.T) {
	var doc any
	if err := json.Unmarshal(api.OpenAPIDocument(), &doc); err != nil {
		t.Fatal(err)
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if types, ok := v["type"].([]any); ok {
				if len(types) != 2 || !slices.Contains(types, any("null")) {
					t.Errorf("%s: type %v, want one type (anyOf for alternatives)", path, types)
				}
			}
			for k, x := range v {
				walk(path+"/"+k, x)
			}
		case []any:
			for i, x := range v {
				walk(path+"/"+strconv.Itoa(i), x)
			}
		}
	}
	walk("#", doc)
}

// TestOpenAPIUnknownEnvironment checks that every operation under {env}
// documents the 404 NOT_FOUND the server answers for an unknown environment,
// and that the server does answer it.
func TestOpenAPIUnknownEnvironment(t *testing.T) {
	c := apitest.NewContract(t)
	f := mustFixture(t)
	n := 0
	for path, item := range c.Document().Paths.Map() {
		if !strings.HasPrefix(path, "/{env}/") {
			continue
		}
		for method, op := range item.Operations() {
			n++
			r := op.Responses.Status(http.StatusNotFound)
			if r == nil || r.Value == nil || r.Value.Description == nil {
				t.Errorf("%s %s: no 404 response", method, path)
				continue
			}
			if desc := *r.Value.Description; !strings.Contains(desc, "`{env}` is not an environment") {
				t.Errorf("%s %s: 404 %q does not document an unknown environment", method, path, desc)
			}
			if h := r.Value.Headers["RateLimit"]; h == nil || !h.Value.Required {
				t.Errorf("%s %s: 404 must require RateLimit (answered after the rate limit)", method, path)
			}
			target := strings.NewReplacer("{env}", "Produccion", "{encf}", "E310000000001").Replace(path)
			rec := f.do(method, target, apitest.Invoice(testRNC))
			body := rec.Body.Bytes()
			if rec.Code != http.StatusNotFound || !bytes.Contains(body, []byte(`"NOT_FOUND"`)) || !bytes.Contains(body, []byte("Unknown environment")) {
				t.Errorf("%s %s: %d %s, want 404 NOT_FOUND for an unknown environment", method, target, rec.Code, body)
			}
			if rec.Header().Get("RateLimit") == "" || rec.Header().Get("RateLimit-Policy") == "" {
				t.Errorf("%s %s: the 404 carries no RateLimit headers", method, target)
			}
			req := httptest.NewRequest(method, strings.ReplaceAll(target, "Produccion", "TesteCF"), nil)
			if err := c.ValidateResponse(req, rec.Result(), body); err != nil {
				t.Errorf("%s %s: the server's 404 does not match the document: %v", method, target, err)
			}
		}
	}
	if n < 7 {
		t.Errorf("%d operations under {env}, want at least 7", n)
	}
}

// oapiCodegen is the generator TestOpenAPIGoClient runs, pinned in
// ../tools/go.mod.
const oapiCodegen = "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen"

// clientProgram uses the client oapi-codegen generates from /openapi.json:
// it validates and creates the invoice in the file os.Args[3], reads the
// document back and lists the documents, decoding every answer into the
// generated types.
const clientProgram = `package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"

	"example.com/generated/sello"
)

func main() {
	url, key, invoice := os.Args[1], os.Args[2], os.Args[3]
	body, err := os.ReadFile(invoice)
	check(err)
	ctx := context.Background()
	c, err := sello.NewClientWithResponses(url, sello.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("X-API-KEY", key)
		return nil
	}))
	check(err)

	health, err := c.GetHealthWithResponse(ctx)
	check(err)
	fmt.Println("health", health.StatusCode())

	validate := true
	v, err := c.CreateDocumentWithBodyWithResponse(ctx, "TesteCF", &sello.CreateDocumentParams{Validate: &validate}, "application/json", bytes.NewReader(body))
	check(err)
	if v.JSON200 == nil {
		fail(v.StatusCode(), v.Body)
	}
	id := v.JSON200.Document.ECF.Encabezado.IdDoc
	fmt.Println("validated", v.JSON200.Valid, id.TipoeCF, *id.TipoPago)

	created, err := c.CreateDocumentWithBodyWithResponse(ctx, "TesteCF", nil, "application/json", bytes.NewReader(body))
	check(err)
	if created.JSON202 == nil {
		fail(created.StatusCode(), created.Body)
	}
	doc, err := c.GetDocumentWithResponse(ctx, "TesteCF", created.JSON202.Document.Encf)
	check(err)
	if doc.JSON200 == nil {
		fail(doc.StatusCode(), doc.Body)
	}
	d := doc.JSON200.Document
	fmt.Println("document", d.Type, d.Status, d.Delivery.Status, d.CommercialApproval == nil)

	// A list's answer is the list envelope with typed items.
	list, err := c.ListDocumentsWithResponse(ctx, "TesteCF", &sello.ListDocumentsParams{})
	check(err)
	if list.JSON200 == nil || len(list.JSON200.Data) == 0 {
		fail(list.StatusCode(), list.Body)
	}
	fmt.Println("listed", len(list.JSON200.Data), list.JSON200.Data[0].Encf, list.JSON200.HasMore, list.JSON200.NextCursor == nil)

	missing, err := c.GetDocumentWithResponse(ctx, "Produccion", d.Encf)
	check(err)
	if missing.JSON404 == nil {
		fail(missing.StatusCode(), missing.Body)
	}
	fmt.Println("unknown environment", missing.StatusCode(), missing.JSON404.Error.Code)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func fail(status int, body []byte) {
	fmt.Fprintf(os.Stderr, "unexpected answer %d: %s\n", status, body)
	os.Exit(1)
}
`

// TestOpenAPIGoClient generates a Go client from the served /openapi.json
// with oapi-codegen, vets it and runs a program on it against a live server.
func TestOpenAPIGoClient(t *testing.T) {
	if testing.Short() {
		t.Skip("builds oapi-codegen and a client; skipped with -short")
	}
	gen := oracle.GoTool(t, oapiCodegen)
	f := mustFixture(t)
	srv := httptest.NewServer(f.handler)
	t.Cleanup(srv.Close)

	resp, err := http.Get(srv.URL + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /openapi.json: %d %v", resp.StatusCode, err)
	}

	// A module of its own with the tools module's pins (the generated
	// client needs github.com/oapi-codegen/runtime).
	dir := t.TempDir()
	gomod, err := os.ReadFile(filepath.Join(oracle.ToolsDir(), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	gomod = regexp.MustCompile(`(?m)^module .*$`).ReplaceAll(gomod, []byte("module example.com/generated"))
	gosum, err := os.ReadFile(filepath.Join(oracle.ToolsDir(), "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	invoice := filepath.Join(dir, "invoice.json")
	for name, data := range map[string][]byte{
		"go.mod": gomod, "go.sum": gosum, "openapi.json": spec,
		"main.go": []byte(clientProgram), "invoice.json": apitest.Invoice(testRNC),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sello"), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run(gen, "-generate", "types,client", "-package", "sello", "-o", "sello/client.gen.go", "openapi.json")
	run("go", "vet", "./...")
	got := run("go", "run", ".", srv.URL, f.key, invoice)
	want := "health 200\n" +
		"validated true 31 1\n" +
		"document E31 queued_for_signing not_sent true\n" +
		"listed 1 E310000000001 false true\n" +
		"unknown environment 404 NOT_FOUND\n"
	if got != want {
		t.Errorf("the generated client's program printed\n%s\nwant\n%s", got, want)
	}
}

// TestOpenAPILint lints the document with Redocly's CLI (pinned in
// ../tools/package-lock.json, rules in ../tools/redocly.yaml): zero errors.
func TestOpenAPILint(t *testing.T) {
	redocly := oracle.Redocly(t)
	tools := oracle.ToolsDir()
	spec := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(spec, api.OpenAPIDocument(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(redocly, "lint", "--config", filepath.Join(tools, "redocly.yaml"), "--format", "json", spec)
	cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output() // exit status 1 when there are errors; the report says which
	var report struct {
		Totals   struct{ Errors, Warnings int }
		Problems []struct {
			RuleID, Severity, Message string
			Location                  []struct{ Pointer string }
		}
	}
	if jsonErr := json.Unmarshal(out, &report); jsonErr != nil {
		t.Fatalf("redocly lint: %v, %v\n%s\n%s", err, jsonErr, out, stderr.Bytes())
	}
	for _, p := range report.Problems {
		where := ""
		if len(p.Location) > 0 {
			where = p.Location[0].Pointer
		}
		if p.Severity == "error" {
			t.Errorf("%s %s: %s", p.RuleID, where, p.Message)
		} else {
			t.Logf("%s %s %s: %s", p.Severity, p.RuleID, where, p.Message)
		}
	}
	if report.Totals.Errors != 0 || err != nil {
		t.Errorf("redocly lint: %d errors, %d warnings (exit: %v)", report.Totals.Errors, report.Totals.Warnings, err)
	}
}
