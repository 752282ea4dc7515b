package browsertest_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/sello-do/sello/portal/browsertest"
)

// TestHarnessSeesProblems: the checks Look makes can fail. A page with an
// image without text and grey on grey text has axe-core's critical and
// serious violations; an inline script under a CSP that forbids it is in
// the console's errors; a 300 KB script makes the page too heavy.
func TestHarnessSeesProblems(t *testing.T) {
	t.Parallel()
	s := browsertest.StartServer(t)
	big := strings.Repeat("/* padding */\n", 300<<10/14)
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/big.js" {
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, big)
			return
		} else if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Security-Policy", "script-src 'self'")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!DOCTYPE html><html lang="es"><head><title>Mala</title><script src="/big.js"></script></head>
<body><main><h1>Mala</h1><img src="/nothing.png"><p style="color:#bbb;background:#ccc">gris sobre gris</p>
<script>document.title = 'inline'</script></main></body></html>`)
	}))
	defer bad.Close()
	p := s.NewPage(t)
	p.Go(bad.URL + "/")

	var rules []string
	for _, v := range p.Violations() {
		rules = append(rules, v.ID)
	}
	for _, want := range []string{"image-alt", "color-contrast"} {
		if !slices.Contains(rules, want) {
			t.Errorf("axe-core's serious and critical violations are %v, want %s among them", rules, want)
		}
	}
	problems := strings.Join(p.Problems(), "\n")
	if !strings.Contains(problems, "Content Security Policy") || !strings.Contains(problems, "nothing.png") {
		t.Errorf("the console's problems do not have the CSP violation and the missing image:\n%s", problems)
	}
	if w := p.Weight(); w.Total() <= browsertest.MaxPageWeight || w.Assets["/big.js"] < 290<<10 {
		t.Errorf("weight %s, want the 300 KB script counted", w)
	}
}
