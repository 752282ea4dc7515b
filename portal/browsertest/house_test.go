package browsertest_test

import (
	"encoding/base32"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/portal/browsertest"
)

// The house's pages in the browser: signing in (with and without a second
// factor), the password reset, the account, the language switch, and the
// security rules a browser enforces with the server (an expired session,
// a form posted from another origin).

// TestLogin: the home page logged out is the login; an owner signs in and
// lands on the home page, which names the company; a wrong password is
// refused on the page with the reason; signing out comes back to the
// login.
func TestLogin(t *testing.T) {
	t.Parallel()
	s := browsertest.StartServer(t)
	s.User(t, "ana@caribe.do", sello.RoleOwner)
	p := s.NewPage(t)
	if status := p.Go("/"); status != http.StatusOK {
		t.Fatalf("GET /: %d", status)
	}
	if got := p.Path(); !strings.HasPrefix(got, "/portal/entrar") {
		t.Fatalf("GET / logged out shows %s, want the login", got)
	}
	if lang := browsertest.Eval[string](p, "document.documentElement.lang"); lang != "es" {
		t.Errorf("the login's language is %q, want es (Spanish first)", lang)
	}
	p.Look("login")

	p.Fill(`input[name="email"]`, "ana@caribe.do")
	p.Fill(`input[name="password"]`, "not the password at all")
	p.Submit(`form[action="/portal/entrar"] button[type="submit"]`)
	if got := p.Path(); !strings.HasPrefix(got, "/portal/entrar") {
		t.Fatalf("a wrong password led to %s", got)
	}
	if msg := p.Text("#login-error"); msg == "" {
		t.Error("a wrong password shows no error")
	}
	p.Look("login-error")

	p.Login("ana@caribe.do")
	if got := p.Path(); got != "/" {
		t.Errorf("after the login the page is %s, want /", got)
	}
	p.WantText("Ferretería Caribe SRL", "ana@caribe.do")
	p.Look("home")

	p.Submit(`form[action="/portal/salir"] button[type="submit"]`)
	if got := p.Path(); !strings.HasPrefix(got, "/portal/entrar") {
		t.Errorf("after signing out the page is %s, want the login", got)
	}
	p.Go("/portal/cuenta")
	if got := p.Path(); !strings.HasPrefix(got, "/portal/entrar") {
		t.Errorf("the account after signing out is %s, want the login", got)
	}
}

// TestSecondFactorRequired: the owner requires a second factor on the
// Usuarios page, and is led at once to its set-up, as every member without
// one is, and can open nothing else; the owner scans (reads) the key,
// confirms a code, is shown the recovery codes and goes on; the next login
// asks for a code, refuses a wrong one and takes the app's.
func TestSecondFactorRequired(t *testing.T) {
	t.Parallel()
	s := browsertest.StartServer(t)
	s.User(t, "ana@caribe.do", sello.RoleOwner)
	p := s.NewPage(t)
	p.Login("ana@caribe.do")
	p.Submit(`nav.menu a[href="/portal/usuarios"]`)
	p.Submit("#require-totp-submit")
	if got := p.Path(); !strings.HasPrefix(got, "/portal/cuenta/segundo-factor") {
		t.Fatalf("after requiring a second factor the page is %s, want its set-up", got)
	}
	p.Look("second-factor-required")
	p.Go("/portal/cuenta")
	if got := p.Path(); !strings.HasPrefix(got, "/portal/cuenta/segundo-factor") {
		t.Errorf("the account before the second factor is %s, want its set-up", got)
	}

	p.Submit(`form[action="/portal/cuenta/segundo-factor"] button[type="submit"]`)
	secret := p.Text("#totp-secret")
	if !p.Has(".qr svg") {
		t.Error("the set-up shows no QR code")
	}
	p.Look("second-factor-enrol")
	p.Fill(`input[name="code"]`, code(t, secret, s.Clock.Now()))
	p.Submit(`form[action="/portal/cuenta/segundo-factor/confirmar"] button[type="submit"]`)
	codes := p.Texts("#recovery-codes li")
	if len(codes) != 10 {
		t.Fatalf("%d recovery codes shown, want 10", len(codes))
	}
	p.Look("second-factor-recovery-codes")
	p.Submit(`a.button[href="/"]`)
	if got := p.Path(); got != "/" {
		t.Fatalf("after the set-up the page is %s, want /", got)
	}

	// The next login, in another browser, asks for a code.
	q := s.NewPage(t)
	q.Login("ana@caribe.do")
	if got := q.Path(); !strings.HasPrefix(got, "/portal/segundo-factor") {
		t.Fatalf("the login with a second factor leads to %s", got)
	}
	q.Look("second-factor")
	q.Fill(`input[name="code"]`, "000000")
	q.Submit(`form[action="/portal/segundo-factor"] button[type="submit"]`)
	if !q.Has(`.error[role="alert"]`) || !strings.HasPrefix(q.Path(), "/portal/segundo-factor") {
		t.Fatalf("a wrong code: %s: %s", q.Path(), q.Body())
	}
	// The code the set-up used is spent: take the next step's.
	s.Clock.Advance(sello.TOTPPeriod)
	q.Fill(`input[name="code"]`, code(t, secret, s.Clock.Now()))
	q.Submit(`form[action="/portal/segundo-factor"] button[type="submit"]`)
	if got := q.Path(); got != "/" {
		t.Fatalf("after the code the page is %s: %s", got, q.Body())
	}
}

