package portal_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/portal"
)

// TestLogin: GET / without a session goes to the login; the login sets a
// session cookie (HttpOnly, SameSite=Lax, Secure, Path=/) holding a token
// of which the store keeps only the SHA-256; then / is the company's home.
func TestLogin(t *testing.T) { testLogin(t, MustSite(t)) }

func testLogin(t *testing.T, site *Site) {
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	b := site.NewBrowser(t)

	wantRedirect(t, b.Get("/"), "/portal/entrar")
	login := b.Get("/portal/entrar")
	wantStatus(t, login, http.StatusOK)
	wantText(t, login, "Iniciar sesión", "Correo electrónico", "Contraseña")

	p := b.MustLogin("ANA@caribe.do ")
	wantRedirect(t, p, "/")
	var cookie *http.Cookie
	for _, c := range p.Cookies() {
		if c.Name == sello.SessionCookie {
			cookie = c
		}
	}
	if cookie == nil {
		t.Fatalf("no %s cookie: %v", sello.SessionCookie, p.Header["Set-Cookie"])
	}
	if !cookie.HttpOnly || !cookie.Secure || cookie.SameSite != http.SameSiteLaxMode || cookie.Path != "/" {
		t.Errorf("cookie %s: want HttpOnly, Secure, SameSite=Lax, Path=/", p.Header.Get("Set-Cookie"))
	}
	if cookie.MaxAge != int(sello.SessionLifetime/time.Second) {
		t.Errorf("cookie Max-Age %d, want %d (the absolute expiry)", cookie.MaxAge, int(sello.SessionLifetime/time.Second))
	}
	sess, err := site.Store.FindSessionByTokenHash(context.Background(), sello.HashToken(cookie.Value))
	if err != nil {
		t.Fatalf("the store has no session under the cookie token's SHA-256: %v", err)
	}
	if string(sess.TokenHash) == cookie.Value {
		t.Error("the store keeps the token itself")
	}
	home := b.Get("/")
	wantStatus(t, home, http.StatusOK)
	wantText(t, home, "Ferretería Caribe SRL", "130000001", "Propietario", "TesteCF", "disponible")

	t.Run("ErrWrongPassword", func(t *testing.T) {
		b := site.NewBrowser(t)
		p := b.Post("/portal/entrar", url.Values{"email": {"ana@caribe.do"}, "password": {"not the password at all"}})
		wantStatus(t, p, http.StatusUnauthorized)
		wantText(t, p, "El correo o la contraseña no son correctos.")
		p = b.Post("/portal/entrar", url.Values{"email": {"nadie@caribe.do"}, "password": {testPassword}})
		wantStatus(t, p, http.StatusUnauthorized)
		wantText(t, p, "El correo o la contraseña no son correctos.")
		if b.Cookie() != "" {
			t.Error("a failed login set a session cookie")
		}
	})
	t.Run("OKNext", func(t *testing.T) {
		b := site.NewBrowser(t)
		wantRedirect(t, b.Get("/portal/cuenta"), "/portal/entrar?next=%2Fportal%2Fcuenta")
		p := b.Post("/portal/entrar", url.Values{"email": {"ana@caribe.do"}, "password": {testPassword}, "next": {"/portal/cuenta"}})
		wantRedirect(t, p, "/portal/cuenta")
		p = b.Post("/portal/entrar", url.Values{"email": {"ana@caribe.do"}, "password": {testPassword}, "next": {"//evil.example/x"}})
		if p.Location() != "/" {
			t.Errorf("next //evil.example/x: went to %q, want /", p.Location())
		}
	})
}

// TestSessionFixation: a session id planted in the browser before the login
// (or the one of an earlier login) is worth nothing after it: the login
// sets a new one and revokes the old.
func TestSessionFixation(t *testing.T) { testSessionFixation(t, MustSite(t)) }

