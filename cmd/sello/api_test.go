package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/apitest"
	"github.com/sello-do/sello/internal/testwait"
	"github.com/sello-do/sello/sqlite"
)

const docsPath = "/TesteCF/documentos-ecf"

func TestCreateDocument(t *testing.T) {
	s := MustRunServer(t)
	key := s.Keys[sello.EnvTest]

	t.Run("OK", func(t *testing.T) {
		r := s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice()})
		if r.Status != http.StatusAccepted {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		d := document(t, r)
		for field, want := range map[string]any{
			"type": "E31", "encf": "E310000000001", "status": "queued_for_signing",
			"total": "1180.00", "trackId": nil, "securityCode": nil, "signedAt": nil, "dgii": nil,
		} {
			if got := d[field]; got != want {
				t.Errorf("document.%s = %v, want %v", field, got, want)
			}
		}
		if got := d["delivery"].(map[string]any)["status"]; got != "not_sent" || d["commercialApproval"] != nil {
			t.Errorf("delivery.status = %v, commercialApproval = %v; want not_sent (type 31 goes to the buyer, Sello does not send it) and null", got, d["commercialApproval"])
		}
		ms := regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)
		if !ms.MatchString(d["createdAt"].(string)) {
			t.Errorf("createdAt %v is not UTC with milliseconds", d["createdAt"])
		}
	})

	t.Run("NumbersFollowTheSequence", func(t *testing.T) {
		for i := 2; i <= 4; i++ {
			r := s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice()})
			if got, want := document(t, r)["encf"], fmt.Sprintf("E31%010d", i); got != want {
				t.Fatalf("encf %v, want %v", got, want)
			}
		}
	})

	t.Run("QueuedEventWritten", func(t *testing.T) {
		db := mustOpenStore(t, s)
		tenant, err := db.FindTenantByRNC(t.Context(), demoRNC)
		if err != nil {
			t.Fatal(err)
		}
		events, err := db.ListEvents(t.Context(), tenant.ID, sello.EnvTest, sello.EventFilter{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(events) < 4 {
			t.Fatalf("%d events, want one ecf.queued per document (≥4)", len(events))
		}
		e := events[0].Resource()
		body, _ := json.Marshal(e)
		s.contract.CheckEventBody(t, body)
		if e.Type != sello.EventECFQueued || e.Document.ENCF != "E310000000001" || e.Document.Status != sello.StatusQueuedForSigning ||
			e.Data.Severity != "info" || e.Environment != "testecf" || e.TenantID != tenant.ID {
			t.Fatalf("first event %+v", e)
		}
	})

	t.Run("ExplicitENCF", func(t *testing.T) {
		r := s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice(withENCF("E310000000100"))})
		if r.Status != http.StatusAccepted || document(t, r)["encf"] != "E310000000100" {
			t.Fatalf("got %d %s", r.Status, r.Body)
		}
	})

	t.Run("ErrConflict", func(t *testing.T) {
		first := s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice(withENCF("E310000000200"))})
		id := document(t, first)["id"].(string)
		r := s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice(withENCF("E310000000200"))})
		e := wantError(t, r, http.StatusConflict, sello.CodeConflict)
		if !strings.Contains(e["message"].(string), id) {
			t.Fatalf("conflict message %q does not name the existing document %s", e["message"], id)
		}
	})

	t.Run("ErrENCFOutsideRanges", func(t *testing.T) {
		r := s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice(withENCF("E319999999999"))})
		e := wantError(t, r, http.StatusUnprocessableEntity, sello.CodeValidationFailed)
		wantDetail(t, e, sello.ENCFPath, "no registered range")
	})

	t.Run("ErrENCFTypeMismatch", func(t *testing.T) {
		r := s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice(withENCF("E320000000001"))})
		e := wantError(t, r, http.StatusUnprocessableEntity, sello.CodeValidationFailed)
		wantDetail(t, e, sello.ENCFPath, "")
	})

	t.Run("ErrValidationFailedListsEveryProblem", func(t *testing.T) {
		body := invoice(func(ecf map[string]any) {
			enc := ecf["Encabezado"].(map[string]any)
			enc["Emisor"].(map[string]any)["RNCEmisor"] = "131880681"   // not the tenant
			enc["Comprador"].(map[string]any)["RNCComprador"] = "12345" // malformed RNC
			idDoc(ecf)["TipoPago"] = "9"                                // not 1–3
			enc["Totales"] = map[string]any{"MontoTotal": "999.00"}     // wrong total
			ecf["DetallesItems"].(map[string]any)["Item"].([]any)[0].(map[string]any)["NombreItem"] = ""
		})
		r := s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: body})
		e := wantError(t, r, http.StatusUnprocessableEntity, sello.CodeValidationFailed)
		wantDetail(t, e, "ECF.Encabezado.Emisor.RNCEmisor", "")
		wantDetail(t, e, "ECF.Encabezado.Comprador.RNCComprador", "")
		wantDetail(t, e, "ECF.Encabezado.IdDoc.TipoPago", "")
		wantDetail(t, e, "ECF.Encabezado.Totales.MontoTotal", "")
		wantDetail(t, e, "ECF.DetallesItems.Item[0].NombreItem", "")
	})

	t.Run("ErrInvalidJSON", func(t *testing.T) {
		for _, body := range []string{`{"ECF":`, `{"ECF":{}} trailing`, ``, `[1,2]`} {
			r := s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: []byte(body)})
			if body == `[1,2]` {
				// Well-formed JSON of the wrong shape is a validation error.
				if r.Status != http.StatusBadRequest && r.Status != http.StatusUnprocessableEntity {
					t.Fatalf("%q: status %d", body, r.Status)
				}
				continue
			}
			wantError(t, r, http.StatusBadRequest, sello.CodeInvalidJSON)
		}
	})

	t.Run("ErrUnsupportedMediaType", func(t *testing.T) {
		for _, ct := range []string{"text/plain", "application/xml", "application/json; charset=latin1"} {
			r := s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice(), Header: map[string]string{"Content-Type": ct}})
			wantError(t, r, http.StatusUnsupportedMediaType, sello.CodeUnsupportedMediaType)
		}
		r := s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice(), NoCType: true})
		wantError(t, r, http.StatusUnsupportedMediaType, sello.CodeUnsupportedMediaType)
	})

	t.Run("ErrPayloadTooLarge", func(t *testing.T) {
		big := append([]byte(`{"ECF":{"pad":"`), bytes.Repeat([]byte("x"), 2<<20)...)
		big = append(big, `"}}`...)
		r := s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: big})
		wantError(t, r, http.StatusRequestEntityTooLarge, sello.CodePayloadTooLarge)
	})

	t.Run("ErrInvalidRequest", func(t *testing.T) {
		r := s.Do(t, request{Method: "POST", Path: docsPath + "?validate=yes", Key: key, Body: invoice()})
		wantError(t, r, http.StatusBadRequest, sello.CodeInvalidRequest)
		r = s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice(), Header: map[string]string{"Idempotency-Key": strings.Repeat("k", 256)}})
		wantError(t, r, http.StatusBadRequest, sello.CodeInvalidRequest)
	})
}

