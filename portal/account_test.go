package portal_test

import (
	"context"
	"encoding/base32"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/i18n"
)

// TestSecondFactor: a user sets up TOTP from the account page (QR code,
// key, first code) and gets recovery codes, shown once; the session is
// replaced (a change of privilege). Then the login asks for a code before
// any page: a wrong or replayed one is refused, a right one or a recovery
// code (once) lets the user in with a new session id.
func TestSecondFactor(t *testing.T) { testSecondFactor(t, MustSite(t)) }

func testSecondFactor(t *testing.T, site *Site) {
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	b := site.NewBrowser(t)
	b.MustLogin("ana@caribe.do")

	wantText(t, b.Get("/portal/cuenta"), "Desactivado.", "Configurar el segundo factor")
	wantRedirect(t, b.Form("/portal/cuenta/segundo-factor", "/portal/cuenta/segundo-factor", nil), "/portal/cuenta/segundo-factor")
	enrol := b.Get("/portal/cuenta/segundo-factor")
	wantText(t, enrol, "Escanee este código")
	if !strings.Contains(enrol.Body, "<svg") || !strings.Contains(enrol.Body, `<path fill="#000" d="M`) {
		t.Errorf("no QR code in SVG on the page")
	}
	m := regexp.MustCompile(`id="totp-secret">([A-Z2-7]+)<`).FindStringSubmatch(enrol.Body)
	if m == nil {
		t.Fatalf("no key on the page: %s", enrol.Body)
	}
	secret := mustBase32(t, m[1])
	code := func(at time.Time) string { return sello.TOTPCode(secret, sello.TOTPStep(at)) }

	p := b.Post("/portal/cuenta/segundo-factor/confirmar", url.Values{"csrf": {enrol.CSRF(t)}, "code": {"000000"}})
	wantStatus(t, p, http.StatusUnauthorized)
	wantText(t, p, "El código es incorrecto o ya se usó.")
	before := b.Cookie()
	p = b.Post("/portal/cuenta/segundo-factor/confirmar", url.Values{"csrf": {enrol.CSRF(t)}, "code": {code(site.Clock.Now())}})
	wantStatus(t, p, http.StatusOK)
	wantText(t, p, "El segundo factor está activado.")
	codes := regexp.MustCompile(`<li>([a-z2-7-]{16,})</li>`).FindAllStringSubmatch(p.Body, -1)
	if len(codes) != sello.RecoveryCodeCount {
		t.Fatalf("%d recovery codes shown, want %d: %s", len(codes), sello.RecoveryCodeCount, p.Body)
	}
	if b.Cookie() == before {
		t.Error("the session id did not change when the second factor was turned on")
	}
	wantText(t, b.Get("/portal/cuenta"), "Activo desde el", "Le quedan 10 códigos de recuperación.")

	// Log in again: the second factor is asked before anything else.
	c := site.NewBrowser(t)
	wantRedirect(t, c.MustLogin("ana@caribe.do"), "/portal/segundo-factor?next=%2F")
	pending := c.Cookie()
	wantRedirect(t, c.Get("/"), "/portal/segundo-factor")
	wantRedirect(t, c.Get("/portal/cuenta"), "/portal/segundo-factor")
	// Nor can the waiting session set up another factor.
	wantStatus(t, c.Get("/portal/cuenta/segundo-factor"), http.StatusUnauthorized)
	form := c.Get("/portal/segundo-factor")
	wantText(t, form, "Escriba el código de 6 dígitos")
	if strings.Contains(form.Body, `class="menu"`) {
		t.Error("a session waiting for its second factor sees the menu")
	}
	csrf := form.CSRF(t)
	wantStatus(t, c.Post("/portal/segundo-factor", url.Values{"csrf": {csrf}, "code": {"123456"}}), http.StatusUnauthorized)
	// The code used for the enrolment does not work again.
	wantStatus(t, c.Post("/portal/segundo-factor", url.Values{"csrf": {csrf}, "code": {code(site.Clock.Now())}}), http.StatusUnauthorized)
	site.Clock.Advance(sello.TOTPPeriod)
	p = c.Post("/portal/segundo-factor", url.Values{"csrf": {csrf}, "code": {code(site.Clock.Now())}, "next": {"/portal/cuenta"}})
	wantRedirect(t, p, "/portal/cuenta")
	if c.Cookie() == pending {
		t.Error("the session id did not change when the second factor passed")
	}
	wantStatus(t, c.Get("/portal/cuenta"), http.StatusOK)
	stale := site.NewBrowser(t)
	stale.SetCookie(pending)
	wantRedirect(t, stale.Get("/"), "/portal/entrar")

	// A recovery code works once. (Ten minutes on: three codes were tried
	// above, and the account's codes are throttled like its logins.)
	site.Clock.Advance(10 * time.Minute)
	d := site.NewBrowser(t)
	d.MustLogin("ana@caribe.do")
	csrf = d.Get("/portal/segundo-factor").CSRF(t)
	wantRedirect(t, d.Post("/portal/segundo-factor", url.Values{"csrf": {csrf}, "code": {strings.ToUpper(codes[0][1])}}), "/")
	e := site.NewBrowser(t)
	e.MustLogin("ana@caribe.do")
	wantStatus(t, e.Post("/portal/segundo-factor", url.Values{"csrf": {e.Get("/portal/segundo-factor").CSRF(t)}, "code": {codes[0][1]}}), http.StatusUnauthorized)

	// Turning it off asks for the password.
	p = d.Form("/portal/cuenta", "/portal/cuenta/segundo-factor/quitar", url.Values{"current": {"wrong password here"}})
	wantStatus(t, p, http.StatusUnauthorized)
	p = d.Form("/portal/cuenta", "/portal/cuenta/segundo-factor/quitar", url.Values{"current": {testPassword}})
	wantRedirect(t, p, "/portal/cuenta?done=second-factor-off")
	wantText(t, d.Get("/portal/cuenta?done=second-factor-off"), "El segundo factor está desactivado.")
	wantRedirect(t, site.NewBrowser(t).MustLogin("ana@caribe.do"), "/")

	entries, err := site.Store.FindAudit(context.Background(), site.Tenant.ID, sello.AuditFilter{Action: "user.second_factor"})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0].Action != "user.second_factor_removed" || entries[1].Action != "user.second_factor_enabled" {
		t.Errorf("audit: %d entries %v", len(entries), entries)
	}
}

