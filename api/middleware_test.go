package api_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sello-do/sello"
)

// TestRateLimitKnownKeys: every answer to a known key counts against its
// limit and carries the RateLimit headers, its 403s and 404s too; answers
// with no key known (401, an unrouted 404) carry none.
func TestRateLimitKnownKeys(t *testing.T) {
	f := mustFixture(t)
	tenant := &sello.Tenant{RNC: "101010101", Name: "Tiny SRL", Plan: sello.RatePlan{Name: "tiny", Rate: 0.001, Burst: 3}}
	if err := f.db.CreateTenant(context.Background(), tenant); err != nil {
		t.Fatal(err)
	}
	statusOnly := mustKey(t, f, tenant.ID, sello.EnvTest, sello.ScopeStatusRead)

	for i, step := range []struct {
		path   string
		status int
		code   sello.ErrorCode
		left   string
	}{
		{"/TesteCF/documentos-ecf", http.StatusForbidden, sello.CodeInsufficientScope, "r=2;"},
		{"/CerteCF/documentos-ecf", http.StatusForbidden, sello.CodeEnvironmentMismatch, "r=1;"},
		{"/Prod/documentos-ecf", http.StatusNotFound, sello.CodeNotFound, "r=0;"},
		// The limit reached, the 403 and the 404 are 429s.
		{"/TesteCF/documentos-ecf", http.StatusTooManyRequests, sello.CodeRateLimited, "r=0;"},
		{"/Prod/documentos-ecf", http.StatusTooManyRequests, sello.CodeRateLimited, "r=0;"},
	} {
		rec := f.doKey(statusOnly, "GET", step.path, nil)
		wantError(t, rec, step.status, step.code)
		if got := rec.Header().Get("RateLimit"); !strings.HasPrefix(got, `"tiny";`+step.left) {
			t.Errorf("answer %d (%s): RateLimit %q, want %q", i, step.path, got, `"tiny";`+step.left+"…")
		}
		if got := rec.Header().Get("RateLimit-Policy"); got != `"tiny";q=3;w=3000` {
			t.Errorf("answer %d (%s): RateLimit-Policy %q", i, step.path, got)
		}
	}

	for _, tt := range []struct {
		name, key, path string
		status          int
	}{
		{"ErrMissingKey", "", "/TesteCF/documentos-ecf", http.StatusUnauthorized},
		{"ErrUnknownKey", "sk_testecf_" + strings.Repeat("A", 32), "/Prod/documentos-ecf", http.StatusUnauthorized},
		{"ErrNoSuchEndpoint", statusOnly, "/nope", http.StatusNotFound},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := f.doKey(tt.key, "GET", tt.path, nil)
			if rec.Code != tt.status {
				t.Fatalf("got %d %s, want %d", rec.Code, rec.Body, tt.status)
			}
			for _, h := range []string{"RateLimit", "RateLimit-Policy"} {
				if v := rec.Header().Get(h); v != "" {
					t.Errorf("%s: %s", h, v)
				}
			}
		})
	}
}

func TestStatusBatchValidationMessage(t *testing.T) {
	f := mustFixture(t)
	for body, want := range map[string]string{
		`{}`:                                "The request is not valid: encfs: required: an array of e-NCFs.",
		`{"encfs":[]}`:                      "The request is not valid: encfs: must list 1 to 1000 e-NCFs, not 0.",
		`{"encfs":"E310000000001"}`:         "The request is not valid: encfs: must be an array, not a JSON string.",
		`{"encfs":["E310000000001"],"x":1}`: "The request is not valid: x: unknown field.",
		`{"encfs":["bad","E31"]}`:           "The request is not valid: encfs[0]: ",
	} {
		rec := f.do("POST", "/TesteCF/documentos-ecf/status/batch", []byte(body))
		wantError(t, rec, http.StatusUnprocessableEntity, sello.CodeValidationFailed, want)
		if strings.Contains(rec.Body.String(), "document is not valid") {
			t.Errorf("%s: %s speaks of a document", body, rec.Body)
		}
	}
	rec := f.do("POST", "/TesteCF/documentos-ecf/status/batch", []byte(`{"encfs":["bad","E31"]}`))
	wantError(t, rec, http.StatusUnprocessableEntity, sello.CodeValidationFailed, "(and 1 more problem).")
}

// TestAuthorizationHeader: a key sent as Authorization (no X-API-KEY) is
// UNAUTHENTICATED with a message that says the key goes in X-API-KEY and
// never repeats the header's value; with X-API-KEY, Authorization is
// ignored.
func TestAuthorizationHeader(t *testing.T) {
	f := mustFixture(t)
	for _, tt := range []struct {
		name, authorization, key string
		status                   int
		msgs                     []string
	}{
		{"ErrBearerKey", "Bearer " + f.key, "", http.StatusUnauthorized, []string{"X-API-KEY: <key>", "Authorization header is reserved"}},
		{"ErrBasic", "Basic dXNlcjpwYXNz", "", http.StatusUnauthorized, []string{"X-API-KEY: <key>", "Authorization header is reserved"}},
		{"ErrNoHeader", "", "", http.StatusUnauthorized, []string{"Missing X-API-KEY header: send the API key as X-API-KEY: <key>."}},
		{"OKBothHeaders", "Bearer sk_testecf_nonsense", f.key, http.StatusOK, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", "/TesteCF/secuencias", nil)
			if tt.authorization != "" {
				req.Header.Set("Authorization", tt.authorization)
			}
			if tt.key != "" {
				req.Header.Set("X-API-KEY", tt.key)
			}
			rec := httptest.NewRecorder()
			f.handler.ServeHTTP(rec, req)
			if tt.status == http.StatusOK {
				if rec.Code != http.StatusOK {
					t.Fatalf("got %d %s, want 200", rec.Code, rec.Body)
				}
				return
			}
			wantError(t, rec, tt.status, sello.CodeUnauthenticated, tt.msgs...)
			if strings.Contains(rec.Body.String(), f.key) || strings.Contains(rec.Body.String(), "dXNlcjpwYXNz") {
				t.Errorf("the answer repeats the Authorization header: %s", rec.Body)
			}
		})
	}
}

// TestPortalCookieRefused: the API takes no portal session (spec §4.5): a
// request with the portal's cookie and no key is UNAUTHENTICATED with a
// message saying the API takes X-API-KEY; with a key, the cookie changes
// nothing.
func TestPortalCookieRefused(t *testing.T) {
	f := mustFixture(t)
	for _, name := range []string{sello.SessionCookie, sello.HostSessionCookie} {
		t.Run("Err"+name, func(t *testing.T) {
			req := httptest.NewRequest("GET", "/TesteCF/secuencias", nil)
			req.AddCookie(&http.Cookie{Name: name, Value: "a-live-portal-session-token"})
			rec := httptest.NewRecorder()
			f.handler.ServeHTTP(rec, req)
			wantError(t, rec, http.StatusUnauthorized, sello.CodeUnauthenticated, "X-API-KEY: <key>", "never the portal's session cookie")
			if strings.Contains(rec.Body.String(), "a-live-portal-session-token") {
				t.Errorf("the answer repeats the cookie: %s", rec.Body)
			}
		})
	}
	t.Run("OKWithKey", func(t *testing.T) {
		req := httptest.NewRequest("GET", "/TesteCF/secuencias", nil)
		req.AddCookie(&http.Cookie{Name: sello.SessionCookie, Value: "x"})
		req.Header.Set("X-API-KEY", f.key)
		rec := httptest.NewRecorder()
		f.handler.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("got %d %s, want 200", rec.Code, rec.Body)
		}
	})
}
