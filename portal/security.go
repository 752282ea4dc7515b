package portal

import (
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"net/netip"
	"strings"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/i18n"
)

// ContentSecurityPolicy is every portal page's policy: scripts, styles and
// images only from the portal itself (/portal/static), nothing inline (no
// nonce to manage: there is no inline script or style anywhere), no
// framing, forms posted only back to the portal.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// withHeaders sets the security headers of every answer. Pages are never
// cached (they show a person's data); the static files set their own
// Cache-Control.
func (s *Server) withHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Frame-Options", "DENY")
		// same-origin, not no-referrer: browsers then send Origin: null on
		// the portal's own form posts, which CrossOriginProtection refuses
		// where Sec-Fetch-Site is missing.
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()")
		if !strings.HasPrefix(r.URL.Path, staticPrefix) {
			h.Set("Cache-Control", "no-store")
		}
		if s.https() {
			h.Set("Strict-Transport-Security", "max-age=31536000")
		}
		next.ServeHTTP(w, r)
	})
}

// refuseAPIKeys answers a request that carries an API key with 401
// UNAUTHENTICATED, as JSON (it comes from a program): the portal's pages
// need a person's session (spec §4.5), and a key works only on the API.
func (s *Server) refuseAPIKeys(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-API-KEY") == "" {
			next.ServeHTTP(w, r)
			return
		}
		lang := i18n.FromAcceptLanguage(r.Header.Get("Accept-Language"))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		json.NewEncoder(w).Encode(map[string]any{
			"ok": false,
			"error": map[string]string{
				"code":    string(sello.CodeUnauthenticated),
				"message": i18n.T(lang, "The portal does not accept API keys: its pages are for people, who sign in at /portal/entrar. Send the key (X-API-KEY) to the API's paths, /{env}/…"),
			},
		})
	})
}

// denyCrossOrigin answers a state change that CrossOriginProtection
// refused: a form posted from another site.
func (s *Server) denyCrossOrigin(w http.ResponseWriter, r *http.Request) {
	v := &visit{Lang: s.guestLang(r)}
	s.writeError(w, r, v, pageError(sello.CodeInsufficientScope,
		v.T("This request came from another site and was refused. Open the portal and try again from its own page.")))
}

// checkCSRF refuses a state change whose form field csrf (or, from htmx,
// header X-CSRF-Token) is not the session's token.
func checkCSRF(r *http.Request, sess *sello.Session) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	got := r.Header.Get("X-CSRF-Token")
	if got == "" {
		got = r.PostFormValue(csrfField)
	}
	return got != "" && sess.CSRFToken != "" && subtle.ConstantTimeCompare([]byte(got), []byte(sess.CSRFToken)) == 1
}

// csrfField is the forms' hidden field with the session's CSRF token.
const csrfField = "csrf"

// clientAddr is the client's address: the connection's, or, from a trusted
// proxy, the last untrusted hop of X-Forwarded-For.
func (s *Server) clientAddr(r *http.Request) netip.Addr {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}
	}
	addr := ap.Addr().Unmap()
	if !trusted(addr, s.TrustedProxies) {
		return addr
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		addr = hop.Unmap()
		if !trusted(addr, s.TrustedProxies) {
			break
		}
	}
	return addr
}

func trusted(a netip.Addr, prefixes []netip.Prefix) bool {
	for _, p := range prefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// addrKey is the throttling key of an address: IPv6 by its /64, which one
// client commonly holds whole.
func addrKey(a netip.Addr) string {
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}

// langCookie remembers the language chosen before logging in.
const langCookie = "sello_lang"

// guestLang is the language of a visitor with no session: the one chosen
// with the switch, else Spanish.
func (s *Server) guestLang(r *http.Request) i18n.Lang {
	if c, err := r.Cookie(langCookie); err == nil {
		return i18n.ParseLang(c.Value)
	}
	return i18n.ES
}

// safeNext is a local path to go to after a login, "/" for anything else
// (no other host, no scheme-relative //host).
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") || strings.ContainsAny(next, "\r\n") {
		return "/"
	}
	return next
}
