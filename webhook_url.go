package sello

import (
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// MaxWebhookURLLen bounds an endpoint's URL.
const MaxWebhookURLLen = 2048

// CheckWebhookURL is the one policy of an endpoint URL's form: an absolute
// http or https URL (https only in eCF), at most MaxWebhookURLLen bytes,
// with a host in its ASCII form (NormalizeWebhookURL gives it), a port
// from 1 to 65535 when one is given, no user:password@ and no fragment.
// Where the URL may point (public addresses only) is the webhook package's
// address guard, at configuration and at every dial. Returns
// INVALID_REQUEST with a message for the tenant.
func CheckWebhookURL(raw string, env Environment) error {
	bad := func(format string, args ...any) error {
		return Errorf(CodeInvalidRequest, "Webhook URL: %s", Textf(format, args...))
	}
	if raw == "" {
		return bad("required.")
	}
	if len(raw) > MaxWebhookURLLen {
		return bad("at most %d characters.", MaxWebhookURLLen)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return bad("not a valid URL.")
	}
	production := env == EnvProd
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
	if u.Fragment != "" || strings.Contains(raw, "#") {
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
	return nil
}

// NormalizeWebhookURL is the form of an endpoint URL to check and store:
// its host in the ASCII form IDNA's lookup profile (UTS #46) gives it, so
// a host written with Unicode is judged as what a resolver looks up.
// Full-width and ideographic dots become '.', full-width digits ASCII
// digits, letters lowercase, and Unicode labels punycode (xn--…):
// "https://127。0。0。1/" is "https://127.0.0.1/". A URL whose host is
// already ASCII is returned as given. The result must pass
// CheckWebhookURL. Returns INVALID_REQUEST with a message for the tenant.
func NormalizeWebhookURL(raw string, env Environment) (string, error) {
	if u, err := url.Parse(raw); err == nil && !isASCII(u.Host) && len(raw) <= MaxWebhookURLLen {
		host, err := idna.Lookup.ToASCII(u.Hostname())
		if err != nil || strings.HasPrefix(u.Host, "[") {
			return "", Errorf(CodeInvalidRequest, "Webhook URL: host %q is not a valid internationalized domain name.", u.Hostname())
		}
		if p := u.Port(); p != "" || strings.HasSuffix(u.Host, ":") {
			host += ":" + p
		}
		u.Host = host
		raw = u.String()
	}
	if err := CheckWebhookURL(raw, env); err != nil {
		return "", err
	}
	return raw, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
