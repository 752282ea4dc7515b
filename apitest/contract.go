package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/sello-do/sello/api"
)

// The names this package looks up in the document.
const (
	errorSchemaName = "ErrorResponse" // components.schemas: every 4xx/5xx body
	eventWebhook    = "event"         // webhooks: the event delivery
	correlationHdr  = "X-Correlation-Id"
)

// Contract checks responses and webhook deliveries against Sello's OpenAPI
// document. It is safe for concurrent use.
type Contract struct {
	doc         *openapi3.T
	router      routers.Router
	errorSchema *openapi3.SchemaRef
	event       *routers.Route
}

// load parses and validates the embedded document once per test binary: the
// result is only read afterwards.
var load = sync.OnceValues(func() (*Contract, error) {
	return Load(api.OpenAPIDocument())
})

// NewContract returns the contract of api.OpenAPIDocument. It fails tb at
// once when the document does not load or is not a valid OpenAPI 3.1
// document.
func NewContract(tb testing.TB) *Contract {
	tb.Helper()
	c, err := load()
	if err != nil {
		tb.Fatalf("apitest: %v", err)
	}
	return c
}

// Load returns the contract of the OpenAPI document data, which must be a
// valid OpenAPI 3.1 document with the components.schemas.ErrorResponse schema
// and a webhooks.event POST operation. Most callers want NewContract.
func Load(data []byte) (*Contract, error) {
	// The signed XML read is a document, checked as text (xmllint and
	// xmlsec1 check its content); kin-openapi has no XML decoder.
	openapi3filter.RegisterBodyDecoder("application/xml", openapi3filter.FileBodyDecoder)
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("load OpenAPI document: %w", err)
	}
	if !doc.IsOpenAPI31OrLater() {
		return nil, fmt.Errorf("OpenAPI document is version %q, want 3.1", doc.OpenAPI)
	}
	// Validate enables JSON Schema 2020-12 itself for a 3.1 document.
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("invalid OpenAPI document: %w", err)
	}
	// Route on paths alone: tests run on loopback with any host and port,
	// while the document's server is a template for deployments.
	doc.Servers = nil
	router, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("route OpenAPI document: %w", err)
	}
	c := &Contract{doc: doc, router: router}
	if doc.Components != nil {
		c.errorSchema = doc.Components.Schemas[errorSchemaName]
	}
	if c.errorSchema == nil || c.errorSchema.Value == nil {
		return nil, fmt.Errorf("OpenAPI document has no components.schemas.%s", errorSchemaName)
	}
	item := doc.Webhooks[eventWebhook]
	if item == nil || item.Post == nil || item.Post.RequestBody == nil || item.Post.RequestBody.Value == nil ||
		item.Post.RequestBody.Value.Content.Get("application/json") == nil {
		return nil, fmt.Errorf("OpenAPI document has no webhooks.%s POST with a JSON body", eventWebhook)
	}
	c.event = &routers.Route{Spec: doc, Path: eventWebhook, PathItem: item, Method: http.MethodPost, Operation: item.Post}
	return c, nil
}

// Document returns the loaded document. Callers must not modify it.
func (c *Contract) Document() *openapi3.T { return c.doc }

// CheckResponse fails tb (with tb.Errorf, so the test goes on) when resp,
// whose body is respBody, breaks the document for req: its status is not
// documented for the operation, a required header is missing, or a header or
// the body does not match its schema. The message names the method, path and
// status and gives kin-openapi's reason.
//
// The request is only used to find the operation: neither reqBody nor the
// request's parameters, headers or authentication are checked, so tests may
// send invalid requests. A request for a path or method the document does
// not list, or whose path parameters do not match their schemas (an unknown
// {env}, say), must get an error: a 4xx or 5xx status, X-Correlation-Id and
// an ErrorResponse body. req may be nil when resp.Request is set.
func (c *Contract) CheckResponse(tb testing.TB, req *http.Request, reqBody []byte, resp *http.Response, respBody []byte) {
	tb.Helper()
	if req == nil && resp != nil {
		req = resp.Request
	}
	if err := c.ValidateResponse(req, resp, respBody); err != nil {
		tb.Errorf("%s", describe(req, resp, reqBody, respBody, err))
	}
}

