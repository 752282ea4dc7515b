package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestAnsweredBeforeTheHandler pins the requests Go's server answers
// itself, before Sello's handler, with a plain-text body and not the JSON
// error body: docs/api.md lists them as the exceptions, and this test
// keeps that list true.
func TestAnsweredBeforeTheHandler(t *testing.T) {
	s := MustRunServer(t)
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	key := s.Keys["TesteCF"]
	for _, tt := range []struct {
		name    string
		headers string
		status  int
	}{
		{"DELInHeaderValue", "X-Note: a\x7fb\r\n", http.StatusBadRequest},
		{"DELInHeaderName", "X-No\x7fte: a\r\n", http.StatusBadRequest},
		{"HeadersOverTheLimit", "X-Big: " + strings.Repeat("a", 2*maxHeaderBytes) + "\r\n", http.StatusRequestHeaderFieldsTooLarge},
	} {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", u.Host)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(10 * time.Second))
			req := "GET /TesteCF/documentos-ecf HTTP/1.1\r\nHost: " + u.Host + "\r\nX-API-KEY: " + key + "\r\n" + tt.headers + "\r\n"
			go io.WriteString(conn, req) // Go may answer before it has read it all
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status {
				t.Fatalf("got %d %s, want %d", resp.StatusCode, body, tt.status)
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
				t.Errorf("Content-Type %q: Go's server now lets Sello answer; give it the JSON error body and update docs/api.md", ct)
			}
			if resp.Header.Get("X-Correlation-Id") != "" {
				t.Errorf("answered by Sello's handler, not Go's server")
			}
		})
	}
	// The same request without the bad header reaches the handler.
	r := s.Do(t, request{Method: "GET", Path: "/TesteCF/documentos-ecf", Key: key})
	if r.Status != http.StatusOK {
		t.Fatalf("plain request: %d %s", r.Status, r.Body)
	}
}
