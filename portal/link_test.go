package portal_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

// mustLink stores a one-time link and returns its path.
func (s *Site) mustLink(tb testing.TB, l *sello.OneTimeLink) string {
	tb.Helper()
	token, hash := sello.NewToken()
	l.TokenHash = hash
	if l.ExpiresAt.IsZero() {
		l.ExpiresAt = s.Clock.Now().Add(sello.InviteTTL)
	}
	if err := s.Store.CreateLink(context.Background(), l); err != nil {
		tb.Fatal(err)
	}
	return sello.LinkPath + token
}

// TestInvitation: a new user opens the invitation (which does not spend
// it), chooses a password, joins the company with the invited role and is
// logged in; the link works once. An existing user's password is left as
// it is: they join and sign in with it.
func TestInvitation(t *testing.T) { testInvitation(t, MustSite(t)) }

func testInvitation(t *testing.T, site *Site) {
	owner := site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	ctx := context.Background()

	link := site.mustLink(t, &sello.OneTimeLink{Purpose: sello.LinkInvite, Email: "luis@caribe.do", TenantID: site.Tenant.ID, Role: sello.RoleDeveloper, CreatedBy: owner.ID})
	b := site.NewBrowser(t)
	for range 2 { // a mail scanner's visit first: it does not spend the link
		p := b.Get(link)
		wantStatus(t, p, http.StatusOK)
		wantText(t, p, "Le invitan a Ferretería Caribe SRL (130000001) como Desarrollador.", "luis@caribe.do", "Contraseña nueva")
	}
	p := b.Post(link, url.Values{"password": {"password123456"}, "confirm": {"password123456"}})
	wantStatus(t, p, http.StatusBadRequest) // a common password
	p = b.Post(link, url.Values{"password": {"los mangos de baní"}, "confirm": {"los mangos de baní"}})
	wantRedirect(t, p, "/?done=joined")
	home := b.Get("/?done=joined")
	wantStatus(t, home, http.StatusOK)
	wantText(t, home, "Ya forma parte de la empresa.", "Desarrollador")

	u, err := site.Store.FindUserByEmail(ctx, "luis@caribe.do")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := site.Store.FindUserMemberships(ctx, u.ID)
	if err != nil || len(ms) != 1 || ms[0].Role != sello.RoleDeveloper {
		t.Errorf("memberships %v %v", ms, err)
	}
	p = site.NewBrowser(t).Get(link)
	wantStatus(t, p, http.StatusNotFound)
	wantText(t, p, "Este enlace no funciona")
	wantStatus(t, site.NewBrowser(t).Post(link, url.Values{"password": {"otra clave larga de verdad"}, "confirm": {"otra clave larga de verdad"}}), http.StatusNotFound)

	entries, err := site.Store.FindAudit(ctx, site.Tenant.ID, sello.AuditFilter{Action: "user.joined"})
	if err != nil || len(entries) != 1 || entries[0].ActorEmail != "luis@caribe.do" || !strings.Contains(string(entries[0].After), `"role":"developer"`) {
		t.Errorf("audit %v %v", entries, err)
	}

	t.Run("OKExistingUser", func(t *testing.T) {
		other := &sello.Tenant{RNC: "130000002", Name: "Colmado La Esquina SRL", Plan: sello.DefaultRatePlan}
		if err := site.Store.CreateTenant(ctx, other); err != nil {
			t.Fatal(err)
		}
		site.MustUserIn(t, "jefa@esquina.do", sello.RoleOwner, other)
		link := site.mustLink(t, &sello.OneTimeLink{Purpose: sello.LinkInvite, Email: "ana@caribe.do", TenantID: other.ID, Role: sello.RoleAccountant})
		b := site.NewBrowser(t)
		p := b.Get(link)
		wantText(t, p, "Usted ya tiene un usuario de Sello: su contraseña sigue igual.")
		if strings.Contains(p.Body, `name="password"`) {
			t.Error("the invitation of an existing user asks for a password")
		}
		wantRedirect(t, b.Post(link, url.Values{"password": {"an attacker's choice!!"}, "confirm": {"an attacker's choice!!"}}), "/portal/entrar?done=joined")
		if b.Cookie() != "" {
			t.Error("joining logged an existing user in without their password")
		}
		b.MustLogin("ana@caribe.do") // the password is unchanged
		wantText(t, b.Get("/"), "Colmado La Esquina SRL (130000002)")
	})
	t.Run("ErrExpired", func(t *testing.T) {
		link := site.mustLink(t, &sello.OneTimeLink{Purpose: sello.LinkInvite, Email: "tarde@caribe.do", TenantID: site.Tenant.ID, Role: sello.RoleAdmin, ExpiresAt: site.Clock.Now().Add(time.Hour)})
		site.Clock.Advance(time.Hour)
		wantStatus(t, site.NewBrowser(t).Get(link), http.StatusNotFound)
	})
}

