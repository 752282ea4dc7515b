package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

// waitLine returns the next line the server prints that contains every
// one of want, skipping others, in 30 s at most.
func (s *testServer) waitLine(tb testing.TB, want ...string) string {
	tb.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case line := <-s.lines:
			if containsAll(line, want...) {
				return line
			}
		case <-timeout:
			tb.Fatalf("the server printed no line with %q in 30 s", want)
		}
	}
}

// demoLogin reads the "demo login RNC EMAIL PASSWORD" line of rnc.
func (s *testServer) demoLogin(tb testing.TB, rnc string) (email, password string) {
	tb.Helper()
	line := s.waitLine(tb, "demo login "+rnc+" ")
	if _, err := fmt.Sscanf(line, "demo login "+rnc+" %s %s", &email, &password); err != nil {
		tb.Fatalf("%q: %v", line, err)
	}
	return email, password
}

// TestPortalServed: sello serve --demo serves the portal at / beside the
// API and prints its URL and each demo tenant's owner's login, the same
// at every start; the owner logs in; the portal's cookie is refused by the
// API and an API key by the portal; the API's own answers (its 404s and
// 405s, POST /) are unchanged.
func TestPortalServed(t *testing.T) {
	s := MustRunServer(t)
	if line := s.waitLine(t, "portal "); line != "portal "+s.URL+"/" {
		t.Errorf("printed %q, want %q", line, "portal "+s.URL+"/")
	}
	email, password := s.demoLogin(t, demoRNC)
	buyerEmail, _ := s.demoLogin(t, demoBuyerRNC)
	if email == buyerEmail {
		t.Errorf("both demo tenants have the owner %s", email)
	}

	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	do := func(method, path string, form url.Values, header http.Header) (*http.Response, string) {
		t.Helper()
		var body io.Reader
		if form != nil {
			body = strings.NewReader(form.Encode())
		}
		req, _ := http.NewRequest(method, s.URL+path, body)
		if form != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		for k, v := range header {
			req.Header[k] = v
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}

	if resp, _ := do("GET", "/", nil, nil); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/portal/entrar" {
		t.Fatalf("GET / without a session: %d to %q, want 303 to the login", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, body := do("POST", "/portal/entrar", url.Values{"email": {email}, "password": {password}}, http.Header{"Origin": {s.URL}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("demo login: %d %s", resp.StatusCode, body)
	}
	if set := resp.Header.Get("Set-Cookie"); !strings.HasPrefix(set, sello.SessionCookie+"=") || strings.Contains(set, "Secure") {
		t.Errorf("demo cookie %q: want %s without Secure (loopback demo over http)", set, sello.SessionCookie)
	}
	if resp, body := do("GET", "/", nil, nil); resp.StatusCode != http.StatusOK || !strings.Contains(body, demoName) {
		t.Fatalf("home: %d %s", resp.StatusCode, body)
	}

	// The portal's cookie (in the jar) does not open the API.
	resp, body = do("GET", "/TesteCF/secuencias", nil, nil)
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, `"code":"UNAUTHENTICATED"`) || !strings.Contains(body, "X-API-KEY") {
		t.Errorf("API with the portal's cookie: %d %s", resp.StatusCode, body)
	}
	// An API key does not open the portal.
	resp, body = do("GET", "/", nil, http.Header{"X-API-KEY": {s.Keys[sello.EnvTest]}})
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "The portal does not accept API keys") {
		t.Errorf("portal with an API key: %d %s", resp.StatusCode, body)
	}
	// The API's own answers.
	for _, tt := range []struct {
		method, path string
		status       int
		code         string
	}{
		{"POST", "/", http.StatusNotFound, "NOT_FOUND"},
		{"GET", "/nope", http.StatusNotFound, "NOT_FOUND"},
		{"DELETE", "/TesteCF/documentos-ecf", http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED"},
		{"GET", "/healthz", http.StatusOK, ""},
	} {
		resp, body := do(tt.method, tt.path, nil, nil)
		if resp.StatusCode != tt.status || (tt.code != "" && !strings.Contains(body, `"code":"`+tt.code+`"`)) {
			t.Errorf("%s %s: %d %s, want %d %s", tt.method, tt.path, resp.StatusCode, body, tt.status, tt.code)
		}
	}

	// A restart prints the same login.
	s.Stop(t)
	r := s.Restart(t)
	if e, p := r.demoLogin(t, demoRNC); e != email || p != password {
		t.Errorf("after a restart: %s %s, want %s %s", e, p, email, password)
	}
}