func testSessionFixation(t *testing.T, site *Site) {
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	b := site.NewBrowser(t)

	b.SetCookie("planted-by-an-attacker")
	b.MustLogin("ana@caribe.do")
	first := b.Cookie()
	if first == "" || first == "planted-by-an-attacker" {
		t.Fatalf("cookie after login %q: want a new token", first)
	}
	attacker := site.NewBrowser(t)
	attacker.SetCookie(first)
	wantStatus(t, attacker.Get("/"), http.StatusOK)

	b.MustLogin("ana@caribe.do")
	second := b.Cookie()
	if second == first {
		t.Fatal("a second login kept the session id")
	}
	// The earlier id, which the attacker holds, is revoked.
	wantRedirect(t, attacker.Get("/"), "/portal/entrar")
	wantStatus(t, b.Get("/"), http.StatusOK)
}

// TestSessionExpiry: a session ends after 30 minutes without a request,
// and 12 hours after its login however busy; an ended session is refused
// (a page goes to the login, a form is 401).
func TestSessionExpiry(t *testing.T) { testSessionExpiry(t, MustSite(t)) }

func testSessionExpiry(t *testing.T, site *Site) {
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)

	t.Run("ErrIdle", func(t *testing.T) {
		b := site.NewBrowser(t)
		b.MustLogin("ana@caribe.do")
		site.Clock.Advance(29 * time.Minute)
		csrf := b.Get("/portal/cuenta").CSRF(t)
		site.Clock.Advance(30*time.Minute + time.Second)
		wantRedirect(t, b.Get("/portal/cuenta"), "/portal/entrar?ended=1&next=%2Fportal%2Fcuenta")
		p := b.Post("/portal/salir-de-todo", url.Values{"csrf": {csrf}})
		wantStatus(t, p, http.StatusUnauthorized)
		wantText(t, p, "Su sesión terminó. Inicie sesión de nuevo.")
		wantText(t, b.Get("/portal/entrar?ended=1"), "Su sesión terminó.")
	})
	t.Run("ErrAbsolute", func(t *testing.T) {
		b := site.NewBrowser(t)
		b.MustLogin("ana@caribe.do")
		for range 12*60/20 - 1 {
			site.Clock.Advance(20 * time.Minute)
			wantStatus(t, b.Get("/"), http.StatusOK)
		}
		site.Clock.Advance(20 * time.Minute) // 12 h since the login
		wantRedirect(t, b.Get("/"), "/portal/entrar?ended=1")
	})
	t.Run("ErrLoggedOut", func(t *testing.T) {
		b := site.NewBrowser(t)
		b.MustLogin("ana@caribe.do")
		token := b.Cookie()
		wantRedirect(t, b.Form("/", "/portal/salir", nil), "/portal/entrar?done=logout")
		stolen := site.NewBrowser(t)
		stolen.SetCookie(token)
		wantRedirect(t, stolen.Get("/"), "/portal/entrar")
	})
	t.Run("ErrLoggedOutEverywhere", func(t *testing.T) {
		phone, laptop := site.NewBrowser(t), site.NewBrowser(t)
		phone.MustLogin("ana@caribe.do")
		laptop.MustLogin("ana@caribe.do")
		wantRedirect(t, laptop.Form("/portal/cuenta", "/portal/salir-de-todo", nil), "/portal/entrar?done=logout-all")
		wantRedirect(t, phone.Get("/"), "/portal/entrar")
		wantRedirect(t, laptop.Get("/"), "/portal/entrar")
	})
}

// TestCSRF: a state change from another site is refused before any
// handler (http.CrossOriginProtection), and one from the portal's own
// page without the session's token, or with another session's, is refused
// too; with it, it passes (forms, and htmx's X-CSRF-Token header).
func TestCSRF(t *testing.T) { testCSRF(t, MustSite(t)) }