// TestPasswordReset: the request answers the same whether the email has a
// user or not, and mails a link to a user; the link sets a new password
// and ends every session of the user; it works once.
func TestPasswordReset(t *testing.T) { testPasswordReset(t, MustSite(t)) }

func testPasswordReset(t *testing.T, site *Site) {
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	loggedIn := site.NewBrowser(t)
	loggedIn.MustLogin("ana@caribe.do")

	b := site.NewBrowser(t)
	wantText(t, b.Get("/portal/recuperar"), "le enviaremos un enlace")
	sent := "Si algún usuario tiene ese correo, le enviamos un enlace"
	wantText(t, b.Post("/portal/recuperar", url.Values{"email": {"nadie@caribe.do"}}), sent)
	if n := len(site.Mail.Mails()); n != 0 {
		t.Fatalf("%d mails for an unknown email", n)
	}
	wantText(t, b.Post("/portal/recuperar", url.Values{"email": {"Ana@Caribe.do"}}), sent)
	mails := site.Mail.Mails()
	if len(mails) != 1 || mails[0].To != "ana@caribe.do" || mails[0].Purpose != sello.LinkReset || !strings.Contains(mails[0].Body, mails[0].Link) {
		t.Fatalf("mails %+v", mails)
	}
	if !strings.HasPrefix(mails[0].Link, site.HTTP.URL+sello.LinkPath) || mails[0].Subject != "Sello: elija una contraseña nueva" {
		t.Errorf("mail %+v", mails[0])
	}
	link := strings.TrimPrefix(mails[0].Link, site.HTTP.URL)
	wantText(t, b.Get(link), "Elija una contraseña nueva para ana@caribe.do.")
	newPassword := "la lluvia de mayo en jarabacoa"
	wantRedirect(t, b.Post(link, url.Values{"password": {newPassword}, "confirm": {newPassword}}), "/portal/entrar?done=password-reset")
	wantText(t, b.Get("/portal/entrar?done=password-reset"), "Su contraseña cambió. Inicie sesión con ella.")
	wantRedirect(t, loggedIn.Get("/"), "/portal/entrar")
	wantStatus(t, b.Post("/portal/entrar", url.Values{"email": {"ana@caribe.do"}, "password": {testPassword}}), http.StatusUnauthorized)
	wantRedirect(t, b.Post("/portal/entrar", url.Values{"email": {"ana@caribe.do"}, "password": {newPassword}}), "/")
	wantStatus(t, site.NewBrowser(t).Get(link), http.StatusNotFound)

	// The requests for one email are throttled (3, then one every 10 min).
	for range 2 {
		b.Post("/portal/recuperar", url.Values{"email": {"ana@caribe.do"}})
	}
	p := b.Post("/portal/recuperar", url.Values{"email": {"ana@caribe.do"}})
	wantStatus(t, p, http.StatusTooManyRequests)
	wantText(t, p, "Demasiados intentos.")
}
