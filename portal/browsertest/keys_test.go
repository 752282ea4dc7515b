package browsertest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/portal/browsertest"
)

// documentsPath is a cheap read of the API that a key with ecf:read may
// make: the tenant's documents in TesteCF, none.
const documentsPath = "/TesteCF/documentos-ecf?limit=1"

// TestAPIKeys: a developer creates a key on the Claves API page (shown
// once, with its copy button), and the key works against the API; the
// list shows its first and last use and from where, and the last use
// moves when the key is used again later; the developer rotates it (the
// new key shown once, the rotation's state: the new key in use, the old
// one no longer), revokes the old key from the rotation and the new one
// from its own page, and the API refuses each once revoked.
func TestAPIKeys(t *testing.T) {
	t.Parallel()
	s := browsertest.StartServer(t)
	s.User(t, "ana@caribe.do", sello.RoleOwner)
	s.User(t, "luis@caribe.do", sello.RoleDeveloper)
	p := s.NewPage(t)
	browsertest.GrantClipboard(t, p)
	p.Login("luis@caribe.do")
	p.Submit(`nav.menu a[href="/portal/claves"]`)
	if got := p.Path(); !strings.HasPrefix(got, "/portal/claves") {
		t.Fatalf("the menu's API keys lead to %s", got)
	}
	p.Look("keys-empty")

	// Create: a name, TesteCF, ecf:read.
	p.Fill("#key-name", "facturación")
	p.Select("#key-environment", "TesteCF")
	p.Tick("#key-scope-ecf-read", true)
	p.Submit("#key-create-submit")
	key := p.Text("#new-key")
	if !strings.HasPrefix(key, "sk_") && len(key) < 20 {
		t.Fatalf("the new key is %q", key)
	}
	p.Click("#copy-key")
	p.WaitFor("#copy-status:not(:empty)")
	if got := browsertest.Clipboard(t, p); got != key {
		t.Errorf("the copy button copied %q, want the key", got)
	}
	p.Look("key-created")

	// The list: the key, not used yet.
	p.Submit("#keys-back")
	card := keyCard(t, p, "facturación")
	if facts := p.Facts(card); facts["Último uso"] != "Todavía no" || facts["Primer uso"] != "Todavía no" {
		t.Errorf("an unused key's facts: %v", facts)
	}

	// Used by an integration: the list says when and from where.
	if status, body := s.API(t, key, "GET", documentsPath, nil); status != http.StatusOK {
		t.Fatalf("the new key at the API: %d %s", status, body)
	}
	p.Go("/portal/claves")
	first := p.Facts(card)
	if !strings.Contains(first["Último uso"], "desde 127.0.0.1") || first["Primer uso"] == "Todavía no" {
		t.Fatalf("a used key's facts: %v", first)
	}
	p.Look("keys")

	// Used again three minutes later: the last use moves, the first stays.
	s.Clock.Advance(3 * time.Minute)
	if status, _ := s.API(t, key, "GET", documentsPath, nil); status != http.StatusOK {
		t.Fatalf("the key again: %d", status)
	}
	p.Go("/portal/claves")
	second := p.Facts(card)
	if second["Último uso"] == first["Último uso"] || second["Primer uso"] != first["Primer uso"] {
		t.Errorf("after a use 3 minutes later the key's use went from %v to %v", first, second)
	}

	// Rotate: the new key, shown once; the rotation waits for it.
	p.Submit("#rotate-" + strings.TrimPrefix(card, "#key-"))
	newKey := p.Text("#new-key")
	if newKey == key || newKey == "" {
		t.Fatalf("the rotation's new key is %q", newKey)
	}
	if state := p.Attr("#rotation-state-text", "data-state"); state != string(sello.RotationNewUnused) {
		t.Errorf("a new rotation's state is %q, want %s", state, sello.RotationNewUnused)
	}
	p.Look("key-rotation-new")
	rotation := p.Attr("#rotation-state", "hx-get")
	if rotation == "" {
		t.Fatal("the rotation's state does not refresh itself")
	}

	// The integration switches to the new key: the rotation is ready.
	s.Clock.Advance(3 * time.Minute)
	if status, _ := s.API(t, newKey, "GET", documentsPath, nil); status != http.StatusOK {
		t.Fatalf("the rotated key at the API: %d", status)
	}
	p.Go(rotation)
	if state := p.Attr("#rotation-state-text", "data-state"); state != string(sello.RotationReady) {
		t.Errorf("after the new key's first use the rotation's state is %q (%s), want %s", state, p.Text("#rotation-state-text"), sello.RotationReady)
	}
	if got := p.Text("#rotation-new-first-used"); got == "Todavía no" {
		t.Errorf("the rotation shows the new key's first use as %q", got)
	}
	p.Look("key-rotation-ready")
	p.Submit("#rotation-revoke-submit")
	if status, _ := s.API(t, key, "GET", documentsPath, nil); status != http.StatusUnauthorized {
		t.Errorf("the old key after the rotation's revocation: %d, want 401", status)
	}
	if status, _ := s.API(t, newKey, "GET", documentsPath, nil); status != http.StatusOK {
		t.Errorf("the new key after the rotation: %d, want 200", status)
	}

	// Revoke the new key from its own page, which warns it is in use.
	p.Go("/portal/claves")
	newCard := keyCard(t, p, "facturación")
	p.Submit("#revoke-" + strings.TrimPrefix(newCard, "#key-"))
	if !p.Has("#key-recently-used") {
		t.Error("the revocation of a key used minutes ago does not warn it is in use")
	}
	p.Look("key-revoke")
	p.Submit("#key-revoke-submit")
	if status, _ := s.API(t, newKey, "GET", documentsPath, nil); status != http.StatusUnauthorized {
		t.Errorf("the new key after its revocation: %d, want 401", status)
	}
	p.Go("/portal/claves")
	p.Look("keys-revoked")
}

// keyCard returns the selector (#key-ID) of the active key named name in
// the list on the page.
func keyCard(t *testing.T, p *browsertest.Page, name string) string {
	t.Helper()
	id := browsertest.Eval[string](p, fmt.Sprintf(`(() => {
		for (const li of document.querySelectorAll('li.card.key')) {
			if (li.querySelector('h3').innerText.includes(%q) && li.querySelector('[id^="rotate-"]')) return li.id;
		}
		return '';
	})()`, name))
	if id == "" {
		t.Fatalf("no active key %q on the page: %s", name, p.Body())
	}
	return "#" + id
}
