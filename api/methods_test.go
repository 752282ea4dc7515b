package api_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/sello-do/sello/apitest"
)

// httpMethods are the methods an OpenAPI path item can declare.
var httpMethods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"}

// TestMethodNotAllowed walks every path of the OpenAPI document on a live
// server and sends it every method the path does not declare: each gets
// 405 METHOD_NOT_ALLOWED, before any key is looked at, with an Allow header
// listing the declared methods (HEAD with GET) and the error body naming
// them. The declared methods are never 405.
func TestMethodNotAllowed(t *testing.T) {
	c := apitest.NewContract(t)
	f := mustFixture(t)
	srv := httptest.NewServer(f.handler)
	t.Cleanup(srv.Close)
	target := strings.NewReplacer("{env}", "TesteCF", "{encf}", "E310000000001", "{id}", "0")

	n := 0
	for path, item := range c.Document().Paths.Map() {
		var allowed []string
		for method := range item.Operations() {
			allowed = append(allowed, method)
			if method == "GET" {
				allowed = append(allowed, "HEAD")
			}
		}
		slices.Sort(allowed)
		url := srv.URL + target.Replace(path)
		for _, method := range httpMethods {
			t.Run(method+" "+path, func(t *testing.T) {
				if slices.Contains(allowed, method) {
					resp, _ := send(t, method, url)
					if resp.StatusCode == http.StatusMethodNotAllowed {
						t.Errorf("%s %s is declared, yet 405", method, path)
					}
					return
				}
				n++
				resp, body := send(t, method, url)
				if got, want := resp.StatusCode, http.StatusMethodNotAllowed; got != want {
					t.Fatalf("status %d, want %d: %s", got, want, body)
				}
				if got, want := resp.Header.Get("Allow"), strings.Join(allowed, ", "); got != want {
					t.Errorf("Allow = %q, want %q", got, want)
				}
				if method == "HEAD" {
					return // no body to read
				}
				var eb struct {
					Error struct{ Code, Message string }
				}
				if err := json.Unmarshal(body, &eb); err != nil {
					t.Fatalf("body: %v: %s", err, body)
				}
				if got, want := eb.Error.Code, "METHOD_NOT_ALLOWED"; got != want {
					t.Errorf("code %s, want %s", got, want)
				}
				for _, want := range append([]string{"Method " + method + " is not allowed on " + target.Replace(path)}, allowed...) {
					if !strings.Contains(eb.Error.Message, want) {
						t.Errorf("message %q does not say %q", eb.Error.Message, want)
					}
				}
				c.CheckResponse(t, resp.Request, nil, resp, body)
			})
		}
	}
	if n < 100 {
		t.Errorf("%d undeclared methods sent, want at least 100 (22 paths)", n)
	}
}

// TestUnknownPath checks that a path no route has stays 404 NOT_FOUND,
// whatever the method, with no Allow header.
func TestUnknownPath(t *testing.T) {
	f := mustFixture(t)
	srv := httptest.NewServer(f.handler)
	t.Cleanup(srv.Close)
	for _, path := range []string{"/nope", "/TesteCF/nope", "/TesteCF/documentos-ecf/E310000000001/nope", "/TesteCF/documentos-ecf/status/batch/x"} {
		for _, method := range []string{"GET", "POST", "DELETE"} {
			resp, body := send(t, method, srv.URL+path)
			if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), `"code":"NOT_FOUND"`) || !strings.Contains(string(body), "No such endpoint: "+method+" "+path+".") {
				t.Errorf("%s %s: %d %s, want 404 NOT_FOUND", method, path, resp.StatusCode, body)
			}
			if allow := resp.Header.Get("Allow"); allow != "" {
				t.Errorf("%s %s: Allow %q on a 404", method, path, allow)
			}
		}
	}
}

// send makes one request without a key and returns the answer and its body.
func send(t *testing.T, method, url string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}