// wantDetail checks that the error has a detail at path whose message
// contains msg.
func wantDetail(tb testing.TB, e map[string]any, path, msg string) {
	tb.Helper()
	details, _ := e["details"].([]any)
	for _, d := range details {
		d := d.(map[string]any)
		if d["path"] == path && strings.Contains(d["message"].(string), msg) {
			return
		}
	}
	tb.Errorf("no detail at %s containing %q in %v", path, msg, details)
}

func TestValidate(t *testing.T) {
	s := MustRunServer(t)
	key := s.Keys[sello.EnvTest]

	t.Run("OK", func(t *testing.T) {
		r := s.Do(t, request{Method: "POST", Path: docsPath + "?validate=true", Key: key, Body: invoice()})
		if r.Status != http.StatusOK {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		m := r.JSON(t)
		if m["valid"] != true {
			t.Fatalf("valid = %v", m["valid"])
		}
		tot := m["document"].(map[string]any)["ECF"].(map[string]any)["Encabezado"].(map[string]any)["Totales"].(map[string]any)
		for field, want := range map[string]string{"MontoGravadoTotal": "1000.00", "MontoGravadoI1": "1000.00", "ITBIS1": "18", "TotalITBIS": "180.00", "TotalITBIS1": "180.00", "MontoTotal": "1180.00"} {
			if got := fmt.Sprint(tot[field]); got != want {
				t.Errorf("Totales.%s = %v, want %v", field, got, want)
			}
		}
	})

	t.Run("NeverConsumesANumberNorWrites", func(t *testing.T) {
		for range 3 {
			s.Do(t, request{Method: "POST", Path: docsPath + "?validate=true", Key: key, Body: invoice()})
		}
		r := s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice()})
		if got := document(t, r)["encf"]; got != "E310000000001" {
			t.Fatalf("first create after validations got %v, want E310000000001", got)
		}
		list := s.Do(t, request{Method: "GET", Path: docsPath, Key: key})
		if n := len(list.JSON(t)["data"].([]any)); n != 1 {
			t.Fatalf("%d documents stored, want 1", n)
		}
	})

	t.Run("ErrValidationFailed", func(t *testing.T) {
		r := s.Do(t, request{Method: "POST", Path: docsPath + "?validate=true", Key: key, Body: invoice(func(ecf map[string]any) {
			idDoc(ecf)["TipoIngresos"] = "99"
		})})
		e := wantError(t, r, http.StatusUnprocessableEntity, sello.CodeValidationFailed)
		wantDetail(t, e, "ECF.Encabezado.IdDoc.TipoIngresos", "")
	})

	t.Run("ErrConflictUsedENCF", func(t *testing.T) {
		// A pre-flight runs the create's checks: an e-NCF the tenant
		// already used is the create's 409, naming the document.
		body := invoice(withENCF("E310000000500"))
		if r := s.Do(t, request{Method: "POST", Path: docsPath + "?validate=true", Key: key, Body: body}); r.Status != http.StatusOK {
			t.Fatalf("unused e-NCF: status %d: %s", r.Status, r.Body)
		}
		id := document(t, s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: body}))["id"].(string)
		r := s.Do(t, request{Method: "POST", Path: docsPath + "?validate=true", Key: key, Body: body})
		e := wantError(t, r, http.StatusConflict, sello.CodeConflict)
		if !strings.Contains(e["message"].(string), id) {
			t.Fatalf("message %q does not name document %s", e["message"], id)
		}
	})
}

