package webhook_test

import (
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/webhook"
)

// TestNormalizeEndpointURL: the loopback allowance applies outside eCF
// only; eCF takes https:// to public hosts whatever the allowance.
func TestNormalizeEndpointURL(t *testing.T) {
	for _, tt := range []struct {
		url   string
		env   sello.Environment
		allow bool
		want  string // "" when refused
	}{
		{"http://127.0.0.1:9000/hooks", sello.EnvTest, true, "http://127.0.0.1:9000/hooks"},
		{"http://localhost:9000/", sello.EnvCert, true, "http://localhost:9000/"},
		{"http://127.0.0.1:9000/hooks", sello.EnvTest, false, ""},
		{"https://127.0.0.1:9000/hooks", sello.EnvProd, true, ""},
		{"https://localhost/", sello.EnvProd, true, ""},
		{"http://hooks.example.com/", sello.EnvProd, false, ""},
		{"https://10.1.2.3/", sello.EnvTest, true, ""},
		{"https://Bücher.example/x", sello.EnvProd, false, "https://xn--bcher-kva.example/x"},
	} {
		got, err := webhook.NormalizeEndpointURL(tt.url, tt.env, tt.allow)
		if tt.want == "" {
			if sello.ErrorCodeOf(err) != sello.CodeInvalidRequest {
				t.Errorf("%s in %s (allowance %v): %q, %v; want INVALID_REQUEST", tt.url, tt.env, tt.allow, got, err)
			}
		} else if err != nil || got != tt.want {
			t.Errorf("%s in %s (allowance %v): %q, %v; want %q", tt.url, tt.env, tt.allow, got, err, tt.want)
		}
	}
}
