package webhook

import (
	"net/netip"
	"net/url"
	"strings"

	"github.com/sello-do/sello"
)

// NormalizeURL is sello.NormalizeWebhookURL (the URL's form, in the
// environment production or not), then CheckHost (where it may point): the
// URL to store, or INVALID_REQUEST with a message for the tenant.
func NormalizeURL(rawURL string, production, allowLoopback bool) (string, error) {
	norm, err := sello.NormalizeWebhookURL(rawURL, environment(production))
	if err != nil {
		return "", err
	}
	if err := CheckHost(norm, allowLoopback); err != nil {
		return "", err
	}
	return norm, nil
}

// ValidateURL checks an endpoint URL when it is configured: its form
// (sello.CheckWebhookURL; https only when production is true), then where
// it may point (CheckHost). The caller never passes allowLoopback for
// production. Returns INVALID_REQUEST with a message for the tenant.
func ValidateURL(rawURL string, production, allowLoopback bool) error {
	if err := sello.CheckWebhookURL(rawURL, environment(production)); err != nil {
		return err
	}
	return CheckHost(rawURL, allowLoopback)
}

// environment is an environment whose scheme rule is production's or not:
// TesteCF and CerteCF share theirs.
func environment(production bool) sello.Environment {
	if production {
		return sello.EnvProd
	}
	return sello.EnvTest
}

// CheckHost checks where a URL of the right form (sello.CheckWebhookURL)
// may point: a host that is an IP literal must pass CheckAddr (with
// allowLoopback); a host name such as "localhost" that always means the
// machine itself, and a numeric host written in a form other than dotted
// decimal ("2130706433", "0x7f.1", "127.1"), are refused unless
// allowLoopback. Host names are otherwise judged at delivery, on the
// address they resolve to then. Returns INVALID_REQUEST.
func CheckHost(rawURL string, allowLoopback bool) error {
	bad := func(format string, args ...any) error {
		return sello.Errorf(sello.CodeInvalidRequest, "Webhook URL: %s", sello.Textf(format, args...))
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return bad("not a valid URL.")
	}
	host := u.Hostname()
	if addr, err := netip.ParseAddr(host); err == nil {
		if err := CheckAddr(addr, allowLoopback); err != nil {
			return bad("%s is %s; webhooks go only to public Internet addresses.", addr, err.(*BlockedError).Reason)
		}
		return nil
	}
	if strings.HasPrefix(u.Host, "[") {
		return bad("%q is not a valid IPv6 address.", host)
	}
	if allowLoopback {
		return nil
	}
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return bad("%s is this machine; webhooks go only to public Internet addresses.", host)
	}
	if numericHost(name) {
		return bad("%s looks like an IP address; write IPv4 addresses in dotted decimal (a.b.c.d).", host)
	}
	return nil
}

// numericHost reports whether a host that did not parse as an IP address
// would still be taken for one by some resolver (inet_aton accepts
// "2130706433", "0x7f.1", "0177.0.0.1", "127.1"): its last label is all
// digits or hexadecimal with 0x. No top-level domain is numeric.
func numericHost(name string) bool {
	last := name[strings.LastIndexByte(name, '.')+1:]
	if last == "" {
		return false
	}
	if rest, ok := strings.CutPrefix(last, "0x"); ok {
		last = rest
		for i := 0; i < len(last); i++ {
			if !isHex(last[i]) {
				return false
			}
		}
		return true
	}
	for i := 0; i < len(last); i++ {
		if last[i] < '0' || last[i] > '9' {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f'
}
