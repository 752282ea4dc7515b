package clienttest_test

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello/api"
	"github.com/sello-do/sello/client"
)

// sdkOperation is how the SDK covers one operation of the OpenAPI
// document.
type sdkOperation struct {
	// method is the Client method that calls it.
	method string
	// status is the success status whose answer method returns.
	status string
	// resource is the SDK type of the answer's resource (a list's item);
	// nil for a file (XML, PDF, ZIP) or for DGII's own e-CF format.
	resource reflect.Type
	// request is the SDK type encoded as the JSON body; nil for none, or
	// for DGII's e-CF format, which the SDK does not model.
	request reflect.Type
}

// unauthenticated are the operations outside /{env}/, which the SDK does
// not call: the deployment's probes and the document itself.
var unauthenticated = []string{"getHealth", "getReadiness", "getOpenAPIDocument"}

// sdkOperations maps every operation of the API to the SDK method that
// calls it, by operationId (and status, where one operation answers two
// shapes).
var sdkOperations = map[string][]sdkOperation{
	"createDocument": {
		{method: "CreateDocument", status: "202", resource: reflect.TypeFor[client.Document]()},
		{method: "ValidateDocument", status: "200"},
	},
	"listDocuments":          {{method: "ListDocuments", status: "200", resource: reflect.TypeFor[client.Document]()}},
	"getDocumentStatusBatch": {{method: "StatusBatch", status: "200", resource: reflect.TypeFor[[]client.StatusResult]()}},
	"getDocument":            {{method: "GetDocument", status: "200", resource: reflect.TypeFor[client.Document]()}},
	"getDocumentXML":         {{method: "GetDocumentXML", status: "200"}},
	"getDocumentPDF":         {{method: "GetDocumentPDF", status: "200"}},
	"listEvents":             {{method: "ListEvents", status: "200", resource: reflect.TypeFor[client.Event]()}},

	"listInboundDocuments":  {{method: "ListInboundDocuments", status: "200", resource: reflect.TypeFor[client.InboundDocument]()}},
	"getInboundDocument":    {{method: "GetInboundDocument", status: "200", resource: reflect.TypeFor[client.InboundDocument]()}},
	"getInboundDocumentXML": {{method: "GetInboundDocumentXML", status: "200"}},
	"getInboundDocumentPDF": {{method: "GetInboundDocumentPDF", status: "200"}},

	"createCommercialApproval": {{method: "CreateApproval", status: "202", resource: reflect.TypeFor[client.Approval](), request: reflect.TypeFor[client.CreateApprovalRequest]()}},
	"listApprovals":            {{method: "ListApprovals", status: "200", resource: reflect.TypeFor[client.Approval]()}},
	"getApproval":              {{method: "GetApproval", status: "200", resource: reflect.TypeFor[client.Approval]()}},

	"createSequence": {{method: "CreateSequence", status: "201", resource: reflect.TypeFor[client.Sequence](), request: reflect.TypeFor[client.CreateSequenceRequest]()}},
	"listSequences":  {{method: "ListSequences", status: "200", resource: reflect.TypeFor[client.Sequence]()}},

	"createVoid": {{method: "CreateVoid", status: "202", resource: reflect.TypeFor[client.Void](), request: reflect.TypeFor[client.CreateVoidRequest]()}},
	"listVoids":  {{method: "ListVoids", status: "200", resource: reflect.TypeFor[client.Void]()}},
	"getVoid":    {{method: "GetVoid", status: "200", resource: reflect.TypeFor[client.Void]()}},
	"getVoidXML": {{method: "GetVoidXML", status: "200"}},

	"createCertificationRun":                 {{method: "CreateCertificationRun", status: "202", resource: reflect.TypeFor[client.CertificationRun](), request: reflect.TypeFor[client.CertificationRows]()}},
	"listCertificationRuns":                  {{method: "ListCertificationRuns", status: "200", resource: reflect.TypeFor[client.CertificationRunSummary]()}},
	"getCertificationRun":                    {{method: "GetCertificationRun", status: "200", resource: reflect.TypeFor[client.CertificationRun]()}},
	"getCertificationPrintedRepresentations": {{method: "GetCertificationPrintedRepresentations", status: "200"}},

	"getDGIIStatus": {{method: "GetDGIIStatus", status: "200", resource: reflect.TypeFor[client.DGIIStatus]()}},
}