// ValidateResponse is CheckResponse returning the problem instead of failing
// a test: nil when resp (with body respBody) conforms to the document for
// req.
func (c *Contract) ValidateResponse(req *http.Request, resp *http.Response, respBody []byte) error {
	if req == nil || req.URL == nil {
		return errors.New("no request to find the operation by")
	} else if resp == nil {
		return errors.New("no response")
	}
	header := resp.Header
	if header == nil {
		header = http.Header{}
	}
	if err := checkCorrelation(header, respBody); err != nil {
		return err
	}

	route, params, err := c.router.FindRoute(req)
	if err == nil {
		err = checkPathParams(route, params)
	}
	if err != nil {
		// Not an operation of the document: it must be an error.
		return c.validateUndocumented(resp.StatusCode, header, respBody, err)
	}

	input := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request:    req,
			PathParams: params,
			Route:      route,
		},
		Status:  resp.StatusCode,
		Header:  header,
		Body:    io.NopCloser(bytes.NewReader(respBody)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), input); err != nil {
		if route.Operation.Responses.Status(resp.StatusCode) == nil {
			return fmt.Errorf("operation %s: %w (documented: %s)", route.Operation.OperationID, err,
				strings.Join(slices.Sorted(maps.Keys(route.Operation.Responses.Map())), ", "))
		}
		return fmt.Errorf("operation %s: %w", route.Operation.OperationID, err)
	}
	return nil
}

// validateUndocumented checks the answer to a request no operation matches:
// it must be an error with the generic error body.
func (c *Contract) validateUndocumented(status int, header http.Header, body []byte, routeErr error) error {
	if status < 400 {
		return fmt.Errorf("no documented operation (%v), yet status %d is not an error", routeErr, status)
	}
	if err := checkJSONContentType(header); err != nil {
		return fmt.Errorf("no documented operation (%v); error response: %w", routeErr, err)
	}
	if err := visit(c.errorSchema, body, openapi3.VisitAsResponse()); err != nil {
		return fmt.Errorf("no documented operation (%v); error body doesn't match schema #/components/schemas/%s: %w", routeErr, errorSchemaName, err)
	}
	return nil
}

// CheckEventBody fails tb when body is not a webhook event body as the
// document's webhooks section describes it (schema Event).
func (c *Contract) CheckEventBody(tb testing.TB, body []byte) {
	tb.Helper()
	if err := c.ValidateEventBody(body); err != nil {
		tb.Errorf("webhook event body: %v\nbody: %s", err, snippet(body))
	}
}

// ValidateEventBody is CheckEventBody returning the problem instead of
// failing a test.
func (c *Contract) ValidateEventBody(body []byte) error {
	schema := c.event.Operation.RequestBody.Value.Content.Get("application/json").Schema
	return visit(schema, body, openapi3.VisitAsRequest())
}

// CheckEventDelivery fails tb when req, whose body is body, is not a webhook
// delivery as the document describes it: its headers (Sello-Event-Id,
// Sello-Event-Type, Sello-Signature, User-Agent, Content-Type) and its body
// must match, and the id and type headers must equal the body's. The
// signature itself is not verified: that needs the endpoint's secret.
func (c *Contract) CheckEventDelivery(tb testing.TB, req *http.Request, body []byte) {
	tb.Helper()
	if err := c.ValidateEventDelivery(req, body); err != nil {
		tb.Errorf("webhook delivery: %v\nbody: %s", err, snippet(body))
	}
}

// ValidateEventDelivery is CheckEventDelivery returning the problem instead
// of failing a test.
func (c *Contract) ValidateEventDelivery(req *http.Request, body []byte) error {
	if req == nil {
		return errors.New("no request")
	} else if req.Method != http.MethodPost {
		return fmt.Errorf("method %s, want POST", req.Method)
	}
	r := req.Clone(context.Background())
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	input := &openapi3filter.RequestValidationInput{
		Request: r,
		Route:   c.event,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
	}
	if err := openapi3filter.ValidateRequest(context.Background(), input); err != nil {
		return err
	}
	var ev struct {
		ID   string `json:"id"`
		Type string `json:"type"`
	}
	if err := json.Unmarshal(body, &ev); err != nil {
		return fmt.Errorf("decode body: %w", err)
	}
	if got := req.Header.Get("Sello-Event-Id"); got != ev.ID {
		return fmt.Errorf("header Sello-Event-Id %q differs from body id %q", got, ev.ID)
	} else if got := req.Header.Get("Sello-Event-Type"); got != ev.Type {
		return fmt.Errorf("header Sello-Event-Type %q differs from body type %q", got, ev.Type)
	}
	return nil
}