func TestAuthentication(t *testing.T) {
	s := MustRunServer(t)
	testKey := s.Keys[sello.EnvTest]
	statusOnly := strings.TrimSpace(s.cli(t, "keys", "create", "--tenant", demoRNC, "--env", "TesteCF", "--scopes", "status:read"))
	createOnly := strings.TrimSpace(s.cli(t, "keys", "create", "--tenant", demoRNC, "--env", "TesteCF", "--scopes", "ecf:create"))

	t.Run("ErrMissingKey", func(t *testing.T) {
		r := s.Do(t, request{Method: "POST", Path: docsPath, Body: invoice()})
		wantError(t, r, http.StatusUnauthorized, sello.CodeUnauthenticated)
	})
	t.Run("ErrUnknownKey", func(t *testing.T) {
		r := s.Do(t, request{Method: "POST", Path: docsPath, Key: "sk_testecf_" + strings.Repeat("A", 32), Body: invoice()})
		wantError(t, r, http.StatusUnauthorized, sello.CodeUnauthenticated)
	})
	t.Run("AuthorizationHeaderIsIgnored", func(t *testing.T) {
		r := s.Do(t, request{Method: "POST", Path: docsPath, Body: invoice(), Header: map[string]string{"Authorization": "Bearer " + testKey}})
		wantError(t, r, http.StatusUnauthorized, sello.CodeUnauthenticated)
	})
	t.Run("ErrEnvironmentMismatch", func(t *testing.T) {
		r := s.Do(t, request{Method: "POST", Path: "/CerteCF/documentos-ecf", Key: testKey, Body: invoice()})
		wantError(t, r, http.StatusForbidden, sello.CodeEnvironmentMismatch)
	})
	t.Run("ErrInsufficientScope", func(t *testing.T) {
		r := s.Do(t, request{Method: "POST", Path: docsPath, Key: statusOnly, Body: invoice()})
		e := wantError(t, r, http.StatusForbidden, sello.CodeInsufficientScope)
		if !strings.Contains(e["message"].(string), "ecf:create") {
			t.Fatalf("message %q does not name the scope", e["message"])
		}
		r = s.Do(t, request{Method: "POST", Path: docsPath + "?validate=true", Key: createOnly, Body: invoice()})
		wantError(t, r, http.StatusForbidden, sello.CodeInsufficientScope)
		r = s.Do(t, request{Method: "POST", Path: docsPath + "/status/batch", Key: createOnly, Body: []byte(`{"encfs":["E310000000001"]}`)})
		wantError(t, r, http.StatusForbidden, sello.CodeInsufficientScope)
		r = s.Do(t, request{Method: "GET", Path: docsPath, Key: statusOnly})
		wantError(t, r, http.StatusForbidden, sello.CodeInsufficientScope)
	})
	t.Run("OrderMismatchBeforeScope", func(t *testing.T) {
		// A key of another environment lacking the scope gets the mismatch.
		r := s.Do(t, request{Method: "POST", Path: "/eCF/documentos-ecf", Key: statusOnly, Body: invoice()})
		wantError(t, r, http.StatusForbidden, sello.CodeEnvironmentMismatch)
	})
	t.Run("ErrRevokedKey", func(t *testing.T) {
		doomed := strings.TrimSpace(s.cli(t, "keys", "create", "--tenant", demoRNC, "--env", "TesteCF", "--scopes", "status:read", "--name", "doomed"))
		body := []byte(`{"encfs":["E310000000001"]}`)
		if r := s.Do(t, request{Method: "POST", Path: docsPath + "/status/batch", Key: doomed, Body: body}); r.Status != http.StatusOK {
			t.Fatalf("fresh key: %d %s", r.Status, r.Body)
		}
		var id string
		for _, line := range strings.Split(s.cli(t, "keys", "list", "--tenant", demoRNC), "\n") {
			if strings.Contains(line, "doomed") {
				id = strings.Fields(line)[0]
			}
		}
		if got := strings.TrimSpace(s.cli(t, "keys", "revoke", "--tenant", demoRNC, "--id", id)); got != id {
			t.Fatalf("revoke printed %q, want %q", got, id)
		}
		r := s.Do(t, request{Method: "POST", Path: docsPath + "/status/batch", Key: doomed, Body: body})
		e := wantError(t, r, http.StatusUnauthorized, sello.CodeUnauthenticated)
		if !strings.Contains(e["message"].(string), "revoked") {
			t.Fatalf("message %q", e["message"])
		}
	})
	t.Run("KeysListShowsUse", func(t *testing.T) {
		// sello keys list: lastUsedAt, lastUsedAddress, firstUsedAt, in the
		// API's format, "-" until the key is used.
		key := strings.TrimSpace(s.cli(t, "keys", "create", "--tenant", demoRNC, "--env", "TesteCF", "--scopes", "status:read", "--name", "watched"))
		row := func() []string {
			t.Helper()
			lines := strings.Split(strings.TrimSpace(s.cli(t, "keys", "list", "--tenant", demoRNC)), "\n")
			if h := strings.Fields(lines[0]); strings.Join(h[len(h)-3:], " ") != "lastUsedAt lastUsedAddress firstUsedAt" {
				t.Fatalf("keys list header %q", lines[0])
			}
			for _, line := range lines[1:] {
				if f := strings.Fields(line); f[2] == "watched" {
					return f[len(f)-3:]
				}
			}
			t.Fatalf("keys list has no key named watched")
			return nil
		}
		if got := row(); strings.Join(got, " ") != "- - -" {
			t.Fatalf("unused key: %q, want - - -", got)
		}
		before := time.Now().UTC().Truncate(time.Millisecond)
		if r := s.Do(t, request{Method: "POST", Path: docsPath + "/status/batch", Key: key, Body: []byte(`{"encfs":["E310000000001"]}`)}); r.Status != http.StatusOK {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		got := row()
		last, err := time.Parse(sello.TimeFormat, got[0])
		if err != nil || last.Before(before) || last.After(time.Now()) || got[1] != "127.0.0.1" || got[2] != got[0] {
			t.Fatalf("used key: %q (%v); want the time of the request (UTC, milliseconds), 127.0.0.1 and the same first use", got, err)
		}
	})
	t.Run("ErrExpiredKey", func(t *testing.T) {
		db := mustOpenStore(t, s)
		tenant, _ := db.FindTenantByRNC(t.Context(), demoRNC)
		past := time.Now().Add(-time.Minute)
		k, plaintext := sello.NewAPIKey(tenant.ID, sello.EnvTest, "expired", sello.Scopes, &past)
		if err := db.CreateAPIKey(t.Context(), k); err != nil {
			t.Fatal(err)
		}
		r := s.Do(t, request{Method: "GET", Path: docsPath, Key: plaintext})
		e := wantError(t, r, http.StatusUnauthorized, sello.CodeUnauthenticated)
		if !strings.Contains(e["message"].(string), "expired") {
			t.Fatalf("message %q", e["message"])
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		r := s.Do(t, request{Method: "GET", Path: "/nope", Key: testKey})
		wantError(t, r, http.StatusNotFound, sello.CodeNotFound)
		r = s.Do(t, request{Method: "GET", Path: "/Prod/documentos-ecf", Key: testKey})
		wantError(t, r, http.StatusNotFound, sello.CodeNotFound)
	})
}

func TestStatusBatch(t *testing.T) {
	s := MustRunServer(t)
	key := s.Keys[sello.EnvTest]
	batch := docsPath + "/status/batch"
	for range 3 {
		s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice()})
	}

	t.Run("OK", func(t *testing.T) {
		body := []byte(`{"encfs":["E310000000003","E310000000999","E310000000001","E310000000003"]}`)
		r := s.Do(t, request{Method: "POST", Path: batch, Key: key, Body: body})
		if r.Status != http.StatusOK {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		results := r.JSON(t)["results"].([]any)
		want := []struct {
			encf  string
			found bool
		}{{"E310000000003", true}, {"E310000000999", false}, {"E310000000001", true}, {"E310000000003", true}}
		if len(results) != len(want) {
			t.Fatalf("%d results, want %d", len(results), len(want))
		}
		for i, w := range want {
			res := results[i].(map[string]any)
			if res["encf"] != w.encf || res["found"] != w.found {
				t.Fatalf("result %d = %v, want %+v", i, res, w)
			}
			if w.found && res["document"].(map[string]any)["encf"] != w.encf {
				t.Fatalf("result %d carries the wrong document: %v", i, res)
			}
		}
	})

	t.Run("OneThousand", func(t *testing.T) {
		encfs := make([]string, 1000)
		for i := range encfs {
			encfs[i] = fmt.Sprintf("E31%010d", i+1)
		}
		body, _ := json.Marshal(map[string]any{"encfs": encfs})
		r := s.Do(t, request{Method: "POST", Path: batch, Key: key, Body: body})
		if r.Status != http.StatusOK || len(r.JSON(t)["results"].([]any)) != 1000 {
			t.Fatalf("status %d", r.Status)
		}
	})

	t.Run("ErrTooMany", func(t *testing.T) {
		encfs := make([]string, 1001)
		for i := range encfs {
			encfs[i] = "E310000000001"
		}
		body, _ := json.Marshal(map[string]any{"encfs": encfs})
		e := wantError(t, s.Do(t, request{Method: "POST", Path: batch, Key: key, Body: body}), http.StatusUnprocessableEntity, sello.CodeValidationFailed)
		wantDetail(t, e, "encfs", "1 to 1000")
	})

	t.Run("ErrShape", func(t *testing.T) {
		for body, path := range map[string]string{
			`{}`:                                "encfs",
			`{"encfs":[]}`:                      "encfs",
			`{"encfs":"E310000000001"}`:         "encfs",
			`{"encfs":["E31000000001","bad"]}`:  "encfs[0]",
			`{"encfs":["E310000000001"],"x":1}`: "x",
		} {
			e := wantError(t, s.Do(t, request{Method: "POST", Path: batch, Key: key, Body: []byte(body)}), http.StatusUnprocessableEntity, sello.CodeValidationFailed)
			wantDetail(t, e, path, "")
		}
		wantError(t, s.Do(t, request{Method: "POST", Path: batch, Key: key, Body: []byte(`{"encfs":[`)}), http.StatusBadRequest, sello.CodeInvalidJSON)
	})
}

func TestReadDocuments(t *testing.T) {
	// ListFilters waits for the verdicts: the simulator gives them after
	// 100 ms, not its DGII-like 2 s.
	s := MustRunServer(t, "--dgii-sim-delay", "100ms")
	key := s.Keys[sello.EnvTest]
	for range 5 {
		s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice()})
	}

	t.Run("Get", func(t *testing.T) {
		r := s.Do(t, request{Method: "GET", Path: docsPath + "/E310000000002", Key: key})
		if r.Status != http.StatusOK || document(t, r)["encf"] != "E310000000002" {
			t.Fatalf("got %d %s", r.Status, r.Body)
		}
		wantError(t, s.Do(t, request{Method: "GET", Path: docsPath + "/E310000000099", Key: key}), http.StatusNotFound, sello.CodeNotFound)
		wantError(t, s.Do(t, request{Method: "GET", Path: docsPath + "/E31", Key: key}), http.StatusBadRequest, sello.CodeInvalidRequest)
	})

	t.Run("ListPages", func(t *testing.T) {
		var got []string
		path := docsPath + "?limit=2"
		for page := 0; ; page++ {
			if page > 5 {
				t.Fatal("pagination does not end")
			}
			m := s.Do(t, request{Method: "GET", Path: path, Key: key}).JSON(t)
			for _, d := range m["data"].([]any) {
				got = append(got, d.(map[string]any)["encf"].(string))
			}
			next, _ := m["nextCursor"].(string)
			if next == "" {
				break
			}
			path = docsPath + "?limit=2&cursor=" + next
		}
		want := []string{"E310000000005", "E310000000004", "E310000000003", "E310000000002", "E310000000001"}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("pages gave %v, want %v", got, want)
		}
	})

	t.Run("ListFilters", func(t *testing.T) {
		// The lifecycle runs: wait for every verdict, then filter on it.
		for i := 1; i <= 5; i++ {
			s.final(t, key, fmt.Sprintf("E31%010d", i))
		}
		m := s.Do(t, request{Method: "GET", Path: docsPath + "?status=accepted&type=E31", Key: key}).JSON(t)
		if n := len(m["data"].([]any)); n != 5 {
			t.Fatalf("%d documents, want 5", n)
		}
		for _, q := range []string{"?status=rejected", "?type=E32"} {
			m = s.Do(t, request{Method: "GET", Path: docsPath + q, Key: key}).JSON(t)
			if n := len(m["data"].([]any)); n != 0 {
				t.Fatalf("%s: %d documents, want 0", q, n)
			}
		}
		future := time.Now().Add(time.Hour).UTC().Format(sello.TimeFormat)
		m = s.Do(t, request{Method: "GET", Path: docsPath + "?from=" + future, Key: key}).JSON(t)
		if n := len(m["data"].([]any)); n != 0 {
			t.Fatalf("%d documents created in the future", n)
		}
	})

	t.Run("ErrInvalidRequest", func(t *testing.T) {
		for _, q := range []string{"?limit=0", "?limit=201", "?status=done", "?type=E99", "?from=yesterday", "?cursor=not-a-cursor", "?colour=red"} {
			wantError(t, s.Do(t, request{Method: "GET", Path: docsPath + q, Key: key}), http.StatusBadRequest, sello.CodeInvalidRequest)
		}
	})
}