// TestSDKCoversOpenAPI checks the SDK against the OpenAPI document: every
// operation has its Client method; the method returns the SDK type of the
// answer's resource (in a Page for a list, as bytes for a file); and that
// type's JSON field names are the schema's property names, the nested
// objects' too, with matching kinds (string, integer, boolean, array).
// The request bodies the SDK encodes are checked the same way.
func TestSDKCoversOpenAPI(t *testing.T) {
	var doc oaDoc
	if err := json.Unmarshal(api.OpenAPIDocument(), &doc); err != nil {
		t.Fatal(err)
	}
	clientType := reflect.TypeFor[*client.Client]()
	seen := map[string]bool{}
	for _, path := range sortedKeys(doc.Paths) {
		for _, verb := range sortedKeys(doc.Paths[path]) {
			op := doc.Paths[path][verb]
			if op.OperationID == "" {
				continue // parameters, summary…
			}
			name := op.OperationID
			seen[name] = true
			if slices.Contains(unauthenticated, name) {
				continue
			}
			covers, ok := sdkOperations[name]
			if !ok {
				t.Errorf("%s %s (%s): no SDK method calls it", strings.ToUpper(verb), path, name)
				continue
			}
			for _, sdk := range covers {
				t.Run(name+"/"+sdk.method, func(t *testing.T) {
					m, ok := clientType.MethodByName(sdk.method)
					if !ok {
						t.Fatalf("client.Client has no method %s", sdk.method)
					}
					checkAnswer(t, &doc, op, sdk, m.Type.Out(0))
					if sdk.request != nil {
						body := op.RequestBody.Content["application/json"].Schema
						if body == nil {
							t.Fatalf("%s takes no JSON body, the SDK sends %s", name, sdk.request)
						}
						compareSchema(t, &doc, "request", body, sdk.request)
					}
				})
			}
		}
	}
	for name := range sdkOperations {
		if !seen[name] {
			t.Errorf("the SDK maps operation %s, which the document does not have", name)
		}
	}
	t.Run("webhook", func(t *testing.T) {
		compareSchema(t, &doc, "event", &oaSchema{Ref: "#/components/schemas/Event"}, reflect.TypeFor[client.Event]())
	})
}

// checkAnswer checks that out, the method's first result, carries sdk's
// resource as the answer's schema describes it.
func checkAnswer(t *testing.T, doc *oaDoc, op *oaOperation, sdk sdkOperation, out reflect.Type) {
	t.Helper()
	resp := op.Responses[sdk.status]
	if resp == nil {
		t.Fatalf("no %s answer", sdk.status)
	}
	resp = doc.response(resp)
	js, ok := resp.Content["application/json"]
	if !ok {
		// A file: the SDK returns its bytes.
		if out != reflect.TypeFor[[]byte]() || sdk.resource != nil || len(resp.Content) != 1 {
			t.Fatalf("a %v answer: the method returns %s, want []byte", sortedKeys(resp.Content), out)
		}
		return
	}
	if sdk.resource == nil {
		return // DGII's e-CF (validate): the SDK keeps it as raw JSON
	}
	answer := doc.resolve(js.Schema)
	if len(answer.AllOf) == 1 && strings.HasSuffix(answer.AllOf[0].Ref, "/ListEnvelope") {
		// A list: Page[T] with Data []T.
		data, ok := out.Elem().FieldByName("Data")
		if out.Kind() != reflect.Pointer || !ok || data.Type != reflect.SliceOf(sdk.resource) || !strings.HasPrefix(out.Elem().Name(), "Page[") {
			t.Fatalf("a list: the method returns %s, want *client.Page[%s]", out, sdk.resource)
		}
		compareSchema(t, doc, "data[]", answer.Properties["data"].Items, sdk.resource)
		return
	}
	var field string
	for name := range answer.Properties {
		if name != "ok" && name != "correlationId" {
			if field != "" {
				t.Fatalf("the answer has %s and %s beside ok and correlationId: want one resource", field, name)
			}
			field = name
		}
	}
	if out.Kind() != reflect.Pointer || out.Elem().Kind() != reflect.Struct || !hasFieldOfType(out.Elem(), sdk.resource) {
		t.Fatalf("the method returns %s, want a struct with a %s (the answer's %s)", out, sdk.resource, field)
	}
	compareSchema(t, doc, field, answer.Properties[field], sdk.resource)
}

func hasFieldOfType(st, ft reflect.Type) bool {
	for f := range st.Fields() {
		if f.Type == ft {
			return true
		}
	}
	return false
}

