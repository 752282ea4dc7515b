package webhook_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/webhook"
)

func TestValidateURL(t *testing.T) {
	ok := []struct {
		url                 string
		production, loopbck bool
	}{
		{"https://hooks.example.com/sello", true, false},
		{"https://hooks.example.com:8443/sello?x=1", true, false},
		{"https://8.8.8.8/hook", true, false},
		{"https://[2606:4700:4700::1111]/hook", true, false},
		{"http://hooks.example.com/sello", false, false},
		{"HTTPS://Hooks.Example.COM/", true, false},
		{"http://127.0.0.1:8080/hook", false, true},
		{"http://[::1]:8080/hook", false, true},
		{"http://localhost:3000/hook", false, true},
		{"https://127.0.0.1:8443/hook", true, true}, // the caller refuses this pair; the URL itself is fine
		{"https://hooks.example.com./x", true, false},
		{"https://1password.com/", true, false}, // digits in a label, not the last one
	}
	for _, c := range ok {
		if err := webhook.ValidateURL(c.url, c.production, c.loopbck); err != nil {
			t.Errorf("ValidateURL(%q, %v, %v) = %v, want nil", c.url, c.production, c.loopbck, err)
		}
	}

	bad := []struct {
		url        string
		production bool
		loopback   bool
		msg        string
	}{
		{"", false, false, "required"},
		{"http://hooks.example.com/", true, false, "https:// in production"},
		{"ftp://hooks.example.com/", false, false, "absolute http:// or https://"},
		{"hooks.example.com/sello", true, false, "absolute https://"},
		{"/sello", false, false, "absolute"},
		{"mailto:a@example.com", false, false, "absolute"},
		{"https:hooks.example.com", false, false, "absolute"},
		{"https://user:pass@hooks.example.com/", true, false, "user name or password"},
		{"https://user@hooks.example.com/", true, false, "user name or password"},
		{"https:///path", true, false, "host is required"},
		{"https://hooks.example.com/#frag", true, false, "fragment"},
		{"https://hooks.example.com:0/", true, false, "port"},
		{"https://hooks.example.com:70000/", true, false, "port"},
		{"https://hooks.example.com:/", true, false, "port is empty"},
		{"https://hooks.example.com:abc/", true, false, "not a valid URL"},
		{"https://127.0.0.1/", true, false, "loopback"},
		{"https://[::1]/", true, false, "loopback"},
		{"https://10.0.0.5/", true, false, "private"},
		{"https://169.254.169.254/latest/meta-data", true, false, "link-local"},
		{"https://100.64.1.1/", true, false, "carrier-grade NAT"},
		{"https://[fd00:ec2::254]/", true, false, "unique-local"},
		{"https://[fe80::1%25eth0]/", true, false, "link-local"},
		{"https://[::ffff:127.0.0.1]/", true, false, "loopback"},
		{"https://[64:ff9b::a9fe:a9fe]/", true, false, "169.254.169.254"},
		{"https://[2002:c0a8:101::]/", true, false, "private"},
		{"https://0.0.0.0/", true, false, "this network"},
		{"https://224.0.0.1/", true, false, "multicast"},
		{"https://255.255.255.255/", true, false, "broadcast"},
		{"http://10.0.0.5/", false, true, "private"}, // loopback allowance is loopback only
		{"https://localhost/", true, false, "this machine"},
		{"https://LOCALHOST./", true, false, "this machine"},
		{"https://api.localhost/", true, false, "this machine"},
		{"https://2130706433/", true, false, "dotted decimal"},
		{"https://0x7f000001/", true, false, "dotted decimal"},
		{"https://0x7f.1/", true, false, "dotted decimal"},
		{"https://127.1/", true, false, "dotted decimal"},
		{"https://0177.0.0.1/", true, false, "dotted decimal"},
		{"https://127.000.000.001/", true, false, "dotted decimal"},
		{"https://[not-ipv6]/", true, false, "not a valid"},
		{"https://hooks.example.com/" + strings.Repeat("a", sello.MaxWebhookURLLen), true, false, "at most"},
	}
	for _, c := range bad {
		err := webhook.ValidateURL(c.url, c.production, c.loopback)
		var se *sello.Error
		if !errors.As(err, &se) || se.Code != sello.CodeInvalidRequest {
			t.Errorf("ValidateURL(%q, %v, %v) = %v, want INVALID_REQUEST", c.url, c.production, c.loopback, err)
			continue
		}
		if !strings.Contains(se.Message, c.msg) || !strings.HasPrefix(se.Message, "Webhook URL: ") {
			t.Errorf("ValidateURL(%q) message %q, want it to contain %q", c.url, se.Message, c.msg)
		}
	}
}

// TestNormalizeURL: hosts are judged and stored in their IDNA ASCII form,
// so Unicode dots and digits cannot spell an address the checks miss.
func TestNormalizeURL(t *testing.T) {
	ok := []struct {
		url, want           string
		production, loopbck bool
	}{
		{"https://hooks.example.com/sello?x=1", "https://hooks.example.com/sello?x=1", true, false},
		{"https://Bücher.Example:8443/hook", "https://xn--bcher-kva.example:8443/hook", true, false},
		{"https://b%C3%BCcher.example/", "https://xn--bcher-kva.example/", true, false},
		{"https://hooks。example。com/a%2Fb", "https://hooks.example.com/a%2Fb", true, false},
		{"http://127。0。0。1:9000/hook", "http://127.0.0.1:9000/hook", false, true},
	}
	for _, c := range ok {
		got, err := webhook.NormalizeURL(c.url, c.production, c.loopbck)
		if err != nil || got != c.want {
			t.Errorf("NormalizeURL(%q) = %q, %v; want %q", c.url, got, err, c.want)
		}
	}

	bad := []struct {
		url        string
		production bool
		loopback   bool
		msg        string
	}{
		{"https://127。0。0。1/", true, false, "127.0.0.1 is a loopback address"},
		{"https://127｡0｡0｡1/", false, false, "127.0.0.1 is a loopback address"},
		{"https://１０.0.0.5/", false, true, "10.0.0.5 is a private"},
		{"https://169．254．169．254/", true, false, "link-local"},
		{"https://ｌｏｃａｌｈｏｓｔ/", true, false, "this machine"},
		{"https://0x7f。1/", true, false, "dotted decimal"},
		{"https://ex_ample.ñ/", true, false, "not a valid internationalized"},
		{"https://[::１]/", true, false, "not a valid URL"},
	}
	for _, c := range bad {
		got, err := webhook.NormalizeURL(c.url, c.production, c.loopback)
		var se *sello.Error
		if !errors.As(err, &se) || se.Code != sello.CodeInvalidRequest || got != "" {
			t.Errorf("NormalizeURL(%q, %v, %v) = %q, %v; want INVALID_REQUEST", c.url, c.production, c.loopback, got, err)
			continue
		}
		if !strings.Contains(se.Message, c.msg) {
			t.Errorf("NormalizeURL(%q) message %q, want it to contain %q", c.url, se.Message, c.msg)
		}
	}

	// ValidateURL alone refuses a host NormalizeURL has not converted.
	if err := webhook.ValidateURL("https://bücher.example/", true, false); err == nil || !strings.Contains(err.Error(), "ASCII") {
		t.Errorf("ValidateURL with a Unicode host = %v, want a refusal naming the ASCII form", err)
	}
}