func TestIdempotency(t *testing.T) {
	s := MustRunServer(t)
	key := s.Keys[sello.EnvTest]
	idem := map[string]string{"Idempotency-Key": "order-4711"}

	first := s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice(), Header: idem})
	again := s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice(), Header: idem})
	if first.Status != http.StatusAccepted || again.Status != http.StatusAccepted {
		t.Fatalf("statuses %d, %d", first.Status, again.Status)
	}
	if first.Header.Get("Idempotent-Replayed") != "" || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("Idempotent-Replayed: first %q, again %q", first.Header.Get("Idempotent-Replayed"), again.Header.Get("Idempotent-Replayed"))
	}
	d1, d2 := document(t, first), document(t, again)
	if d1["id"] != d2["id"] || d1["encf"] != d2["encf"] || d1["createdAt"] != d2["createdAt"] {
		t.Fatalf("replay differs: %v vs %v", d1, d2)
	}

	t.Run("ErrIdempotencyKeyReused", func(t *testing.T) {
		other := invoice(func(ecf map[string]any) { idDoc(ecf)["TipoIngresos"] = "02" })
		wantError(t, s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: other, Header: idem}), http.StatusConflict, sello.CodeIdempotencyKeyReused)
	})

	t.Run("ConcurrentRetriesCreateOneDocument", func(t *testing.T) {
		hdr := map[string]string{"Idempotency-Key": "retry-storm"}
		var wg sync.WaitGroup
		ids := make([]string, 8)
		for i := range ids {
			wg.Go(func() {
				r := s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice(), Header: hdr})
				if r.Status == http.StatusAccepted {
					ids[i] = document(t, r)["id"].(string)
				}
			})
		}
		wg.Wait()
		for _, id := range ids {
			if id != ids[0] || id == "" {
				t.Fatalf("concurrent retries gave ids %v", ids)
			}
		}
		list := s.Do(t, request{Method: "GET", Path: docsPath, Key: key}).JSON(t)
		if n := len(list["data"].([]any)); n != 2 {
			t.Fatalf("%d documents, want 2 (one per idempotency key)", n)
		}
	})
}