func testCSRF(t *testing.T, site *Site) {
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	b := site.NewBrowser(t)
	b.MustLogin("ana@caribe.do")
	csrf := b.Get("/portal/cuenta").CSRF(t)

	crossSite := http.Header{"Origin": {"https://evil.example"}, "Sec-Fetch-Site": {"cross-site"}}
	p := b.Do("POST", "/portal/salir-de-todo", url.Values{"csrf": {csrf}}, crossSite)
	wantStatus(t, p, http.StatusForbidden)
	wantText(t, p, "Esta solicitud vino de otro sitio y fue rechazada.")
	// An old browser with no Sec-Fetch-Site, but an Origin.
	p = b.Do("POST", "/portal/salir-de-todo", url.Values{"csrf": {csrf}}, http.Header{"Origin": {"https://evil.example"}})
	wantStatus(t, p, http.StatusForbidden)
	// The login form too: no logging a victim into the attacker's account.
	p = b.Do("POST", "/portal/entrar", url.Values{"email": {"ana@caribe.do"}, "password": {testPassword}}, crossSite)
	wantStatus(t, p, http.StatusForbidden)

	p = b.Post("/portal/salir-de-todo", url.Values{})
	wantStatus(t, p, http.StatusForbidden)
	wantText(t, p, "Este formulario caducó.")
	other := site.NewBrowser(t)
	other.MustLogin("ana@caribe.do")
	p = b.Post("/portal/salir-de-todo", url.Values{"csrf": {other.Get("/").CSRF(t)}})
	wantStatus(t, p, http.StatusForbidden)
	wantStatus(t, b.Get("/"), http.StatusOK) // still logged in

	// htmx sends the token as a header (the body's hx-headers).
	home := b.Get("/")
	if !strings.Contains(home.Body, `hx-headers="{&#34;X-CSRF-Token&#34;:&#34;`+csrf) {
		t.Errorf("the page's hx-headers do not carry the CSRF token: %s", home.Body)
	}
	p = b.Do("POST", "/portal/salir", nil, http.Header{"Origin": {site.HTTP.URL}, "Sec-Fetch-Site": {"same-origin"}, "HX-Request": {"true"}, "X-CSRF-Token": {csrf}})
	if p.StatusCode != http.StatusNoContent || p.Header.Get("HX-Redirect") != "/portal/entrar?done=logout" {
		t.Errorf("htmx logout with the token: %d HX-Redirect %q", p.StatusCode, p.Header.Get("HX-Redirect"))
	}
}

// TestAPIKeyRefused: the portal takes no API key (spec §4.5): a request
// with X-API-KEY is 401 UNAUTHENTICATED, whatever else it carries.
func TestAPIKeyRefused(t *testing.T) {
	site := MustSite(t)
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	b := site.NewBrowser(t)
	b.MustLogin("ana@caribe.do")
	for _, path := range []string{"/", "/portal/cuenta", "/portal/entrar"} {
		p := b.Do("GET", path, nil, http.Header{"X-API-KEY": {"sk_testecf_0123456789abcdefghijklmnopqrstuv"}, "Accept-Language": {"es-DO"}})
		wantStatus(t, p, http.StatusUnauthorized)
		var body struct {
			OK    bool
			Error struct{ Code, Message string }
		}
		if err := json.Unmarshal([]byte(p.Body), &body); err != nil {
			t.Fatalf("%s: %v: %s", path, err, p.Body)
		}
		if body.OK || body.Error.Code != "UNAUTHENTICATED" || !strings.Contains(body.Error.Message, "El portal no acepta claves API") {
			t.Errorf("%s: %s", path, p.Body)
		}
		if strings.Contains(p.Body, "sk_testecf_0123") {
			t.Errorf("%s: the answer repeats the key", path)
		}
	}
	p := site.NewBrowser(t).Do("GET", "/", nil, http.Header{"X-API-KEY": {"sk_x"}})
	wantText(t, p, "The portal does not accept API keys")
}

