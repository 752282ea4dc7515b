package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/sello-do/sello"
)

// TestVoids checks POST|GET /{env}/anulaciones in process against the
// contract: the void resource, the refusals with their details, the list's
// pages and the signed ANECF's absence until the worker signs it.
func TestVoids(t *testing.T) {
	f := mustFixture(t)
	const path = "/TesteCF/anulaciones"
	post := func(body string) (*http.Response, []byte) {
		t.Helper()
		return call(t, f, f.key, "POST", path, []byte(body))
	}
	type voidResp struct {
		OK   bool               `json:"ok"`
		Void sello.VoidResource `json:"void"`
	}

	var first sello.VoidResource
	t.Run("OK", func(t *testing.T) {
		create(t, f, f.key, sello.EnvTest, testRNC) // E310000000001
		resp, body := post(`{"ranges":[{"type":"31","from":2,"to":11},{"type":"E31","from":20,"to":20}]}`)
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("status %d: %s", resp.StatusCode, body)
		}
		var got voidResp
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatal(err)
		}
		first = got.Void
		want := []sello.VoidRangeResource{{Type: "E31", From: 2, To: 11, Count: 10}, {Type: "E31", From: 20, To: 20, Count: 1}}
		if !got.OK || first.State != sello.VoidPending || first.Count != 11 || first.DGII != nil || first.FailureReason != nil ||
			len(first.Ranges) != 2 || first.Ranges[0] != want[0] || first.Ranges[1] != want[1] || !strings.Contains(string(body), `"dgii":null`) {
			t.Fatalf("void: %s", body)
		}
		resp, body = call(t, f, f.key, "GET", path+"/"+first.ID, nil)
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), first.ID) {
			t.Fatalf("get: %d %s", resp.StatusCode, body)
		}
		// Not signed yet: no worker runs here.
		resp, body = call(t, f, f.key, "GET", path+"/"+first.ID+"/xml", nil)
		wantCallError(t, resp, body, http.StatusNotFound, sello.CodeNotFound, "no signed ANECF yet")
		if d := create(t, f, f.key, sello.EnvTest, testRNC); d.ENCF != "E310000000012" {
			t.Errorf("next document: %s, want E310000000012", d.ENCF)
		}
	})

	t.Run("ErrInvalid", func(t *testing.T) {
		for _, tt := range []struct{ body, path string }{
			{`{"ranges":[]}`, "ranges"},
			{`{"ranges":[{"type":"30","from":1,"to":2}]}`, "ranges[0].type"},
			{`{"ranges":[{"type":"31","from":5,"to":4}]}`, "ranges[0].to"},
			{`{"ranges":[{"type":"31","from":1,"to":10000000000}]}`, "ranges[0].to"},
			{`{"ranges":[{"type":"31","from":30,"to":40},{"type":"31","from":40,"to":41}]}`, "ranges[1]"},
		} {
			resp, body := post(tt.body)
			wantCallError(t, resp, body, http.StatusBadRequest, sello.CodeInvalidRequest)
			if !strings.Contains(string(body), `"path":"`+tt.path+`"`) {
				t.Errorf("%s: details %s lack path %s", tt.body, body, tt.path)
			}
		}
		resp, body := post(`{"ranges":[{"type":"31","from":1,"to":2,"until":3}]}`)
		wantCallError(t, resp, body, http.StatusUnprocessableEntity, sello.CodeValidationFailed)
	})

	t.Run("ErrRefused", func(t *testing.T) {
		resp, body := post(`{"ranges":[{"type":"31","from":1,"to":1}]}`)
		wantCallError(t, resp, body, http.StatusUnprocessableEntity, sello.CodeValidationFailed, "credit note (type 34, E34)")
		resp, body = post(`{"ranges":[{"type":"31","from":11,"to":12}]}`)
		wantCallError(t, resp, body, http.StatusUnprocessableEntity, sello.CodeValidationFailed, "Numbers Sello assigned")
		resp, body = post(`{"ranges":[{"type":"31","from":15,"to":25}]}`)
		wantCallError(t, resp, body, http.StatusUnprocessableEntity, sello.CodeValidationFailed, "already voided")
		if !strings.Contains(string(body), first.ID) {
			t.Errorf("refusal %s does not name void %s", body, first.ID)
		}
		resp, body = post(`{"ranges":[{"type":"33","from":1,"to":5}]}`)
		wantCallError(t, resp, body, http.StatusUnprocessableEntity, sello.CodeValidationFailed, "registered ranges", "register the range DGII authorized first, with POST /TesteCF/secuencias or `sello sequences add`.")
	})

	t.Run("ListPages", func(t *testing.T) {
		for _, r := range []string{`100,100`, `101,101`} {
			if resp, body := post(`{"ranges":[{"type":"31","from":` + strings.Split(r, ",")[0] + `,"to":` + strings.Split(r, ",")[1] + `}]}`); resp.StatusCode != http.StatusAccepted {
				t.Fatalf("void: %d %s", resp.StatusCode, body)
			}
		}
		var ids []string
		cursor := ""
		for {
			q := path + "?limit=2"
			if cursor != "" {
				q += "&cursor=" + cursor
			}
			resp, body := call(t, f, f.key, "GET", q, nil)
			var page struct {
				Voids      []sello.VoidResource `json:"data"`
				NextCursor *string              `json:"nextCursor"`
			}
			if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &page) != nil {
				t.Fatalf("list: %d %s", resp.StatusCode, body)
			}
			for _, v := range page.Voids {
				ids = append(ids, v.ID)
			}
			if page.NextCursor == nil {
				break
			}
			cursor = *page.NextCursor
		}
		if len(ids) != 3 || ids[2] != first.ID {
			t.Fatalf("listed %v, want 3 newest first ending with %s", ids, first.ID)
		}
		for _, q := range []string{"?limit=0", "?cursor=nonsense", "?state=accepted"} {
			resp, body := call(t, f, f.key, "GET", path+q, nil)
			wantCallError(t, resp, body, http.StatusBadRequest, sello.CodeInvalidRequest)
		}
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		_, otherKey := mustTenant(t, f, "130000003", sello.EnvTest)
		for _, p := range []string{path + "/" + first.ID, path + "/" + first.ID + "/xml", path + "/nonsense"} {
			resp, body := call(t, f, otherKey, "GET", p, nil)
			wantCallError(t, resp, body, http.StatusNotFound, sello.CodeNotFound)
		}
	})

	t.Run("ErrScope", func(t *testing.T) {
		key := mustKey(t, f, f.tenant.ID, sello.EnvTest, sello.ScopeCreate, sello.ScopeValidate, sello.ScopeStatusRead, sello.ScopeRead)
		for _, r := range [][2]string{{"POST", path}, {"GET", path}, {"GET", path + "/" + first.ID}, {"GET", path + "/" + first.ID + "/xml"}} {
			resp, body := call(t, f, key, r[0], r[1], []byte(`{"ranges":[{"type":"31","from":500,"to":500}]}`))
			wantCallError(t, resp, body, http.StatusForbidden, sello.CodeInsufficientScope, "tenant:admin")
		}
	})
}