func TestSequenceExhaustedAndRateLimited(t *testing.T) {
	s := MustRunServer(t)
	if got := strings.TrimSpace(s.cli(t, "tenants", "create", "--rnc", "101010101", "--name", "Tiny SRL", "--plan", "tiny", "--rate", "0.01", "--burst", "4")); got != "101010101" {
		t.Fatalf("tenants create printed %q", got)
	}
	s.cli(t, "sequences", "add", "--tenant", "101010101", "--env", "TesteCF", "--type", "31", "--from", "1", "--to", "2", "--expires", "31-12-2030")
	key := strings.TrimSpace(s.cli(t, "keys", "create", "--tenant", "101010101", "--env", "TesteCF", "--scopes", "ecf:create,ecf:read"))
	body := invoice(func(ecf map[string]any) {
		apitest.Section(ecf, "Emisor")["RNCEmisor"] = "101010101"
	})

	for i := range 2 {
		r := s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: body})
		if r.Status != http.StatusAccepted {
			t.Fatalf("create %d: %d %s", i, r.Status, r.Body)
		}
		if got := r.Header.Get("RateLimit-Policy"); got != `"tiny";q=4;w=400` {
			t.Fatalf("RateLimit-Policy %q", got)
		}
		if got, want := r.Header.Get("RateLimit"), fmt.Sprintf(`"tiny";r=%d;`, 3-i); !strings.HasPrefix(got, want) {
			t.Fatalf("RateLimit %q, want prefix %q", got, want)
		}
	}
	t.Run("ErrSequenceExhausted", func(t *testing.T) {
		e := wantError(t, s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: body}), http.StatusUnprocessableEntity, sello.CodeSequenceExhausted)
		if !strings.Contains(e["message"].(string), "used up") {
			t.Fatalf("message %q", e["message"])
		}
	})
	t.Run("ErrRateLimited", func(t *testing.T) {
		s.Do(t, request{Method: "GET", Path: docsPath, Key: key})
		r := s.Do(t, request{Method: "GET", Path: docsPath, Key: key})
		e := wantError(t, r, http.StatusTooManyRequests, sello.CodeRateLimited)
		retry, _ := e["retryAfterSeconds"].(float64)
		if retry < 1 || r.Header.Get("Retry-After") != fmt.Sprint(int(retry)) {
			t.Fatalf("retryAfterSeconds %v, Retry-After %q", e["retryAfterSeconds"], r.Header.Get("Retry-After"))
		}
		if !strings.Contains(r.Header.Get("RateLimit"), "r=0") {
			t.Fatalf("RateLimit %q", r.Header.Get("RateLimit"))
		}
		// Another tenant's key is not affected.
		if r := s.Do(t, request{Method: "GET", Path: docsPath, Key: s.Keys[sello.EnvTest]}); r.Status != http.StatusOK {
			t.Fatalf("demo key: %d", r.Status)
		}
	})
}