// TestLoginThrottled: after 5 attempts an account is throttled for a while
// (the right password included), with a message saying how long; another
// account from the same address is not, until the address's 20 are used.
func TestLoginThrottled(t *testing.T) {
	site := MustSite(t)
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	site.MustUser(t, "luis@caribe.do", sello.RoleAccountant)
	b := site.NewBrowser(t)
	for i := range 5 {
		p := b.Post("/portal/entrar", url.Values{"email": {"ana@caribe.do"}, "password": {"wrong password " + string(rune('a'+i))}})
		wantStatus(t, p, http.StatusUnauthorized)
	}
	p := b.Post("/portal/entrar", url.Values{"email": {"ana@caribe.do"}, "password": {testPassword}})
	wantStatus(t, p, http.StatusTooManyRequests)
	wantText(t, p, "Demasiados intentos. Por su seguridad, espere 3 minutos e inténtelo de nuevo.")
	b.Headers.Set("Cookie", "sello_lang=en")
	p = b.Post("/portal/entrar", url.Values{"email": {"ana@caribe.do"}, "password": {testPassword}})
	wantText(t, p, "Too many attempts. For your security, wait")
	b.Headers.Del("Cookie")

	// Another account from the same address still gets in.
	wantRedirect(t, site.NewBrowser(t).MustLogin("luis@caribe.do"), "/")
	// Three minutes on, the account has one attempt back.
	site.Clock.Advance(3 * time.Minute)
	wantRedirect(t, b.MustLogin("ana@caribe.do"), "/")

	// The address: 20 attempts, whatever the accounts.
	c := site.NewBrowser(t)
	for i := 0; ; i++ {
		p := c.Post("/portal/entrar", url.Values{"email": {"x" + string(rune('a'+i%26)) + "@caribe.do"}, "password": {"wrong"}})
		if p.StatusCode == http.StatusTooManyRequests {
			wantText(t, p, "Demasiados intentos.")
			if i < 10 {
				t.Errorf("address throttled after %d attempts", i)
			}
			break
		}
		if i > 25 {
			t.Fatal("25 attempts from one address and no throttle")
		}
	}
}

// TestSecurityHeaders: every answer carries a strict CSP, X-Frame-Options
// DENY, a Referrer-Policy and nosniff; pages are not cached; and no page
// has an inline script, an inline style or an event handler attribute.
func TestSecurityHeaders(t *testing.T) {
	site := MustSite(t)
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	b := site.NewBrowser(t)
	pages := []*Page{b.Get("/portal/entrar"), b.Get("/portal/recuperar"), b.Get("/portal/no-such-page")}
	b.MustLogin("ana@caribe.do")
	pages = append(pages, b.Get("/"), b.Get("/portal/cuenta"), b.Get("/portal/CerteCF"), b.Get("/portal/cuenta/segundo-factor"))
	htmx := b.Get("/portal/static/htmx.min.js")
	wantStatus(t, htmx, http.StatusOK)
	css := b.Get("/portal/static/sello.css")
	wantStatus(t, css, http.StatusOK)

	scripts := regexp.MustCompile(`(?is)<script([^>]*)>(.*?)</script>`)
	inline := regexp.MustCompile(`(?i)<style|\sstyle=|\son[a-z]+=|javascript:`)
	for _, p := range append(pages, htmx, css) {
		h := p.Header
		for name, want := range map[string]string{
			"Content-Security-Policy": portal.ContentSecurityPolicy,
			"X-Frame-Options":         "DENY",
			"Referrer-Policy":         "same-origin",
			"X-Content-Type-Options":  "nosniff",
		} {
			if got := h.Get(name); got != want {
				t.Errorf("%s: %s %q, want %q", p.Request.URL.Path, name, got, want)
			}
		}
		if strings.HasPrefix(p.Request.URL.Path, "/portal/static/") {
			if !strings.Contains(h.Get("Cache-Control"), "immutable") {
				t.Errorf("%s: Cache-Control %q", p.Request.URL.Path, h.Get("Cache-Control"))
			}
			continue
		}
		if h.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: Cache-Control %q, want no-store", p.Request.URL.Path, h.Get("Cache-Control"))
		}
		if m := inline.FindString(p.Body); m != "" {
			t.Errorf("%s has inline code or style %q", p.Request.URL.Path, m)
		}
		for _, m := range scripts.FindAllStringSubmatch(p.Body, -1) {
			if !strings.Contains(m[1], " src=") || strings.TrimSpace(m[2]) != "" {
				t.Errorf("%s has an inline script %q", p.Request.URL.Path, m[0])
			}
		}
	}
	for _, d := range []string{"script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "default-src 'none'", "form-action 'self'"} {
		if !strings.Contains(portal.ContentSecurityPolicy, d) {
			t.Errorf("CSP lacks %s", d)
		}
	}
	if strings.Contains(portal.ContentSecurityPolicy, "unsafe") {
		t.Errorf("CSP allows something unsafe: %s", portal.ContentSecurityPolicy)
	}
}

