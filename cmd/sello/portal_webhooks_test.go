package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestPortalWebhooksServed: in sello serve --demo (loopback webhooks
// allowed), the demo owner adds an endpoint at a receiver on this machine
// through the portal, and the server's own workers deliver its test event,
// signed with the secret the page showed once.
func TestPortalWebhooksServed(t *testing.T) {
	got := make(chan *http.Request, 4)
	bodies := make(chan []byte, 4)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- r
		bodies <- b
	}))
	defer rc.Close()

	s := MustRunServer(t)
	email, password := s.demoLogin(t, demoRNC)
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	do := func(method, path string, form url.Values) (*http.Response, string) {
		t.Helper()
		var body io.Reader
		if form != nil {
			body = strings.NewReader(form.Encode())
		}
		req, _ := http.NewRequest(method, s.URL+path, body)
		if form != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Origin", s.URL)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	if resp, body := do("POST", "/portal/entrar", url.Values{"email": {email}, "password": {password}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("demo login: %d %s", resp.StatusCode, body)
	}
	csrf := func(path string) string {
		t.Helper()
		_, body := do("GET", path, nil)
		m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("no CSRF token on %s: %s", path, body)
		}
		return m[1]
	}
	resp, body := do("POST", "/portal/TesteCF/webhooks", url.Values{"csrf": {csrf("/portal/TesteCF/webhooks/nuevo")},
		"url": {rc.URL + "/hooks"}, "environment": {"TesteCF"}, "scope": {"all"}})
	secret := regexp.MustCompile(`id="webhook-secret">([^<]+)<`).FindStringSubmatch(body)
	link := regexp.MustCompile(`href="(/portal/TesteCF/webhooks/endpoints/[^"]+)"`).FindStringSubmatch(body)
	if resp.StatusCode != http.StatusOK || secret == nil || link == nil {
		t.Fatalf("add a loopback endpoint in the demo: %d %s", resp.StatusCode, body)
	}
	resp, body = do("POST", link[1]+"/probar", url.Values{"csrf": {csrf(link[1])}})
	if resp.StatusCode != http.StatusSeeOther || !strings.Contains(resp.Header.Get("Location"), "?done=test") {
		t.Fatalf("test: %d to %q: %s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	select {
	case r := <-got:
		b := <-bodies
		sig := r.Header.Get("Sello-Signature")
		ts, v1, _ := strings.Cut(sig, ",v1=")
		mac := hmac.New(sha256.New, []byte(secret[1]))
		mac.Write([]byte(strings.TrimPrefix(ts, "t=") + "." + string(b)))
		if !hmac.Equal([]byte(v1), []byte(hex.EncodeToString(mac.Sum(nil)))) {
			t.Fatalf("the delivery's signature %q does not verify with the secret shown", sig)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the receiver got no delivery in 20 s")
	}
	if _, body := do("GET", resp.Header.Get("Location"), nil); !strings.Contains(body, "HTTP 200") {
		t.Errorf("the test's page does not show the receiver's answer: %s", body)
	}
}