// TestChangePassword: the current password is asked again; the new one
// must pass the policy; once changed, the user's other sessions end and
// this one gets a new id.
func TestChangePassword(t *testing.T) { testChangePassword(t, MustSite(t)) }

func testChangePassword(t *testing.T, site *Site) {
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	b, other := site.NewBrowser(t), site.NewBrowser(t)
	b.MustLogin("ana@caribe.do")
	other.MustLogin("ana@caribe.do")

	newPassword := "el flamboyán florece en junio"
	p := b.Form("/portal/cuenta", "/portal/cuenta/clave", url.Values{"current": {"not it at all!"}, "password": {newPassword}, "confirm": {newPassword}})
	wantStatus(t, p, http.StatusUnauthorized)
	wantText(t, p, "La contraseña actual no es correcta.")
	p = b.Form("/portal/cuenta", "/portal/cuenta/clave", url.Values{"current": {testPassword}, "password": {newPassword}, "confirm": {newPassword + "x"}})
	wantStatus(t, p, http.StatusBadRequest)
	wantText(t, p, "Las dos contraseñas no son iguales.")
	p = b.Form("/portal/cuenta", "/portal/cuenta/clave", url.Values{"current": {testPassword}, "password": {"short"}, "confirm": {"short"}})
	wantStatus(t, p, http.StatusBadRequest)
	wantText(t, p, "La contraseña debe tener al menos 12 caracteres.") // the domain's message, in the reader's language

	before := b.Cookie()
	p = b.Form("/portal/cuenta", "/portal/cuenta/clave", url.Values{"current": {testPassword}, "password": {newPassword}, "confirm": {newPassword}})
	wantRedirect(t, p, "/portal/cuenta?done=password")
	if b.Cookie() == before {
		t.Error("the session id did not change with the password")
	}
	wantText(t, b.Get("/portal/cuenta?done=password"), "Su contraseña cambió. Sus otras sesiones terminaron.")
	wantRedirect(t, other.Get("/"), "/portal/entrar")
	p = site.NewBrowser(t).Post("/portal/entrar", url.Values{"email": {"ana@caribe.do"}, "password": {newPassword}})
	wantRedirect(t, p, "/")
}

