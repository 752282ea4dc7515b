package api_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/api"
	"github.com/sello-do/sello/storetest"
)

// The one dialect of the API (docs/api.md, Conventions), checked against
// the OpenAPI document and against a live server: every list answers the
// list envelope and takes limit and cursor; a field with no value is null,
// never "" and never omitted.

// listPaths are the API's lists: every GET whose answer holds a list.
var listPaths = []string{
	"/{env}/anulaciones",
	"/{env}/aprobaciones-comerciales",
	"/{env}/certificacion/pruebas",
	"/{env}/documentos-ecf",
	"/{env}/documentos-recibidos",
	"/{env}/eventos",
	"/{env}/secuencias",
}

// feedPaths are the lists that never end: their nextCursor is never null.
var feedPaths = []string{"/{env}/eventos"}

// openAPI is the OpenAPI document as plain JSON.
type openAPI map[string]any

func mustOpenAPI(tb testing.TB) openAPI {
	tb.Helper()
	var doc openAPI
	if err := json.Unmarshal(api.OpenAPIDocument(), &doc); err != nil {
		tb.Fatal(err)
	}
	return doc
}

// obj is v as a JSON object, nil when it is not one.
func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// arr is v as a JSON array, nil when it is not one.
func arr(v any) []any {
	a, _ := v.([]any)
	return a
}

// strs is v as a sorted list of strings.
func strs(v any) []string {
	var out []string
	for _, x := range arr(v) {
		out = append(out, fmt.Sprint(x))
	}
	slices.Sort(out)
	return out
}

// schema resolves a $ref to a component schema, or returns s.
func (d openAPI) schema(s map[string]any) (map[string]any, string) {
	ref, _ := s["$ref"].(string)
	name, ok := strings.CutPrefix(ref, "#/components/schemas/")
	if !ok {
		return s, ""
	}
	return obj(obj(obj(d["components"])["schemas"])[name]), name
}

// okSchema is the JSON schema of the 200 answer of op, nil when it has
// none.
func (d openAPI) okSchema(op map[string]any) map[string]any {
	s := obj(obj(obj(obj(obj(op["responses"])["200"])["content"])["application/json"])["schema"])
	if s == nil {
		return nil
	}
	s, _ = d.schema(s)
	return s
}

// holdsList reports whether schema s (resolved) is a list's answer: it
// refines the ListEnvelope, or has an array among its own properties.
func (d openAPI) holdsList(s map[string]any) bool {
	for _, a := range arr(s["allOf"]) {
		if _, name := d.schema(obj(a)); name == "ListEnvelope" {
			return true
		}
	}
	for _, p := range obj(s["properties"]) {
		if p, _ := d.schema(obj(p)); p["type"] == "array" {
			return true
		}
	}
	return false
}

func TestConventionsListShape(t *testing.T) {
	doc := mustOpenAPI(t)
	t.Run("ListEnvelope", func(t *testing.T) {
		env, _ := doc.schema(map[string]any{"$ref": "#/components/schemas/ListEnvelope"})
		props := obj(env["properties"])
		want := []string{"correlationId", "data", "hasMore", "nextCursor", "ok"}
		if got := slices.Sorted(maps.Keys(props)); !slices.Equal(got, want) || env["additionalProperties"] != false {
			t.Fatalf("ListEnvelope properties %v (additionalProperties %v), want exactly %v", got, env["additionalProperties"], want)
		}
		if got := strs(env["required"]); !slices.Equal(got, want) {
			t.Fatalf("ListEnvelope requires %v, want every property %v", got, want)
		}
		next, _ := doc.schema(obj(props["nextCursor"]))
		if fmt.Sprint(next["type"]) != "[string null]" {
			t.Fatalf("nextCursor is %v, want a string or null", next["type"])
		}
	})

	var lists []string
	for path, item := range obj(doc["paths"]) {
		op := obj(obj(item)["get"])
		s := doc.okSchema(op)
		if s == nil || !doc.holdsList(s) {
			continue
		}
		lists = append(lists, path)
		t.Run(path, func(t *testing.T) {
			// The answer is the ListEnvelope, refined only in its items.
			allOf := arr(s["allOf"])
			if len(allOf) != 1 {
				t.Fatalf("the answer is not allOf the ListEnvelope: %v", s)
			}
			if _, name := doc.schema(obj(allOf[0])); name != "ListEnvelope" {
				t.Fatalf("the answer refines %q, want ListEnvelope", name)
			}
			props := obj(s["properties"])
			if keys := slices.Collect(maps.Keys(props)); !slices.Equal(keys, []string{"data"}) {
				t.Fatalf("the answer refines %v, want data alone", keys)
			}
			// data is an array (generators such as oapi-codegen type it
			// only so) of items of a resource, with a description at most.
			data := obj(props["data"])
			extra := slices.DeleteFunc(slices.Collect(maps.Keys(data)), func(k string) bool { return k == "type" || k == "items" || k == "description" })
			if item := obj(data["items"]); data["type"] != "array" || item["$ref"] == nil || len(extra) > 0 {
				t.Fatalf("data refines %v, want type array, its items (a $ref) and a description at most", data)
			}
			for k := range s {
				if k != "allOf" && k != "properties" && k != "description" {
					t.Errorf("the answer has %q besides the ListEnvelope", k)
				}
			}
			// It takes limit and cursor, the shared parameters.
			var refs []string
			for _, p := range arr(op["parameters"]) {
				if ref, ok := obj(p)["$ref"].(string); ok {
					refs = append(refs, ref)
				}
			}
			for _, want := range []string{"#/components/parameters/Cursor", "#/components/parameters/Limit"} {
				if !slices.Contains(refs, want) {
					t.Errorf("parameters %v lack %s", refs, want)
				}
			}
		})
	}
	slices.Sort(lists)
	if !slices.Equal(lists, listPaths) {
		t.Errorf("the lists are %v, want %v", lists, listPaths)
	}
}