func TestTenantIsolation(t *testing.T) {
	s := MustRunServer(t)
	s.cli(t, "tenants", "create", "--rnc", "202020202", "--name", "Otra SRL")
	s.cli(t, "sequences", "add", "--tenant", "202020202", "--env", "TesteCF", "--type", "31", "--from", "1", "--to", "100", "--expires", "31-12-2030")
	other := strings.TrimSpace(s.cli(t, "keys", "create", "--tenant", "202020202", "--env", "TesteCF", "--scopes", "ecf:create,ecf:read,status:read"))

	mine := document(t, s.Do(t, request{Method: "POST", Path: docsPath, Key: s.Keys[sello.EnvTest], Body: invoice()}))
	wantError(t, s.Do(t, request{Method: "GET", Path: docsPath + "/" + mine["encf"].(string), Key: other}), http.StatusNotFound, sello.CodeNotFound)
	res := s.Do(t, request{Method: "POST", Path: docsPath + "/status/batch", Key: other, Body: []byte(`{"encfs":["E310000000001"]}`)}).JSON(t)
	if res["results"].([]any)[0].(map[string]any)["found"] != false {
		t.Fatalf("other tenant sees the document: %v", res)
	}
	// The other tenant numbers its own range from 1, and cannot issue as us.
	body := invoice(func(ecf map[string]any) {
		apitest.Section(ecf, "Emisor")["RNCEmisor"] = "202020202"
	})
	if got := document(t, s.Do(t, request{Method: "POST", Path: docsPath, Key: other, Body: body}))["encf"]; got != "E310000000001" {
		t.Fatalf("other tenant's first number %v", got)
	}
	e := wantError(t, s.Do(t, request{Method: "POST", Path: docsPath, Key: other, Body: invoice()}), http.StatusUnprocessableEntity, sello.CodeValidationFailed)
	wantDetail(t, e, "ECF.Encabezado.Emisor.RNCEmisor", "")
	list := s.Do(t, request{Method: "GET", Path: docsPath, Key: other}).JSON(t)
	if n := len(list["data"].([]any)); n != 1 {
		t.Fatalf("other tenant lists %d documents, want its 1", n)
	}
}

