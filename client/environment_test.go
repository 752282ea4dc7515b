package client_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sello-do/sello/client"
)

func TestParseEnvironment(t *testing.T) {
	for in, want := range map[string]client.Environment{
		"TesteCF": client.EnvTest, "testecf": client.EnvTest, "TESTECF": client.EnvTest,
		"CerteCF": client.EnvCert, "certecf": client.EnvCert,
		"eCF": client.EnvProd, "ecf": client.EnvProd,
	} {
		if got, err := client.ParseEnvironment(in); err != nil || got != want {
			t.Errorf("ParseEnvironment(%q)=%q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "test", "Produccion"} {
		if _, err := client.ParseEnvironment(in); err == nil || !strings.Contains(err.Error(), "TesteCF, CerteCF or eCF") {
			t.Errorf("ParseEnvironment(%q): %v", in, err)
		}
	}
	c, err := client.New("http://localhost:8080", "sk_ecf_x", client.WithEnvironment("certecf"))
	if err != nil || c.Environment() != client.EnvCert {
		t.Fatalf("WithEnvironment(certecf): %v, %v", c, err)
	}
}

// TestEventEnvironment checks that an event carrying the spec's testecf
// compares equal to EnvTest, and encodes back as it came.
func TestEventEnvironment(t *testing.T) {
	h := client.SignatureHeader(now, body, secret)
	ev, err := client.VerifyWebhook(body, h, []string{secret}, now)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Environment != client.EnvTest {
		t.Fatalf("environment %q: want it equal to client.EnvTest", ev.Environment)
	}
	if got := ev.Environment.Slug(); got != "testecf" {
		t.Fatalf("slug %q", got)
	}
	out, err := json.Marshal(ev)
	if err != nil || !bytes.Contains(out, []byte(`"environment":"testecf"`)) {
		t.Fatalf("encoded %s, %v; want the wire's spelling", out, err)
	}
	var newer client.Event
	if err := json.Unmarshal([]byte(`{"environment":"sandbox"}`), &newer); err != nil || newer.Environment != "sandbox" {
		t.Fatalf("unknown environment: %q, %v; want it kept", newer.Environment, err)
	}
}