// TestHTTPSCookie: served over HTTPS, the session cookie is
// __Host-sello_session (Secure, Path=/, no Domain), and the API's refusal
// knows that name too.
func TestHTTPSCookie(t *testing.T) {
	site := MustSite(t, func(s *portal.Server) {
		s.URL, _ = url.Parse("https://sello.example.com")
	})
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	b := site.NewBrowser(t)
	p := b.Do("POST", "/portal/entrar", url.Values{"email": {"ana@caribe.do"}, "password": {testPassword}},
		http.Header{"Origin": {"https://sello.example.com"}, "Sec-Fetch-Site": {"same-origin"}})
	wantRedirect(t, p, "/")
	set := p.Header.Get("Set-Cookie")
	if !strings.HasPrefix(set, sello.HostSessionCookie+"=") || !strings.Contains(set, "; Secure") || !strings.Contains(set, "Path=/") || strings.Contains(set, "Domain=") {
		t.Errorf("Set-Cookie %q: want __Host-sello_session, Secure, Path=/, no Domain", set)
	}
	if sts := p.Header.Get("Strict-Transport-Security"); sts == "" {
		t.Error("no Strict-Transport-Security over HTTPS")
	}
}

// TestInsecureCookiesDemo: only the loopback demo drops Secure.
func TestInsecureCookiesDemo(t *testing.T) {
	site := MustSite(t, func(s *portal.Server) { s.InsecureCookies = true })
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	p := site.NewBrowser(t).MustLogin("ana@caribe.do")
	if set := p.Header.Get("Set-Cookie"); strings.Contains(set, "Secure") || !strings.Contains(set, "HttpOnly") {
		t.Errorf("Set-Cookie %q: want HttpOnly without Secure", set)
	}
}

// TestOwns: the portal takes GET /, /portal/… and the one-time links; every
// other request (POST /, the API's paths, unknown paths) stays the API's.
func TestOwns(t *testing.T) {
	for _, tt := range []struct {
		method, path string
		want         bool
	}{
		{"GET", "/", true}, {"HEAD", "/", true}, {"POST", "/", false}, {"DELETE", "/", false},
		{"GET", "/portal", true}, {"GET", "/portal/entrar", true}, {"POST", "/portal/x/y", true},
		{"GET", sello.LinkPath + "abc", true},
		{"GET", "/healthz", false}, {"GET", "/openapi.json", false}, {"POST", "/TesteCF/documentos-ecf", false},
		{"GET", "/nope", false}, {"GET", "/portalx", false}, {"GET", "/TesteCF/portal/", false},
	} {
		r, _ := http.NewRequest(tt.method, "http://x"+tt.path, nil)
		if got := portal.Owns(r); got != tt.want {
			t.Errorf("Owns(%s %s) = %v, want %v", tt.method, tt.path, got, tt.want)
		}
	}
}

// TestLinkTokenNotLogged: the access log names a one-time link's path
// without its token (a credential).
func TestLinkTokenNotLogged(t *testing.T) {
	site := MustSite(t)
	owner := site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	link := site.mustLink(t, &sello.OneTimeLink{Purpose: sello.LinkInvite, Email: "luis@caribe.do", TenantID: site.Tenant.ID, Role: sello.RoleDeveloper, CreatedBy: owner.ID})
	wantStatus(t, site.NewBrowser(t).Get(link), http.StatusOK)
	token := strings.TrimPrefix(link, sello.LinkPath)
	if logs := site.Logs.String(); strings.Contains(logs, token) || !strings.Contains(logs, "path="+sello.LinkPath+"…") {
		t.Errorf("the log holds the link's token, or not its path: %s", logs)
	}
}
