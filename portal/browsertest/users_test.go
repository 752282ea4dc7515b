package browsertest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/portal/browsertest"
)

// TestUsersAndAudit: the owner invites a developer on the Usuarios page;
// the invitation's link, opened in the developer's browser, sets a
// password and signs in; the developer's menu has no Usuarios nor
// Auditoría, and opening them is refused. The owner makes the developer
// an accountant (who sees the keys but may not create one), then removes
// them: their next page is the login. The Auditoría page lists each
// change with who made it, filters by action, and verifies the chain.
func TestUsersAndAudit(t *testing.T) {
	t.Parallel()
	s := browsertest.StartServer(t)
	s.User(t, "ana@caribe.do", sello.RoleOwner)
	owner := s.NewPage(t)
	owner.Login("ana@caribe.do")
	owner.Submit(`nav.menu a[href="/portal/usuarios"]`)
	owner.Look("users")

	owner.Fill("#invite-email", "luis@caribe.do")
	owner.Select("#invite-role", string(sello.RoleDeveloper))
	owner.Submit("#invite-submit")
	owner.WaitFor(`.flash[role="status"]`)
	mails := s.Mail.Mails()
	if len(mails) != 1 || mails[0].To != "luis@caribe.do" || mails[0].Purpose != sello.LinkInvite {
		t.Fatalf("mails: %+v", mails)
	}

	dev := s.NewPage(t)
	dev.Go(mails[0].Link)
	dev.WantText("Ferretería Caribe SRL")
	dev.Look("invitation")
	dev.Fill(`input[name="password"]`, browsertest.Password)
	dev.Fill(`input[name="confirm"]`, browsertest.Password)
	dev.Submit(`main form button[type="submit"]`)
	if got := dev.Path(); !strings.HasPrefix(got, "/?") || !dev.Has(`.flash[role="status"]`) {
		t.Fatalf("after joining the page is %s: %s", got, dev.Body())
	}
	dev.WantText("Desarrollador")
	menu := strings.Join(dev.Texts("nav.menu a"), " ")
	if strings.Contains(menu, "Usuarios") || strings.Contains(menu, "Auditoría") || !strings.Contains(menu, "Claves API") {
		t.Errorf("a developer's menu: %s", menu)
	}
	for _, path := range []string{"/portal/usuarios", "/portal/auditoria"} {
		if status := dev.Go(path); status != http.StatusForbidden {
			t.Errorf("a developer opening %s: status %d, want 403", path, status)
		}
	}
	dev.Look("forbidden")

	// A developer becomes an accountant: the keys are there to read only.
	owner.Go("/portal/usuarios")
	member := browsertest.Eval[string](owner, `(() => {
		for (const li of document.querySelectorAll('li.member')) if (li.innerText.includes('luis@caribe.do')) return li.id;
		return '';
	})()`)
	id := strings.TrimPrefix(member, "member-")
	if id == "" {
		t.Fatalf("luis is not in the list: %s", owner.Body())
	}
	owner.Select("#role-select-"+id, string(sello.RoleAccountant))
	owner.Submit("#role-submit-" + id)
	dev.Go("/portal/claves")
	if dev.Has("#key-create") {
		t.Error("an accountant sees the form that creates a key")
	}

	// Removed: the next page is the login.
	owner.Go("/portal/usuarios")
	owner.Submit("#remove-" + id)
	owner.Look("user-remove")
	owner.Submit("#user-remove-submit")
	dev.Go("/portal/cuenta")
	if got := dev.Path(); !strings.HasPrefix(got, "/portal/entrar") {
		t.Errorf("a removed member's next page is %s, want the login", got)
	}

	// A key, for the log to have another kind of change.
	owner.Go("/portal/claves")
	owner.Fill("#key-name", "tienda")
	owner.Tick("#key-scope-ecf-read", true)
	owner.Submit("#key-create-submit")

	// The audit log: each change, by whom; filtered; the chain verified.
	owner.Submit(`nav.menu a[href="/portal/auditoria"]`)
	actions := browsertest.Eval[[]string](owner, `Array.from(document.querySelectorAll('#audit-entries tr[data-action]'), (tr) => tr.dataset.action)`)
	for _, want := range []string{"user.invited", "user.joined", "user.role_changed", "user.removed", "api_key.created"} {
		found := false
		for _, a := range actions {
			found = found || a == want
		}
		if !found {
			t.Errorf("the audit log's actions %v lack %s", actions, want)
		}
	}
	owner.Look("audit")
	owner.Select("#audit-action", "api_key.")
	owner.Submit("#audit-filter-submit")
	if got := browsertest.Eval[[]string](owner, `Array.from(document.querySelectorAll('#audit-entries tr[data-action]'), (tr) => tr.dataset.action)`); len(got) != 1 || got[0] != "api_key.created" {
		t.Errorf("filtered by API keys the log shows %v", got)
	}
	owner.Submit("#audit-verify-submit")
	if state := owner.Attr("#audit-chain-result", "data-state"); state != "ok" {
		t.Errorf("the chain's verification says %q: %s", state, owner.Text("#audit-chain-result"))
	}
	owner.Look("audit-verified")
}
