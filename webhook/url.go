package webhook

import (
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/sello-do/sello"
	"golang.org/x/net/idna"
)

// MaxURLLen bounds an endpoint URL.
const MaxURLLen = 2048

// NormalizeURL is the form of an endpoint URL to check and store: its host
// in the ASCII form IDNA's lookup profile (UTS #46) gives it, so a host
// written with Unicode is judged as what a resolver looks up. Full-width
// and ideographic dots become '.', full-width digits ASCII digits, letters
// lowercase, and Unicode labels punycode (xn--…): "https://127。0。0。1/" is
// "https://127.0.0.1/". A URL whose host is already ASCII is returned as
// given. The result is then checked with ValidateURL (production,
// allowLoopback). Returns INVALID_REQUEST with a message for the tenant.
func NormalizeURL(rawURL string, production, allowLoopback bool) (string, error) {
	if u, err := url.Parse(rawURL); err == nil && !isASCII(u.Host) && len(rawURL) <= MaxURLLen {
		host, err := idna.Lookup.ToASCII(u.Hostname())
		if err != nil || strings.HasPrefix(u.Host, "[") {
			return "", sello.Errorf(sello.CodeInvalidRequest, "Webhook URL: host %q is not a valid internationalized domain name.", u.Hostname())
		}
		if p := u.Port(); p != "" || strings.HasSuffix(u.Host, ":") {
			host += ":" + p
		}
		u.Host = host
		rawURL = u.String()
	}
	if err := ValidateURL(rawURL, production, allowLoopback); err != nil {
		return "", err
	}
	return rawURL, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// ValidateURL checks an endpoint URL when it is configured: an absolute
// http or https URL (https only when production is true), with a host, no
// user:password@, a port from 1 to 65535 when one is given, and no
// fragment. A host that is an IP literal must pass CheckAddr (with
// allowLoopback); a host name such as "localhost" that always means the
// machine itself, and a numeric host written in a form other than dotted
// decimal ("2130706433", "0x7f.1", "127.1"), are refused unless
// allowLoopback. Host names are otherwise judged at delivery, on the address
// they resolve to then. A host that is not ASCII is refused: NormalizeURL
// gives its ASCII form.
//
// The caller never passes allowLoopback for production. Returns
// INVALID_REQUEST with a message for the tenant.
func ValidateURL(rawURL string, production, allowLoopback bool) error {
	bad := func(format string, args ...any) error {
		return sello.Errorf(sello.CodeInvalidRequest, "Webhook URL: "+format, args...)
	}
	if rawURL == "" {
		return bad("required.")
	}
	if len(rawURL) > MaxURLLen {
		return bad("at most %d characters.", MaxURLLen)
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return bad("not a valid URL.")
	}
	switch u.Scheme {
	case "https":
	case "http":
		if production {
			return bad("must use https:// in production.")
		}
	default:
		if production {
			return bad("must be an absolute https:// URL.")
		}
		return bad("must be an absolute http:// or https:// URL.")
	}
	if u.Opaque != "" {
		return bad("must be an absolute http:// or https:// URL.")
	}
	if u.User != nil {
		return bad("must not contain a user name or password.")
	}
	if u.Fragment != "" || strings.Contains(rawURL, "#") {
		return bad("must not contain a fragment (#…).")
	}
	host := u.Hostname()
	if host == "" {
		return bad("a host is required.")
	} else if !isASCII(u.Host) {
		return bad("host %q is not in its ASCII (IDNA) form.", host)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return bad("port %q is not valid.", p)
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return bad("port is empty.")
	}
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