// excludedSchemas are not Sello's resources: ECFDocument is DGII's e-CF in
// JSON (the validate answer), where an element not given is absent, as
// in DGII's XML.
var excludedSchemas = []string{"ECFDocument"}

func TestConventionsNoValueIsNull(t *testing.T) {
	doc := mustOpenAPI(t)
	// The schemas of every success answer and of the webhook delivery.
	seen := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if s, name := doc.schema(v); name != "" {
				if seen[name] || slices.Contains(excludedSchemas, name) {
					return
				}
				seen[name] = true
				walk(s)
				return
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	for _, item := range obj(doc["paths"]) {
		for _, op := range obj(item) {
			for code, r := range obj(obj(op)["responses"]) {
				if strings.HasPrefix(code, "2") {
					walk(r)
				}
			}
		}
	}
	walk(doc["webhooks"])
	if len(seen) < 30 || !seen["Document"] || !seen["Event"] || !seen["DGIIResult"] || !seen["Approval"] {
		t.Fatalf("walked %d schemas (%v): the walk misses resources", len(seen), slices.Sorted(maps.Keys(seen)))
	}

	listRequired := map[string]bool{}
	env, _ := doc.schema(map[string]any{"$ref": "#/components/schemas/ListEnvelope"})
	for _, r := range strs(env["required"]) {
		listRequired[r] = true
	}
	for _, name := range slices.Sorted(maps.Keys(seen)) {
		s, _ := doc.schema(map[string]any{"$ref": "#/components/schemas/" + name})
		checkNoValueIsNull(t, doc, name, s, listRequired)
	}
}

// checkNoValueIsNull checks schema s at path: every property required (a
// field is never omitted) and every string that may be null at least one
// character long (no value is null, never ""); then the inline schemas
// within it.
func checkNoValueIsNull(t *testing.T, doc openAPI, path string, s map[string]any, listRequired map[string]bool) {
	t.Helper()
	required := map[string]bool{}
	for _, r := range strs(s["required"]) {
		required[r] = true
	}
	for _, a := range arr(s["allOf"]) {
		if _, name := doc.schema(obj(a)); name == "ListEnvelope" {
			maps.Copy(required, listRequired)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(obj(s["properties"]))) {
		p := obj(obj(s["properties"])[k])
		if !required[k] {
			t.Errorf("%s.%s is optional: a field with no value is null, never omitted (make it required and nullable)", path, k)
		}
		if typ := fmt.Sprint(p["type"]); typ == "[string null]" && p["minLength"] == nil && p["format"] == nil && p["pattern"] == nil && p["enum"] == nil {
			t.Errorf(`%s.%s is a nullable string that may be "": give it minLength 1 (no value is null)`, path, k)
		}
		if p["$ref"] == nil {
			checkNoValueIsNull(t, doc, path+"."+k, p, listRequired)
		}
	}
	for _, c := range []string{"oneOf", "anyOf", "allOf"} {
		for _, x := range arr(s[c]) {
			if obj(x)["$ref"] == nil {
				checkNoValueIsNull(t, doc, path, obj(x), listRequired)
			}
		}
	}
	if items := obj(s["items"]); items != nil && items["$ref"] == nil {
		checkNoValueIsNull(t, doc, path+"[]", items, listRequired)
	}
}

// conventionsFixture is a fixture whose tenant has at least three items in
// every list of the API, events that carry payloads of every kind of
// value, and keys for TesteCF and CerteCF.
func conventionsFixture(t *testing.T) (*fixture, map[sello.Environment]string) {
	t.Helper()
	f := mustFixture(t)
	ctx := t.Context()
	keys := map[sello.Environment]string{sello.EnvTest: f.key, sello.EnvCert: mustKey(t, f, f.tenant.ID, sello.EnvCert, sello.Scopes...)}
	for range 3 {
		create(t, f, f.key, sello.EnvTest, testRNC)
	}
	for i := range int64(2) {
		storetest.MustAddSequence(t, f.db, f.tenant.ID, sello.EnvTest, sello.TypeConsumo, 1+i*100, 100+i*100)
	}
	for i := range int64(3) {
		v, _, err := sello.CreateVoid(ctx, f.db, sello.VoidDraft{TenantID: f.tenant.ID, Environment: sello.EnvTest,
			Request: sello.VoidRequest{Ranges: []sello.VoidRangeRequest{{Type: "31", From: 1000 + i, To: 1000 + i}}}})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if _, err := f.db.RecordVoidOutcome(ctx, f.tenant.ID, sello.EnvTest, v.ID, sello.VoidOutcome{State: sello.VoidAccepted,
				DGII: sello.NewDGIITextResult("1", "Anulación procesada", []string{"Las secuencias fueron anuladas correctamente."})}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := range 3 {
		in := mustInbound(t, f, f.tenant.ID, sello.TypeCreditoFiscal, 100+i)
		if _, err := f.db.ApproveInboundDocument(ctx, f.tenant.ID, sello.EnvTest, sello.ApprovalRequest{InboundDocumentID: in.ID, Estado: sello.EstadoAprobado}); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if _, err := f.db.RecordApprovalOutcome(ctx, f.tenant.ID, sello.EnvTest, in.ID, sello.ApprovalOutcome{
				Issuer: &sello.ApprovalLeg{Status: sello.ApprovalSendFailed, Error: "the issuer declares no commercial approval service"},
				DGII:   &sello.ApprovalLeg{Status: sello.ApprovalSendSent, Answer: sello.NewDGIITextResult("1", "", nil)},
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := range 3 {
		encf := fmt.Sprintf("E31%010d", i+1)
		rows := []*sello.CertificationRow{{Sheet: "ECF", SheetRow: 2, Kind: sello.CertificationECF, ENCF: encf,
			Fields: map[string]string{"TipoeCF": "31", "ENCF": encf}}}
		if _, _, err := sello.StartCertification(ctx, f.db, f.tenant.ID, sello.EnvCert, rows, "", time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	return f, keys
}

func TestConventionsListsLive(t *testing.T) {
	f, keys := conventionsFixture(t)
	for _, path := range listPaths {
		t.Run(path, func(t *testing.T) {
			env := sello.EnvTest
			if strings.Contains(path, "certificacion") {
				env = sello.EnvCert
			}
			base := strings.Replace(path, "{env}", string(env), 1)
			feed := slices.Contains(feedPaths, path)

			// The whole list in one page, then page by page: the same
			// items in the same order.
			whole, _ := listPage(t, f, keys[env], base+"?limit=200", feed)
			if len(whole) < 3 {
				t.Fatalf("the fixture has %d items in %s: give it at least 3", len(whole), path)
			}
			var paged []string
			query := "?limit=1"
			for range len(whole) + 1 {
				ids, next := listPage(t, f, keys[env], base+query, feed)
				if len(ids) > 1 {
					t.Fatalf("limit=1 answered %d items", len(ids))
				}
				paged = append(paged, ids...)
				if next == "" {
					break
				}
				query = "?limit=1&cursor=" + url.QueryEscape(next)
			}
			if !slices.Equal(paged, whole) {
				t.Fatalf("page by page %v, whole %v", paged, whole)
			}
			resp, body := call(t, f, keys[env], "GET", base+"?cursor=not-a-cursor", nil)
			wantCallError(t, resp, body, http.StatusBadRequest, sello.CodeInvalidRequest)
		})
	}
}

// listPage gets one page of a list and checks the envelope: exactly its
// five fields, hasMore true only with a nextCursor, a feed's nextCursor
// never null, and no "" anywhere (no value is null). It returns the ids
// of the page's items and the cursor to continue from, "" when the list
// cannot continue or (for a feed) nothing more is there now.
func listPage(t *testing.T, f *fixture, key, path string, feed bool) ([]string, string) {
	t.Helper()
	resp, body := call(t, f, key, "GET", path, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	if got := slices.Sorted(maps.Keys(m)); !slices.Equal(got, []string{"correlationId", "data", "hasMore", "nextCursor", "ok"}) {
		t.Fatalf("GET %s answers %v, want the list envelope", path, got)
	}
	if s := emptyString(m, ""); s != "" {
		t.Errorf(`GET %s: %s is "", want null (no value is null): %s`, path, s, body)
	}
	hasMore, next := m["hasMore"].(bool), m["nextCursor"]
	switch {
	case feed && next == nil:
		t.Fatalf("GET %s: a feed's nextCursor is null", path)
	case !feed && hasMore != (next != nil):
		t.Fatalf("GET %s: hasMore %v with nextCursor %v", path, hasMore, next)
	}
	var ids []string
	for _, item := range arr(m["data"]) {
		ids = append(ids, obj(item)["id"].(string))
	}
	if !hasMore {
		return ids, ""
	}
	return ids, next.(string)
}

// emptyString returns the path of the first "" in v, "" when none.
func emptyString(v any, path string) string {
	switch v := v.(type) {
	case string:
		if v == "" {
			return path
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if p := emptyString(v[k], path+"."+k); p != "" {
				return p
			}
		}
	case []any:
		for i, x := range v {
			if p := emptyString(x, fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	}
	return ""
}