var (
	timeType      = reflect.TypeFor[time.Time]()
	textUnmarshal = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// compareSchema checks that gt decodes what s describes: an object's
// properties are gt's JSON field names, recursively; scalars have a
// matching kind.
func compareSchema(t *testing.T, doc *oaDoc, at string, s *oaSchema, gt reflect.Type) {
	t.Helper()
	s = doc.resolve(s)
	for gt.Kind() == reflect.Pointer {
		gt = gt.Elem()
	}
	if alts := nonNull(doc, append(s.AnyOf, s.OneOf...)); len(alts) > 0 {
		if len(alts) == 1 {
			compareSchema(t, doc, at, alts[0], gt)
		}
		return // a value of several shapes (Amount, Code): not modelled field by field
	}
	switch {
	case len(s.Properties) > 0 || len(s.AllOf) > 0:
		props := doc.properties(s)
		if gt.Kind() != reflect.Struct {
			t.Errorf("%s: an object, the SDK's %s is a %s", at, gt, gt.Kind())
			return
		}
		fields := jsonFields(gt)
		var missing, extra []string
		for name := range props {
			if _, ok := fields[name]; !ok {
				missing = append(missing, name)
			}
		}
		for name := range fields {
			if _, ok := props[name]; !ok {
				extra = append(extra, name)
			}
		}
		sort.Strings(missing)
		sort.Strings(extra)
		if len(missing) > 0 || len(extra) > 0 {
			t.Errorf("%s: %s lacks %v and has %v beyond the schema's properties", at, gt, missing, extra)
		}
		for name, ps := range props {
			if ft, ok := fields[name]; ok {
				compareSchema(t, doc, at+"."+name, ps, ft)
			}
		}
	case s.is("array"):
		if gt.Kind() != reflect.Slice {
			t.Errorf("%s: an array, the SDK's %s is a %s", at, gt, gt.Kind())
			return
		}
		if s.Items != nil {
			compareSchema(t, doc, at+"[]", s.Items, gt.Elem())
		}
	case s.is("object"):
		if gt.Kind() != reflect.Map && gt.Kind() != reflect.Interface {
			t.Errorf("%s: an object of any keys, the SDK's %s is a %s", at, gt, gt.Kind())
		}
	case s.is("string"):
		if gt.Kind() != reflect.String && gt != timeType && !reflect.PointerTo(gt).Implements(textUnmarshal) {
			t.Errorf("%s: a string, the SDK's %s is a %s", at, gt, gt.Kind())
		}
	case s.is("integer"):
		switch gt.Kind() {
		case reflect.Int, reflect.Int32, reflect.Int64:
		default:
			t.Errorf("%s: an integer, the SDK's %s is a %s", at, gt, gt.Kind())
		}
	case s.is("boolean"):
		if gt.Kind() != reflect.Bool {
			t.Errorf("%s: a boolean, the SDK's %s is a %s", at, gt, gt.Kind())
		}
	}
}

// jsonFields returns the JSON names of gt's encoded fields and their types.
func jsonFields(gt reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for f := range gt.Fields() {
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// nonNull returns the alternatives of an anyOf or oneOf that are not null.
func nonNull(doc *oaDoc, alts []*oaSchema) []*oaSchema {
	var out []*oaSchema
	for _, a := range alts {
		if r := doc.resolve(a); !r.is("null") || len(r.types()) > 1 {
			out = append(out, a)
		}
	}
	return out
}

// The parts of an OpenAPI document the contract reads.
type (
	oaDoc struct {
		Paths      map[string]map[string]*oaOperation `json:"paths"`
		Components struct {
			Schemas   map[string]*oaSchema   `json:"schemas"`
			Responses map[string]*oaResponse `json:"responses"`
		} `json:"components"`
	}
	oaOperation struct {
		OperationID string                 `json:"operationId"`
		RequestBody oaBody                 `json:"requestBody"`
		Responses   map[string]*oaResponse `json:"responses"`
	}
	oaBody struct {
		Content map[string]struct {
			Schema *oaSchema `json:"schema"`
		} `json:"content"`
	}
	oaResponse struct {
		Ref     string `json:"$ref"`
		Content map[string]struct {
			Schema *oaSchema `json:"schema"`
		} `json:"content"`
	}
	oaSchema struct {
		Ref        string               `json:"$ref"`
		Type       json.RawMessage      `json:"type"`
		Properties map[string]*oaSchema `json:"properties"`
		Items      *oaSchema            `json:"items"`
		AllOf      []*oaSchema          `json:"allOf"`
		AnyOf      []*oaSchema          `json:"anyOf"`
		OneOf      []*oaSchema          `json:"oneOf"`
	}
)

// UnmarshalJSON reads a path item, whose non-operation members (summary,
// parameters) are not objects of operations.
func (o *oaOperation) UnmarshalJSON(b []byte) error {
	type plain oaOperation
	if len(b) == 0 || b[0] != '{' {
		return nil
	}
	return json.Unmarshal(b, (*plain)(o))
}

func (d *oaDoc) resolve(s *oaSchema) *oaSchema {
	for s != nil && s.Ref != "" {
		name := strings.TrimPrefix(s.Ref, "#/components/schemas/")
		r, ok := d.Components.Schemas[name]
		if !ok {
			panic(fmt.Sprintf("unknown schema %s", s.Ref))
		}
		s = r
	}
	return s
}

func (d *oaDoc) response(r *oaResponse) *oaResponse {
	if r.Ref != "" {
		return d.Components.Responses[strings.TrimPrefix(r.Ref, "#/components/responses/")]
	}
	return r
}

// properties merges the properties of s and of its allOf.
func (d *oaDoc) properties(s *oaSchema) map[string]*oaSchema {
	out := map[string]*oaSchema{}
	for _, a := range s.AllOf {
		for k, v := range d.properties(d.resolve(a)) {
			out[k] = v
		}
	}
	for k, v := range s.Properties {
		out[k] = v
	}
	return out
}

func (s *oaSchema) types() []string {
	var one string
	if json.Unmarshal(s.Type, &one) == nil {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(s.Type, &many)
	return many
}

func (s *oaSchema) is(typ string) bool { return slices.Contains(s.types(), typ) }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