// checkPathParams checks the path parameters against their schemas: a path
// like /Produccion/documentos-ecf has the shape of a documented path but is
// not one.
func checkPathParams(route *routers.Route, params map[string]string) error {
	var ps openapi3.Parameters
	ps = append(ps, route.PathItem.Parameters...)
	ps = append(ps, route.Operation.Parameters...)
	for _, p := range ps {
		if p.Value == nil || p.Value.In != openapi3.ParameterInPath || p.Value.Schema == nil {
			continue
		}
		v, ok := params[p.Value.Name]
		if !ok {
			return fmt.Errorf("path parameter %s missing", p.Value.Name)
		}
		if err := p.Value.Schema.Value.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
			return fmt.Errorf("path parameter %s=%q does not match its schema: %v", p.Value.Name, v, err)
		}
	}
	return nil
}

// checkCorrelation checks what every response carries: X-Correlation-Id,
// equal to the body's correlationId when there is one.
func checkCorrelation(header http.Header, body []byte) error {
	id := header.Get(correlationHdr)
	if id == "" {
		return fmt.Errorf("response header %q missing", correlationHdr)
	}
	var v struct {
		CorrelationID *string `json:"correlationId"`
	}
	if json.Unmarshal(body, &v) == nil && v.CorrelationID != nil && *v.CorrelationID != id {
		return fmt.Errorf("body correlationId %q differs from header %s %q", *v.CorrelationID, correlationHdr, id)
	}
	return nil
}

func checkJSONContentType(header http.Header) error {
	ct := header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		return fmt.Errorf("Content-Type %q, want application/json", ct)
	}
	return nil
}

// visit validates the JSON body against schema as JSON Schema 2020-12, the
// dialect of OpenAPI 3.1.
func visit(schema *openapi3.SchemaRef, body []byte, opts ...openapi3.SchemaValidationOption) error {
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("body is not JSON: %w", err)
	} else if dec.More() {
		return errors.New("body has data after the JSON value")
	}
	v, err := plain(v)
	if err != nil {
		return err
	}
	return schema.Value.VisitJSON(v, append(opts, openapi3.EnableJSONSchema2020())...)
}

// plain turns json.Number into float64, as kin-openapi's own body decoder
// does, after checking that it fits.
func plain(v any) (any, error) {
	switch v := v.(type) {
	case json.Number:
		f, err := v.Float64()
		if err != nil {
			return nil, fmt.Errorf("number %s: %w", v, err)
		}
		return f, nil
	case map[string]any:
		for k, e := range v {
			p, err := plain(e)
			if err != nil {
				return nil, err
			}
			v[k] = p
		}
	case []any:
		for i, e := range v {
			p, err := plain(e)
			if err != nil {
				return nil, err
			}
			v[i] = p
		}
	}
	return v, nil
}

// describe is a failure message: what was asked, what came back, and why it
// breaks the contract.
func describe(req *http.Request, resp *http.Response, reqBody, respBody []byte, err error) string {
	var b strings.Builder
	method, path, status := "?", "?", 0
	if req != nil {
		method = req.Method
		if req.URL != nil {
			path = req.URL.RequestURI()
		}
	}
	if resp != nil {
		status = resp.StatusCode
	}
	fmt.Fprintf(&b, "OpenAPI contract: %s %s → %d: %v", method, path, status, err)
	if len(reqBody) > 0 {
		fmt.Fprintf(&b, "\nrequest body: %s", snippet(reqBody))
	}
	fmt.Fprintf(&b, "\nresponse body: %s", snippet(respBody))
	return b.String()
}

func snippet(b []byte) string {
	const max = 600
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