func TestEnvironmentIsolation(t *testing.T) {
	s := MustRunServer(t)
	s.Do(t, request{Method: "POST", Path: docsPath, Key: s.Keys[sello.EnvTest], Body: invoice()})
	r := s.Do(t, request{Method: "POST", Path: "/CerteCF/documentos-ecf", Key: s.Keys[sello.EnvCert], Body: invoice()})
	if got := document(t, r)["encf"]; got != "E310000000001" {
		t.Fatalf("CerteCF numbers independently of TesteCF: got %v", got)
	}
	wantError(t, s.Do(t, request{Method: "GET", Path: "/eCF/documentos-ecf/E310000000001", Key: s.Keys[sello.EnvProd]}), http.StatusNotFound, sello.CodeNotFound)
}

func TestHealthAndOpenAPI(t *testing.T) {
	s := MustRunServer(t)
	for _, path := range []string{"/healthz", "/readyz", "/openapi.json"} {
		if r := s.Do(t, request{Method: "GET", Path: path}); r.Status != http.StatusOK {
			t.Fatalf("%s: %d", path, r.Status)
		}
	}
	r := s.Do(t, request{Method: "GET", Path: "/openapi.json"})
	if m := r.JSON(t); m["openapi"] != "3.1.0" {
		t.Fatalf("openapi version %v", m["openapi"])
	}
}