// code is the TOTP code of the base32 secret (as the set-up shows it) at
// now: what the person's authenticator app shows.
func code(t *testing.T, secret string, now time.Time) string {
	t.Helper()
	key, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.ReplaceAll(strings.ToUpper(secret), " ", ""))
	if err != nil {
		t.Fatalf("the key %q: %v", secret, err)
	}
	return sello.TOTPCode(key, sello.TOTPStep(now))
}

// TestPasswordReset: the reset request's page mails a link (the same
// answer for any email); the link's page sets a new password and leads to
// the login, where the new password signs in.
func TestPasswordReset(t *testing.T) {
	t.Parallel()
	s := browsertest.StartServer(t)
	s.User(t, "ana@caribe.do", sello.RoleOwner)
	p := s.NewPage(t)
	p.Go("/portal/entrar")
	p.Submit(`a[href="/portal/recuperar"]`)
	p.Look("password-reset-request")
	p.Fill(`input[name="email"]`, "ana@caribe.do")
	p.Submit(`form[action="/portal/recuperar"] button[type="submit"]`)
	p.WaitFor(`.flash[role="status"]`)
	p.Look("password-reset-sent")
	mails := s.Mail.Mails()
	if len(mails) != 1 || mails[0].To != "ana@caribe.do" || mails[0].Link == "" {
		t.Fatalf("mails: %+v", mails)
	}

	const newPassword = "guayacán junto al río ozama"
	p.Go(mails[0].Link)
	p.Look("password-reset-link")
	p.Fill(`input[name="password"]`, newPassword)
	p.Fill(`input[name="confirm"]`, newPassword)
	p.Submit(`main form button[type="submit"]`)
	if got := p.Path(); !strings.HasPrefix(got, "/portal/entrar") || !p.Has(`.flash[role="status"]`) {
		t.Fatalf("after the reset the page is %s: %s", got, p.Body())
	}
	p.Look("login-password-changed")
	p.Fill(`input[name="email"]`, "ana@caribe.do")
	p.Fill(`input[name="password"]`, newPassword)
	p.Submit(`form[action="/portal/entrar"] button[type="submit"]`)
	if got := p.Path(); got != "/" {
		t.Errorf("the new password leads to %s: %s", got, p.Body())
	}
}

// TestAccount: the account page shows the user and role; the invitation
// page an owner's link leads to.
func TestAccount(t *testing.T) {
	t.Parallel()
	s := browsertest.StartServer(t)
	s.User(t, "ana@caribe.do", sello.RoleOwner)
	p := s.NewPage(t)
	p.Login("ana@caribe.do")
	p.Submit(`.me a[href="/portal/cuenta"]`)
	if got := p.Path(); got != "/portal/cuenta" {
		t.Fatalf("the email in the header leads to %s", got)
	}
	p.WantText("ana@caribe.do", "Ferretería Caribe SRL")
	p.Look("account")
	p.Go("/portal/CerteCF")
	p.Look("home-certecf")
	p.Go("/portal/no-such-page")
	p.Look("not-found")
}

