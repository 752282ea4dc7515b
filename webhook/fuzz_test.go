package webhook_test

import (
	"errors"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/webhook"
)

// FuzzValidateURL: never panics; whatever passes is an absolute http(s)
// URL with a host and no credentials (https in production), and an IP
// literal host that passes is allowed by the guard. NormalizeURL returns a
// URL that passes is unchanged, and whatever it returns has an ASCII host,
// passes ValidateURL and normalizes to itself.
func FuzzValidateURL(f *testing.F) {
	for _, s := range []string{
		"https://hooks.example.com/sello",
		"http://127.0.0.1:8080/x",
		"https://[::ffff:169.254.169.254]/",
		"https://[fe80::1%25eth0]:443/",
		"https://0x7f.1/",
		"https://2130706433/",
		"https://u:p@example.com/",
		"https://example.com:99999/",
		"https://[64:ff9b::a00:1]/",
		"javascript:alert(1)",
		"//example.com/x",
		"https://%31%32%37.0.0.1/",
		"https://127。0。0。1/",
		"https://Bücher.example/",
		"https://１２７．0．0．1:8443/",
		"",
	} {
		f.Add(s, true, false)
		f.Add(s, false, true)
	}
	f.Fuzz(func(t *testing.T, raw string, production, allowLoopback bool) {
		if norm, err := webhook.NormalizeURL(raw, production, allowLoopback); err == nil {
			if again, err := webhook.NormalizeURL(norm, production, allowLoopback); err != nil || again != norm {
				t.Fatalf("NormalizeURL(%q) = %q, which normalizes to %q, %v", raw, norm, again, err)
			}
			if err := webhook.ValidateURL(norm, production, allowLoopback); err != nil {
				t.Fatalf("NormalizeURL(%q) = %q, which ValidateURL refuses: %v", raw, norm, err)
			}
			if webhook.ValidateURL(raw, production, allowLoopback) == nil && norm != raw {
				t.Fatalf("NormalizeURL(%q) = %q; a valid URL must stay as given", raw, norm)
			}
		} else if webhook.ValidateURL(raw, production, allowLoopback) == nil {
			t.Fatalf("ValidateURL accepts %q but NormalizeURL refuses it: %v", raw, err)
		}
		err := webhook.ValidateURL(raw, production, allowLoopback)
		if err != nil {
			var se *sello.Error
			if !errors.As(err, &se) || se.Code != sello.CodeInvalidRequest || se.Message == "" {
				t.Fatalf("ValidateURL(%q) = %v, want INVALID_REQUEST", raw, err)
			}
			return
		}
		u, perr := url.Parse(raw)
		if perr != nil {
			t.Fatalf("%q passed but does not parse: %v", raw, perr)
		}
		if u.Scheme != "https" && (production || u.Scheme != "http") {
			t.Fatalf("%q passed with scheme %q (production %v)", raw, u.Scheme, production)
		}
		if u.User != nil || u.Hostname() == "" || u.Opaque != "" || u.Fragment != "" {
			t.Fatalf("%q passed: user %v, host %q, opaque %q", raw, u.User, u.Hostname(), u.Opaque)
		}
		if p := u.Port(); p != "" {
			if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
				t.Fatalf("%q passed with port %q", raw, p)
			}
		}
		if a, err := netip.ParseAddr(u.Hostname()); err == nil {
			if err := webhook.CheckAddr(a, allowLoopback); err != nil {
				t.Fatalf("%q passed with a blocked address: %v", raw, err)
			}
		} else if !allowLoopback && strings.EqualFold(strings.TrimSuffix(u.Hostname(), "."), "localhost") {
			t.Fatalf("%q passed with localhost", raw)
		}
	})
}

// FuzzCheckAddr: never panics on any 4 or 16 bytes; the IPv4-mapped,
// NAT64 and 6to4 forms of an IPv4 address are judged as that address
// (always blocked when it is), and the loopback allowance admits loopback
// only.
func FuzzCheckAddr(f *testing.F) {
	for _, s := range []string{"127.0.0.1", "10.0.0.1", "169.254.169.254", "8.8.8.8", "100.64.0.1", "0.0.0.0",
		"255.255.255.255", "::1", "fe80::1", "64:ff9b::a00:1", "2002:a00:1::", "2001::1", "2606:4700::1111", "::ffff:127.0.0.1"} {
		f.Add(netip.MustParseAddr(s).AsSlice(), false)
		f.Add(netip.MustParseAddr(s).AsSlice(), true)
	}
	f.Add([]byte{}, false)
	f.Add([]byte{1, 2, 3}, true)
	f.Fuzz(func(t *testing.T, b []byte, allowLoopback bool) {
		a, ok := netip.AddrFromSlice(b)
		err := webhook.CheckAddr(a, allowLoopback) // must not panic, valid or not
		if !ok {
			if err == nil {
				t.Fatalf("the invalid address from %x passed", b)
			}
			return
		}
		control := webhook.Control(allowLoopback)
		network := "tcp6"
		if a.Is4() {
			network = "tcp4"
		}
		if cerr := control(network, netip.AddrPortFrom(a, 443).String()); (cerr == nil) != (err == nil) {
			t.Fatalf("%s: CheckAddr %v but Control %v", a, err, cerr)
		}
		if err == nil && !allowLoopback && (a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsMulticast() || a.IsUnspecified() || a.IsInterfaceLocalMulticast()) {
			t.Fatalf("%s passed, but the standard library calls it non-public", a)
		}
		if allowLoopback && err == nil && webhook.CheckAddr(a, false) != nil {
			if u := a.Unmap(); !u.IsLoopback() {
				t.Fatalf("the loopback allowance let %s through", a)
			}
		}
		if !a.Is4() {
			return
		}
		v4 := a.As4()
		blocked := webhook.CheckAddr(a, false) != nil
		mapped := netip.AddrFrom16(a.As16())
		var nat64, sixToFour [16]byte
		copy(nat64[:], netip.MustParseAddr("64:ff9b::").AsSlice())
		copy(nat64[12:], v4[:])
		sixToFour[0], sixToFour[1] = 0x20, 0x02
		copy(sixToFour[2:6], v4[:])
		forms := []netip.Addr{mapped, netip.AddrFrom16(nat64), netip.AddrFrom16(sixToFour)}
		for _, form := range forms {
			if got := webhook.CheckAddr(form, false) != nil; got != blocked {
				t.Fatalf("%s blocked %v, but %s blocked %v", a, blocked, form, got)
			}
		}
		if !blocked {
			return
		}
		// With the allowance, only the mapped form of loopback passes: it
		// is loopback; NAT64 and 6to4 go through a translator.
		if got, want := webhook.CheckAddr(mapped, allowLoopback) == nil, allowLoopback && a.IsLoopback(); got != want {
			t.Fatalf("%s (allowance %v) passed %v, want %v", mapped, allowLoopback, got, want)
		}
		for _, form := range forms[1:] {
			if webhook.CheckAddr(form, allowLoopback) == nil {
				t.Fatalf("%s, embedding blocked %s, passed (allowance %v)", form, a, allowLoopback)
			}
		}
	})
}