// TestGracefulShutdown checks that a request in flight when the server is
// told to stop still completes.
func TestGracefulShutdown(t *testing.T) {
	s := MustRunServer(t)
	// The client asks before it sends the body (Expect: 100-continue), so
	// the server's 100 Continue says that the handler is reading it.
	reading := make(chan struct{})
	trace := &httptrace.ClientTrace{Got100Continue: func() { close(reading) }}
	pr, pw := io.Pipe()
	req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), "POST", s.URL+docsPath, pr)
	req.Header.Set("X-API-KEY", s.Keys[sello.EnvTest])
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Expect", "100-continue")
	body := invoice()
	req.ContentLength = int64(len(body))
	tr := &http.Transport{ExpectContinueTimeout: time.Minute}
	defer tr.CloseIdleConnections()
	type result struct {
		status int
		err    error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			done <- result{err: err}
			return
		}
		resp.Body.Close()
		done <- result{status: resp.StatusCode}
	}()
	select {
	case <-reading: // the request is now in flight
	case res := <-done:
		t.Fatalf("answered before the body was sent: %d, %v", res.status, res.err)
	case <-time.After(30 * time.Second):
		t.Fatal("the handler did not read the request within 30 s")
	}
	pw.Write(body[:10])
	stopped := make(chan struct{})
	go func() { s.Stop(t); close(stopped) }()
	// The server is stopping once it accepts no connection.
	if !testwait.Within(30*time.Second, 5*time.Millisecond, func() bool {
		c, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
		if err == nil {
			c.Close()
		}
		return err != nil
	}) {
		t.Fatal("the server still accepts connections 30 s after it was told to stop")
	}
	pw.Write(body[10:])
	pw.Close()
	res := <-done
	if res.err != nil || res.status != http.StatusAccepted {
		t.Fatalf("in-flight request: %d, %v", res.status, res.err)
	}
	<-stopped
	if _, err := http.Get(s.URL + "/healthz"); err == nil {
		t.Fatal("server still answers after shutdown")
	}
}

// mustOpenStore opens the server's SQLite file from the test, as the
// operator CLI does while the server runs.
func mustOpenStore(tb testing.TB, s *testServer) *sqlite.DB {
	tb.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(s.Data, "sello.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// TestDemoBuyer checks that --demo seeds the buyer tenant too: its keys are
// printed ("demo buyer key ENV KEY"), it issues its own documents from its
// own ranges, and its receiver answers (the issuer's documents go to it).
func TestDemoBuyer(t *testing.T) {
	s := MustRunServer(t)
	for _, env := range sello.Environments {
		if s.BuyerKeys[env] == "" || s.BuyerKeys[env] == s.Keys[env] {
			t.Fatalf("buyer key of %s: %q (issuer's %q)", env, s.BuyerKeys[env], s.Keys[env])
		}
	}
	body := invoice(func(ecf map[string]any) {
		apitest.Section(ecf, "Emisor")["RNCEmisor"] = demoBuyerRNC
		apitest.Section(ecf, "Comprador")["RNCComprador"] = demoRNC
	})
	if got := document(t, s.Do(t, request{Method: "POST", Path: docsPath, Key: s.BuyerKeys[sello.EnvTest], Body: body}))["encf"]; got != "E310000000001" {
		t.Fatalf("the buyer's first number %v", got)
	}
	resp, err := http.Get(s.URL + "/TesteCF/receptor/" + demoBuyerRNC + "/fe/autenticacion/api/semilla")
	if err != nil {
		t.Fatal(err)
	}
	seed, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !bytes.Contains(seed, []byte("<SemillaModel")) {
		t.Fatalf("the buyer's receiver: %d %s", resp.StatusCode, seed)
	}
	if out := s.cli(t, "tenants", "list"); !strings.Contains(out, demoBuyerRNC) || !strings.Contains(out, demoBuyerName) {
		t.Fatalf("tenants list:\n%s", out)
	}
}