// TestLanguageRemembered: the switch in the header turns the portal to
// English and back; the choice is the user's, so a login from another
// browser is in English too.
func TestLanguageRemembered(t *testing.T) {
	t.Parallel()
	s := browsertest.StartServer(t)
	s.User(t, "ana@caribe.do", sello.RoleOwner)
	p := s.NewPage(t)
	p.Login("ana@caribe.do")
	p.WantText("Salir")
	p.Submit(`form[action="/portal/idioma"] button[type="submit"]`)
	if got := p.Path(); got != "/" {
		t.Errorf("the language switch leads to %s, want the same page", got)
	}
	if lang := browsertest.Eval[string](p, "document.documentElement.lang"); lang != "en" {
		t.Fatalf("after the switch the page's language is %q", lang)
	}
	p.WantText("Sign out", "Español")
	p.Look("home-english")

	q := s.NewPage(t)
	q.Go("/portal/entrar")
	if lang := browsertest.Eval[string](q, "document.documentElement.lang"); lang != "es" {
		t.Errorf("a new browser's login is in %q, want es", lang)
	}
	q.Login("ana@caribe.do")
	if lang := browsertest.Eval[string](q, "document.documentElement.lang"); lang != "en" {
		t.Errorf("the user's login from another browser is in %q, want en (remembered)", lang)
	}
	q.WantText("Sign out")

	p.Submit(`form[action="/portal/idioma"] button[type="submit"]`)
	p.WantText("Salir")
}

// TestSessionExpired: a session unused for more than 30 minutes is over:
// the next page the person opens is the login, which leads back to that
// page once they sign in again.
func TestSessionExpired(t *testing.T) {
	t.Parallel()
	s := browsertest.StartServer(t)
	s.User(t, "ana@caribe.do", sello.RoleOwner)
	p := s.NewPage(t)
	p.Login("ana@caribe.do")
	s.Clock.Advance(sello.SessionIdle + time.Minute)
	p.Submit(`.me a[href="/portal/cuenta"]`)
	got := p.Path()
	if !strings.HasPrefix(got, "/portal/entrar") {
		t.Fatalf("after 31 idle minutes the account is %s, want the login", got)
	}
	p.Look("login-expired")
	p.Fill(`input[name="email"]`, "ana@caribe.do")
	p.Fill(`input[name="password"]`, browsertest.Password)
	p.Submit(`form[action="/portal/entrar"] button[type="submit"]`)
	if got := p.Path(); got != "/portal/cuenta" {
		t.Errorf("signing in again leads to %s, want the account the person was opening", got)
	}
}

// TestCrossOriginFormRefused: a page on another origin posts a form to
// the portal in the signed-in person's browser. From a port of the same
// host (same site: the browser sends the session cookie with it) and from
// another host, the portal refuses it (403) and the session is unharmed.
func TestCrossOriginFormRefused(t *testing.T) {
	t.Parallel()
	s := browsertest.StartServer(t)
	s.User(t, "ana@caribe.do", sello.RoleOwner)
	p := s.NewPage(t)
	p.Login("ana@caribe.do")

	// "Sign out on every device": harmless to lose, easy to see.
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!DOCTYPE html><html lang="es"><title>Premio</title>
<form method="post" action="%s/portal/salir-de-todo"><input type="hidden" name="csrf" value="guess"><button type="submit">Reclamar el premio</button></form>`, s.URL)
	}))
	defer evil.Close()
	for _, origin := range []string{evil.URL, strings.Replace(evil.URL, "127.0.0.1", "localhost", 1)} {
		p.Go(origin + "/")
		if status := p.Submit("button"); status != http.StatusForbidden {
			t.Errorf("a form posted from %s: status %d, want 403", origin, status)
		}
		p.Problems() // the 403's console line
		p.Go("/portal/cuenta")
		if got := p.Path(); got != "/portal/cuenta" {
			t.Fatalf("after the form from %s the account is %s: the session ended", origin, got)
		}
	}
}

// TestLoginPostgreSQL: the same sign-in, account and sign-out on a server
// whose store is PostgreSQL (sessions and throttles in the database, as
// every node of a cluster sees them).
func TestLoginPostgreSQL(t *testing.T) {
	t.Parallel()
	s := browsertest.StartServer(t, browsertest.Options{PostgreSQL: true})
	s.User(t, "ana@caribe.do", sello.RoleOwner)
	p := s.NewPage(t)
	p.Login("ana@caribe.do")
	p.Submit(`.me a[href="/portal/cuenta"]`)
	p.WantText("ana@caribe.do", "Ferretería Caribe SRL")
	p.Submit(`form[action="/portal/salir"] button[type="submit"]`)
	p.Go("/portal/cuenta")
	if got := p.Path(); !strings.HasPrefix(got, "/portal/entrar") {
		t.Errorf("the account after signing out is %s, want the login", got)
	}
}
