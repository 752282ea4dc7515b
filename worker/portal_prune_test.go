package worker_test

import (
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/storetest"
	"github.com/sello-do/sello/worker"
)

// TestPrunePortal: the periodic prune deletes a session once it is idle past
// sello.SessionIdle and a link once it expired, and keeps the live ones.
func TestPrunePortal(t *testing.T) {
	forEachStore(t, func(t *testing.T, st storetest.Store) {
		h := mustHookTest(t, st, worker.Config{})
		ctx := t.Context()
		now := h.now()
		u := &sello.User{Email: "prune@example.com", Language: "es"}
		if err := st.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		if err := st.PutMembership(ctx, &sello.Membership{TenantID: h.tenant.ID, UserID: u.ID, Role: sello.RoleOwner}); err != nil {
			t.Fatal(err)
		}
		_, sessionHash := sello.NewToken()
		s := &sello.Session{TokenHash: sessionHash, UserID: u.ID, TenantID: h.tenant.ID, CSRFToken: "csrf",
			CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(sello.SessionLifetime)}
		if err := st.CreateSession(ctx, s); err != nil {
			t.Fatal(err)
		}
		_, linkHash := sello.NewToken()
		l := &sello.OneTimeLink{TokenHash: linkHash, Purpose: sello.LinkReset, Email: u.Email, ExpiresAt: now.Add(sello.ResetTTL)}
		if err := st.CreateLink(ctx, l); err != nil {
			t.Fatal(err)
		}
		if sessions, links, err := h.w.PrunePortal(ctx); err != nil || sessions != 0 || links != 0 {
			t.Fatalf("at once: deleted %d sessions, %d links (%v), want none", sessions, links, err)
		}
		h.offset.Store(int64(sello.ResetTTL + time.Second))
		if sessions, links, err := h.w.PrunePortal(ctx); err != nil || sessions != 1 || links != 1 {
			t.Fatalf("an hour later: deleted %d sessions, %d links (%v), want 1 idle session and 1 expired link", sessions, links, err)
		}
		if _, err := st.FindSessionByTokenHash(ctx, sessionHash); sello.ErrorCodeOf(err) != sello.CodeNotFound {
			t.Errorf("the idle session is still stored: %v", err)
		}
	})
}