// TestLanguage: Spanish by default; the switch remembers English in the
// user (every later session speaks it) and, before logging in, in a
// cookie. The switch is a state change like any other: CSRF-checked.
func TestLanguage(t *testing.T) {
	site := MustSite(t)
	u := site.MustUser(t, "ana@caribe.do", sello.RoleOwner)

	guest := site.NewBrowser(t)
	wantText(t, guest.Get("/portal/entrar"), "Iniciar sesión")
	p := guest.Post("/portal/idioma", url.Values{"lang": {"en"}, "next": {"/portal/entrar"}})
	wantRedirect(t, p, "/portal/entrar")
	wantText(t, guest.Get("/portal/entrar"), "Sign in", "Forgot your password?")

	b := site.NewBrowser(t)
	b.MustLogin("ana@caribe.do")
	wantText(t, b.Get("/"), "Inicio", "Cuenta")
	wantStatus(t, b.Post("/portal/idioma", url.Values{"lang": {"en"}, "next": {"/"}}), http.StatusForbidden)
	wantRedirect(t, b.Form("/", "/portal/idioma", url.Values{"lang": {"en"}, "next": {"/portal/cuenta"}}), "/portal/cuenta")
	got, err := site.Store.FindUserByID(context.Background(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Language != "en" {
		t.Errorf("user's language %q, want en", got.Language)
	}
	c := site.NewBrowser(t)
	c.MustLogin("ana@caribe.do")
	home := c.Get("/")
	wantText(t, home, "Home", "Account", "Owner", "available")
	if !strings.Contains(home.Body, `<html lang="en">`) {
		t.Error(`no <html lang="en">`)
	}
	if strings.Contains(home.Body, "Propietario") {
		t.Error("Spanish on an English page")
	}
	if i18n.ParseLang(got.Language) != i18n.EN {
		t.Error("ParseLang")
	}
}

// TestTenantSwitch: a user of two companies switches between them; each
// switch is a new session; a company the user is not in is refused.
func TestTenantSwitch(t *testing.T) { testTenantSwitch(t, MustSite(t)) }

func testTenantSwitch(t *testing.T, site *Site) {
	ctx := context.Background()
	second := &sello.Tenant{RNC: "130000002", Name: "Colmado La Esquina SRL", Plan: sello.DefaultRatePlan}
	if err := site.Store.CreateTenant(ctx, second); err != nil {
		t.Fatal(err)
	}
	stranger := &sello.Tenant{RNC: "130000003", Name: "Otra SRL", Plan: sello.DefaultRatePlan}
	if err := site.Store.CreateTenant(ctx, stranger); err != nil {
		t.Fatal(err)
	}
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	site.MustUserIn(t, "jefa@esquina.do", sello.RoleOwner, second)
	site.MustUserIn(t, "ana@caribe.do", sello.RoleAccountant, second)
	site.MustUserIn(t, "otro@otra.do", sello.RoleOwner, stranger)

	b := site.NewBrowser(t)
	b.MustLogin("ana@caribe.do")
	home := b.Get("/")
	wantText(t, home, "Ferretería Caribe SRL (130000001)", "Colmado La Esquina SRL (130000002)", "Cambiar")
	before := b.Cookie()
	wantRedirect(t, b.Form("/", "/portal/empresa", url.Values{"tenant": {second.ID}}), "/")
	if b.Cookie() == before {
		t.Error("the session id did not change with the company")
	}
	home = b.Get("/")
	wantText(t, home, "<h1>Colmado La Esquina SRL</h1>", "Contador")
	p := b.Form("/", "/portal/empresa", url.Values{"tenant": {stranger.ID}})
	wantStatus(t, p, http.StatusNotFound)
	wantText(t, p, "Usted no pertenece a esa empresa.")
}

func mustBase32(tb testing.TB, s string) []byte {
	tb.Helper()
	b, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(s)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// TestSecondFactorRequired: when the company requires a second factor, a
// user without one can, after the password, only set one up (or sign
// out); once set up, everything opens, and it cannot be turned off.
func TestSecondFactorRequired(t *testing.T) { testSecondFactorRequired(t, MustSite(t)) }

func testSecondFactorRequired(t *testing.T, site *Site) {
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	if err := site.Store.SetSecondFactorRequired(context.Background(), site.Tenant.ID, true); err != nil {
		t.Fatal(err)
	}
	b := site.NewBrowser(t)
	wantRedirect(t, b.MustLogin("ana@caribe.do"), "/portal/segundo-factor")
	wantRedirect(t, b.Get("/portal/segundo-factor"), "/portal/cuenta/segundo-factor")
	wantRedirect(t, b.Get("/"), "/portal/segundo-factor")
	wantRedirect(t, b.Get("/portal/cuenta"), "/portal/segundo-factor")
	enrol := b.Get("/portal/cuenta/segundo-factor")
	wantStatus(t, enrol, http.StatusOK)
	wantText(t, enrol, "Su empresa exige un segundo factor: configúrelo para continuar.", "Cancelar y salir")
	wantRedirect(t, b.Post("/portal/cuenta/segundo-factor", url.Values{"csrf": {enrol.CSRF(t)}}), "/portal/cuenta/segundo-factor")
	enrol = b.Get("/portal/cuenta/segundo-factor")
	m := regexp.MustCompile(`id="totp-secret">([A-Z2-7]+)<`).FindStringSubmatch(enrol.Body)
	if m == nil {
		t.Fatalf("no key on the page: %s", enrol.Body)
	}
	code := sello.TOTPCode(mustBase32(t, m[1]), sello.TOTPStep(site.Clock.Now()))
	p := b.Post("/portal/cuenta/segundo-factor/confirmar", url.Values{"csrf": {enrol.CSRF(t)}, "code": {code}})
	wantStatus(t, p, http.StatusOK)
	wantText(t, p, "Códigos de recuperación")
	wantStatus(t, b.Get("/"), http.StatusOK)
	account := b.Get("/portal/cuenta")
	wantText(t, account, "Una de sus empresas exige un segundo factor: no se puede desactivar.")
	wantStatus(t, b.Post("/portal/cuenta/segundo-factor/quitar", url.Values{"csrf": {account.CSRF(t)}, "current": {testPassword}}), http.StatusConflict)
}
