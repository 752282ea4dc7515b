package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/sello-do/sello"
)

// sequences lists the ranges key sees in env, checked against the
// contract.
func sequences(tb testing.TB, f *fixture, key string, env sello.Environment) []sello.SequenceResource {
	tb.Helper()
	resp, body := call(tb, f, key, "GET", "/"+string(env)+"/secuencias", nil)
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("list: %d %s", resp.StatusCode, body)
	}
	var got struct {
		OK        bool                     `json:"ok"`
		Sequences []sello.SequenceResource `json:"data"`
	}
	if err := json.Unmarshal(body, &got); err != nil || !got.OK {
		tb.Fatalf("list: %v %s", err, body)
	}
	return got.Sequences
}

// findSequence returns the listed range of type code starting at from.
func findSequence(tb testing.TB, seqs []sello.SequenceResource, code string, from int64) sello.SequenceResource {
	tb.Helper()
	for _, s := range seqs {
		if s.Type == code && s.From == from {
			return s
		}
	}
	tb.Fatalf("no range %s from %d in %+v", code, from, seqs)
	return sello.SequenceResource{}
}

// wantCallError checks a contract-checked answer's status, code and message.
func wantCallError(tb testing.TB, resp *http.Response, body []byte, status int, code sello.ErrorCode, msgs ...string) {
	tb.Helper()
	var b struct {
		Error struct {
			Code    sello.ErrorCode `json:"code"`
			Message string          `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &b); err != nil || resp.StatusCode != status || b.Error.Code != code {
		tb.Fatalf("got %d %s, want %d %s", resp.StatusCode, body, status, code)
	}
	for _, m := range msgs {
		if !strings.Contains(b.Error.Message, m) {
			tb.Errorf("message %q does not say %q", b.Error.Message, m)
		}
	}
}

func TestSequences(t *testing.T) {
	f := mustFixture(t)
	const path = "/TesteCF/secuencias"
	post := func(key, body string) (*http.Response, []byte) {
		t.Helper()
		return call(t, f, key, "POST", path, []byte(body))
	}

	t.Run("OK", func(t *testing.T) {
		resp, body := post(f.key, `{"type":"33","from":1,"to":1000,"expiresOn":"2099-12-31"}`)
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("status %d: %s", resp.StatusCode, body)
		}
		var got struct {
			OK       bool                   `json:"ok"`
			Sequence sello.SequenceResource `json:"sequence"`
		}
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatal(err)
		}
		s := got.Sequence
		if !got.OK || s.ID == "" || s.Type != "E33" || s.From != 1 || s.To != 1000 || s.Next == nil || *s.Next != "E330000000001" ||
			s.Used != 0 || s.Left != 1000 || s.ExpiresOn == nil || s.ExpiresOn.String() != "2099-12-31" || s.State != sello.SequenceActive {
			t.Fatalf("sequence: %s", body)
		}
		if listed := findSequence(t, sequences(t, f, f.key, sello.EnvTest), "E33", 1); !reflect.DeepEqual(listed, s) {
			t.Errorf("listed %+v, want %+v", listed, s)
		}

		t.Run("ErrOverlap", func(t *testing.T) {
			for _, r := range []string{`"from":500,"to":1500`, `"from":1000,"to":1000`, `"from":1,"to":2`} {
				resp, body := post(f.key, `{"type":"E33",`+r+`,"expiresOn":"2099-12-31"}`)
				wantCallError(t, resp, body, http.StatusUnprocessableEntity, sello.CodeValidationFailed, "overlaps the registered range "+s.ID+" (1–1000)")
			}
			// Adjacent ranges do not overlap.
			if resp, body := post(f.key, `{"type":"33","from":1001,"to":2000,"expiresOn":"31-12-2099"}`); resp.StatusCode != http.StatusCreated {
				t.Fatalf("adjacent: %d %s", resp.StatusCode, body)
			}
		})
	})

	t.Run("UsedLeftNext", func(t *testing.T) {
		create(t, f, f.key, sello.EnvTest, testRNC)
		create(t, f, f.key, sello.EnvTest, testRNC)
		s := findSequence(t, sequences(t, f, f.key, sello.EnvTest), "E31", 1)
		if s.Used != 2 || s.Left != 9_000_000_000-2 || s.Next == nil || *s.Next != "E310000000003" || s.State != sello.SequenceActive {
			t.Fatalf("after two documents: %+v", s)
		}
	})

	t.Run("OKType32WithoutExpiry", func(t *testing.T) {
		resp, body := post(f.key, `{"type":"32","from":1,"to":10}`)
		if resp.StatusCode != http.StatusCreated || !strings.Contains(string(body), `"expiresOn":null`) {
			t.Fatalf("status %d: %s", resp.StatusCode, body)
		}
	})

	t.Run("StateExpired", func(t *testing.T) {
		expired := sello.Date{Year: 2020, Month: 12, Day: 31}
		// Stored directly: the API refuses to register it.
		if err := f.db.AddSequence(context.Background(), &sello.Sequence{TenantID: f.tenant.ID, Environment: sello.EnvTest, Type: sello.TypeGubernamental, From: 1, To: 10, ExpiresOn: &expired}); err != nil {
			t.Fatal(err)
		}
		if s := findSequence(t, sequences(t, f, f.key, sello.EnvTest), "E45", 1); s.State != sello.SequenceExpired || s.Left != 10 {
			t.Fatalf("expired range: %+v", s)
		}
	})

	t.Run("ErrExpired", func(t *testing.T) {
		resp, body := post(f.key, `{"type":"44","from":1,"to":10,"expiresOn":"2020-12-31"}`)
		wantCallError(t, resp, body, http.StatusUnprocessableEntity, sello.CodeValidationFailed, "expired on 2020-12-31")
	})

	t.Run("ErrInvalid", func(t *testing.T) {
		for _, tt := range []struct{ body, msg string }{
			{`{"type":"44","from":1,"to":10}`, "Type 44 needs the expiry"},
			{`{"type":"34","from":1,"to":10,"expiresOn":"2099-12-31"}`, "Type 34 has no sequence expiry"},
			{`{"type":"44","from":10,"to":5,"expiresOn":"2099-12-31"}`, "not valid"},
			{`{"type":"44","from":1,"to":10000000000,"expiresOn":"2099-12-31"}`, "not valid"},
			{`{"type":"30","from":1,"to":10,"expiresOn":"2099-12-31"}`, "Unknown e-CF type"},
			{`{"type":"44","from":1,"to":10,"expiresOn":"31/12/2099"}`, "must be dd-MM-yyyy or yyyy-MM-dd"},
		} {
			resp, body := post(f.key, tt.body)
			wantCallError(t, resp, body, http.StatusBadRequest, sello.CodeInvalidRequest, tt.msg)
		}
		resp, body := post(f.key, `{"type":"44","from":1,"to":10,"expires":"2099-12-31"}`)
		wantCallError(t, resp, body, http.StatusUnprocessableEntity, sello.CodeValidationFailed)
	})

	t.Run("ErrScope", func(t *testing.T) {
		others := []sello.Scope{sello.ScopeCreate, sello.ScopeValidate, sello.ScopeStatusRead, sello.ScopeRead}
		key := mustKey(t, f, f.tenant.ID, sello.EnvTest, others...)
		resp, body := post(key, `{"type":"46","from":1,"to":10,"expiresOn":"2099-12-31"}`)
		wantCallError(t, resp, body, http.StatusForbidden, sello.CodeInsufficientScope, "tenant:admin")
		resp, body = call(t, f, key, "GET", path, nil)
		wantCallError(t, resp, body, http.StatusForbidden, sello.CodeInsufficientScope, "tenant:admin")
	})

	t.Run("Isolation", func(t *testing.T) {
		_, otherKey := mustTenant(t, f, "130000002", sello.EnvTest)
		// The other tenant registers the same range: no overlap with ours.
		if resp, body := post(otherKey, `{"type":"33","from":1,"to":1000,"expiresOn":"2099-12-31"}`); resp.StatusCode != http.StatusCreated {
			t.Fatalf("other tenant: %d %s", resp.StatusCode, body)
		}
		for _, s := range sequences(t, f, otherKey, sello.EnvTest) {
			if s.Type != "E31" && s.Type != "E33" {
				t.Errorf("the other tenant sees %+v", s)
			}
		}
		if got := len(sequences(t, f, otherKey, sello.EnvTest)); got != 2 {
			t.Errorf("the other tenant sees %d ranges, want its 2", got)
		}

		// Another environment of the same tenant has its own ranges.
		certKey := mustKey(t, f, f.tenant.ID, sello.EnvCert, sello.ScopeAdmin)
		if got := sequences(t, f, certKey, sello.EnvCert); len(got) != 0 {
			t.Fatalf("CerteCF lists %+v, want none", got)
		}
		resp, body := call(t, f, certKey, "POST", "/CerteCF/secuencias", []byte(`{"type":"33","from":1,"to":1000,"expiresOn":"2099-12-31"}`))
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("CerteCF: %d %s", resp.StatusCode, body)
		}
		if got := sequences(t, f, certKey, sello.EnvCert); len(got) != 1 || got[0].Type != "E33" {
			t.Fatalf("CerteCF lists %+v, want its one range", got)
		}
		resp, body = call(t, f, f.key, "GET", "/CerteCF/secuencias", nil)
		wantCallError(t, resp, body, http.StatusForbidden, sello.CodeEnvironmentMismatch)
	})
}
