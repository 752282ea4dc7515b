package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/api"
	"github.com/sello-do/sello/apitest"
	"github.com/sello-do/sello/ecf/ecftest"
)

// heapAfterGC is the live heap after a collection, and the bytes
// allocated so far.
func heapAfterGC() (live, total uint64) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc, m.TotalAlloc
}

// itemsBody is a document of n items holding item each.
func itemsBody(n int, item string) []byte {
	return []byte(`{"ECF":{"Encabezado":{"IdDoc":{"TipoeCF":"31"}},"DetallesItems":{"Item":[` + strings.Repeat(item+",", n-1) + item + `]}}}`)
}

// TestValidationAnswerStaysSmall: a 422 stays small and the server's heap
// does not grow, whatever the number of problems in the body.
func TestValidationAnswerStaysSmall(t *testing.T) {
	f := mustFixture(t)
	fullBody := (api.MaxBodyBytes - 100) / 3 // "{}," per item: ~699,000 items in 2 MiB
	tests := map[string][]byte{
		"2MiBOfEmptyItems":  itemsBody(fullBody, "{}"),
		"100kEmptyItems":    itemsBody(100_000, "{}"),
		"1001UnknownFields": itemsBody(1001, `{"X":1,"Y":2}`),
		"1000EmptyItems":    itemsBody(1000, "{}"),
	}
	for name, body := range tests {
		t.Run(name, func(t *testing.T) {
			if len(body) > api.MaxBodyBytes {
				t.Fatalf("body of %d bytes over the limit", len(body))
			}
			before, allocBefore := heapAfterGC()
			rec := f.do("POST", "/TesteCF/documentos-ecf?validate=true", body)
			after, allocAfter := heapAfterGC()
			growth := int64(after) - int64(before)
			t.Logf("%d-byte body: %d-byte answer, heap %+d bytes, %d bytes allocated", len(body), rec.Body.Len(), growth, allocAfter-allocBefore)
			if rec.Code != http.StatusUnprocessableEntity {
				t.Fatalf("status %d, want 422: %.300s", rec.Code, rec.Body)
			}
			if rec.Body.Len() > 64<<10 {
				t.Errorf("answer of %d bytes, want under 64 KiB", rec.Body.Len())
			}
			if growth > 4<<20 {
				t.Errorf("heap grew by %d bytes, want under 4 MiB", growth)
			}
			var got struct {
				Error struct {
					Details   []sello.ErrorDetail
					Truncated int
				}
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if n := len(got.Error.Details); n == 0 || n > sello.MaxDetails || n < sello.MaxDetails && got.Error.Truncated > 0 {
				t.Errorf("%d details, %d truncated", n, got.Error.Truncated)
			}
			runtime.KeepAlive(rec)
		})
	}
	t.Run("Truncated", func(t *testing.T) {
		rec := f.do("POST", "/TesteCF/documentos-ecf?validate=true", itemsBody(1000, `{"X":1,"Y":2}`))
		var got struct {
			Error struct {
				Message   string
				Details   []sello.ErrorDetail
				Truncated int
			}
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		if len(got.Error.Details) != sello.MaxDetails || got.Error.Truncated < 2000 || !strings.Contains(rec.Body.String(), `"truncated":`) {
			t.Fatalf("%d details, %d truncated: %.300s", len(got.Error.Details), got.Error.Truncated, rec.Body)
		}
	})
}

// TestComputedAmountsFit sends, on each engine, a price whose total does not
// fit DGII's decimal (16 integer digits) and every document DGII refuses
// (ecftest.Broken): validate and create answer 422 naming the field, and
// no number is consumed (the next valid create gets the first e-NCF).
func TestComputedAmountsFit(t *testing.T) {
	run := func(t *testing.T, st sello.Store) {
		f := mustFixtureOn(t, st, func(context.Context) error { return nil })
		type bad struct {
			name, path string
			body       []byte
		}
		cases := []bad{{"Overflow", "ECF.Encabezado.Totales.MontoTotal", apitest.Invoice(testRNC, func(m map[string]any) {
			it := m["DetallesItems"].(map[string]any)["Item"].([]any)[0].(map[string]any)
			it["PrecioUnitarioItem"], it["CantidadItem"] = "9999999999999999.99", 1
		})}}
		for _, s := range ecftest.Broken(t, testRNC, time.Now()) {
			cases = append(cases, bad{s.Name, s.Path, s.Body})
		}
		for _, c := range cases {
			for _, q := range []string{"?validate=true", ""} {
				rec := f.do("POST", "/TesteCF/documentos-ecf"+q, c.body)
				if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), `"path":"`+c.path+`"`) {
					t.Errorf("%s%s: %d %.400s, want 422 naming %s", c.name, q, rec.Code, rec.Body, c.path)
				}
			}
		}
		rec := f.do("POST", "/TesteCF/documentos-ecf", apitest.Invoice(testRNC))
		if rec.Code != http.StatusAccepted || !strings.Contains(rec.Body.String(), "E310000000001") {
			t.Fatalf("valid create after the refusals: %d %.300s, want 202 with E310000000001", rec.Code, rec.Body)
		}
	}
	forEachEngine(t, run)
}
