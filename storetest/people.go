package storetest

import (
	"bytes"
	"fmt"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

// MustCreateUser creates a user with email and no password.
func MustCreateUser(tb testing.TB, s sello.Store, email string) *sello.User {
	tb.Helper()
	u := &sello.User{Email: email}
	if err := s.CreateUser(tb.Context(), u); err != nil {
		tb.Fatalf("CreateUser: %v", err)
	}
	return u
}

// MustPutMembership gives the user the role in the tenant.
func MustPutMembership(tb testing.TB, s sello.Store, tenantID, userID string, role sello.Role) *sello.Membership {
	tb.Helper()
	m := &sello.Membership{TenantID: tenantID, UserID: userID, Role: role}
	if err := s.PutMembership(tb.Context(), m); err != nil {
		tb.Fatalf("PutMembership %s: %v", role, err)
	}
	return m
}

// MustAppendAudit appends an entry of action by the actor to the tenant's
// chain.
func MustAppendAudit(tb testing.TB, s sello.Store, tenantID, actorID, action string) *sello.AuditEntry {
	tb.Helper()
	e := &sello.AuditEntry{TenantID: tenantID, ActorID: actorID, ActorEmail: actorID + "@example.com", Action: action, Target: "t-" + action, Address: "192.0.2.7"}
	if err := s.AppendAudit(tb.Context(), e); err != nil {
		tb.Fatalf("AppendAudit %s: %v", action, err)
	}
	return e
}

// race runs fn n times at once and returns how many calls returned nil
// and the other calls' errors.
func race(n int, fn func(i int) error) (ok int, errs []error) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			err := fn(i)
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				ok++
			} else {
				errs = append(errs, err)
			}
		})
	}
	close(start)
	wg.Wait()
	return ok, errs
}

func testPeople(t *testing.T, open Open) {
	t.Run("Users", func(t *testing.T) { testUsers(t, open) })
	t.Run("SecondFactor", func(t *testing.T) { testSecondFactor(t, open) })
	t.Run("Memberships", func(t *testing.T) { testMemberships(t, open) })
	t.Run("Sessions", func(t *testing.T) { testSessions(t, open) })
	t.Run("Links", func(t *testing.T) { testLinks(t, open) })
	t.Run("Audit", func(t *testing.T) { testAudit(t, open) })
	t.Run("Isolation", func(t *testing.T) { testPeopleIsolation(t, open) })
}

func testUsers(t *testing.T, open Open) {
	t.Run("OK", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		start := e.clock.Peek()
		u := &sello.User{Email: " Ana.Perez@Example.COM "}
		if err := e.s.CreateUser(ctx, u); err != nil {
			t.Fatalf("CreateUser: %v", err)
		}
		if u.ID == "" || u.Email != "ana.perez@example.com" || u.Language != "es" || !u.CreatedAt.Equal(start) {
			t.Errorf("created %+v; want an id, the email in lower case, language es, CreatedAt %v", u, start)
		}
		for _, find := range []func() (*sello.User, error){
			func() (*sello.User, error) { return e.s.FindUserByID(ctx, u.ID) },
			func() (*sello.User, error) { return e.s.FindUserByEmail(ctx, "ANA.perez@example.com") },
		} {
			got, err := find()
			if err != nil {
				t.Fatalf("find: %v", err)
			}
			deepEqual(t, "user", got, u)
		}
	})
	t.Run("Update", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		u := MustCreateUser(t, e.s, "ana@example.com")
		confirmed := e.clock.Now().Add(123 * time.Nanosecond)
		_, hashes := sello.NewRecoveryCodes()
		u.PasswordHash, u.Language, u.TOTPSecret, u.TOTPConfirmedAt, u.RecoveryCodeHashes = "$argon2id$v=19$m=19456,t=2,p=1$x$y", "en", []byte{1, 2, 3}, &confirmed, hashes
		if err := e.s.UpdateUser(ctx, u); err != nil {
			t.Fatalf("UpdateUser: %v", err)
		}
		if !u.TOTPConfirmedAt.Equal(confirmed.Truncate(time.Microsecond)) {
			t.Errorf("TOTPConfirmedAt: got %v, want the stored precision", u.TOTPConfirmedAt)
		}
		got, err := e.s.FindUserByID(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		deepEqual(t, "updated user", got, u)
		// Removing the second factor clears it.
		u.TOTPSecret, u.TOTPConfirmedAt, u.RecoveryCodeHashes = nil, nil, nil
		if err := e.s.UpdateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		if got, _ = e.s.FindUserByID(ctx, u.ID); got.TOTPSecret != nil || got.TOTPConfirmedAt != nil || got.RecoveryCodeHashes != nil {
			t.Errorf("second factor after removal: %x, %v, %d codes", got.TOTPSecret, got.TOTPConfirmedAt, len(got.RecoveryCodeHashes))
		}
	})
	t.Run("ErrDuplicateEmail", func(t *testing.T) {
		e := newEnv(t, open)
		MustCreateUser(t, e.s, "ana@example.com")
		wantError(t, e.s.CreateUser(t.Context(), &sello.User{Email: "ANA@example.com"}), sello.CodeConflict, "ana@example.com")
	})
	t.Run("ErrBadEmail", func(t *testing.T) {
		e := newEnv(t, open)
		wantError(t, e.s.CreateUser(t.Context(), &sello.User{Email: "ana"}), sello.CodeInvalidRequest, "not an email")
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		_, err := e.s.FindUserByID(ctx, "nope")
		wantError(t, err, sello.CodeNotFound, "User")
		_, err = e.s.FindUserByEmail(ctx, "nadie@example.com")
		wantError(t, err, sello.CodeNotFound, "User")
		wantError(t, e.s.UpdateUser(ctx, &sello.User{ID: "nope", Language: "es"}), sello.CodeNotFound, "User")
	})
}

func testSecondFactor(t *testing.T, open Open) {
	mk, err := sello.NewMasterKey(bytes.Repeat([]byte{9}, 32))
	if err != nil {
		t.Fatal(err)
	}
	// newUser returns a user with a confirmed second factor and its
	// secret and recovery codes.
	newUser := func(t *testing.T, e env) (*sello.User, []byte, []string) {
		t.Helper()
		u := MustCreateUser(t, e.s, "ana@example.com")
		secret := sello.NewTOTPSecret()
		codes, hashes := sello.NewRecoveryCodes()
		now := e.clock.Now()
		u.TOTPSecret, u.TOTPConfirmedAt, u.RecoveryCodeHashes = sello.SealTOTPSecret(mk, u.ID, secret), &now, hashes
		if err := e.s.UpdateUser(t.Context(), u); err != nil {
			t.Fatal(err)
		}
		return u, secret, codes
	}
	t.Run("Required", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		a, b := MustCreateTenant(t, e.s), MustCreateTenant(t, e.s)
		if on, err := e.s.SecondFactorRequired(ctx, a.ID); on || err != nil {
			t.Fatalf("a new tenant: %v, %v; want not required", on, err)
		}
		if err := e.s.SetSecondFactorRequired(ctx, a.ID, true); err != nil {
			t.Fatal(err)
		}
		if on, err := e.s.SecondFactorRequired(ctx, a.ID); !on || err != nil {
			t.Fatalf("after set: %v, %v; want required", on, err)
		}
		if on, _ := e.s.SecondFactorRequired(ctx, b.ID); on {
			t.Fatal("another tenant's setting changed too")
		}
		if err := e.s.SetSecondFactorRequired(ctx, a.ID, false); err != nil {
			t.Fatal(err)
		}
		if on, _ := e.s.SecondFactorRequired(ctx, a.ID); on {
			t.Fatal("still required after unset")
		}
		wantError(t, e.s.SetSecondFactorRequired(ctx, "nope", true), sello.CodeNotFound, "nope")
		_, err := e.s.SecondFactorRequired(ctx, "nope")
		wantError(t, err, sello.CodeNotFound, "nope")
	})
	t.Run("UseTOTPStep", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		u := MustCreateUser(t, e.s, "ana@example.com")
		if err := e.s.UseTOTPStep(ctx, u.ID, 100); err != nil {
			t.Fatalf("UseTOTPStep 100: %v", err)
		}
		wantError(t, e.s.UseTOTPStep(ctx, u.ID, 100), sello.CodeConflict, "used")
		wantError(t, e.s.UseTOTPStep(ctx, u.ID, 99), sello.CodeConflict, "used")
		if err := e.s.UseTOTPStep(ctx, u.ID, 101); err != nil {
			t.Fatalf("UseTOTPStep 101: %v", err)
		}
		if got, _ := e.s.FindUserByID(ctx, u.ID); got.TOTPLastStep != 101 {
			t.Errorf("TOTPLastStep: got %d, want 101", got.TOTPLastStep)
		}
		// UpdateUser leaves the step alone.
		u.Language = "en"
		if err := e.s.UpdateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		if got, _ := e.s.FindUserByID(ctx, u.ID); got.TOTPLastStep != 101 {
			t.Errorf("TOTPLastStep after UpdateUser with a stale user: got %d, want 101", got.TOTPLastStep)
		}
		wantError(t, e.s.UseTOTPStep(ctx, "nope", 1), sello.CodeNotFound, "User")
	})
	t.Run("UseTOTPStepRace", func(t *testing.T) {
		e := newEnv(t, open)
		u := MustCreateUser(t, e.s, "ana@example.com")
		ok, errs := race(8, func(int) error { return e.s.UseTOTPStep(t.Context(), u.ID, 500) })
		if ok != 1 {
			t.Fatalf("%d of 8 concurrent uses of one step succeeded (%v); want 1", ok, errs)
		}
		for _, err := range errs {
			wantError(t, err, sello.CodeConflict, "used")
		}
	})
	t.Run("UseRecoveryCodeRace", func(t *testing.T) {
		e := newEnv(t, open)
		u, _, codes := newUser(t, e)
		h := sello.HashRecoveryCode(codes[3])
		ok, errs := race(8, func(int) error { return e.s.UseRecoveryCode(t.Context(), u.ID, h) })
		if ok != 1 {
			t.Fatalf("%d of 8 concurrent uses of one recovery code succeeded (%v); want 1", ok, errs)
		}
		for _, err := range errs {
			wantError(t, err, sello.CodeNotFound, "recovery code")
		}
		got, _ := e.s.FindUserByID(t.Context(), u.ID)
		if len(got.RecoveryCodeHashes) != sello.RecoveryCodeCount-1 {
			t.Fatalf("%d codes left; want %d", len(got.RecoveryCodeHashes), sello.RecoveryCodeCount-1)
		}
		for _, x := range got.RecoveryCodeHashes {
			if bytes.Equal(x, h) {
				t.Fatal("the used code is still there")
			}
		}
	})
	t.Run("CheckSecondFactor", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		u, secret, codes := newUser(t, e)
		now := time.Unix(1_800_000_000, 0)
		code := sello.TOTPCode(secret, sello.TOTPStep(now))
		if err := sello.CheckSecondFactor(ctx, e.s, mk, u, code, now); err != nil {
			t.Fatalf("TOTP code: %v", err)
		}
		// The same code again, from a stale copy of the user too.
		stale, _ := e.s.FindUserByID(ctx, u.ID)
		stale.TOTPLastStep = 0
		for _, user := range []*sello.User{u, stale} {
			wantError(t, sello.CheckSecondFactor(ctx, e.s, mk, user, code, now), sello.CodeUnauthenticated, "used already")
		}
		// The next step's code works.
		if err := sello.CheckSecondFactor(ctx, e.s, mk, u, sello.TOTPCode(secret, sello.TOTPStep(now)+1), now); err != nil {
			t.Fatalf("next step's code: %v", err)
		}
		wantError(t, sello.CheckSecondFactor(ctx, e.s, mk, u, "000000", now.Add(time.Hour)), sello.CodeUnauthenticated, "wrong")
		// A recovery code works once, typed in capitals too.
		if err := sello.CheckSecondFactor(ctx, e.s, mk, u, " "+codes[0]+" ", now); err != nil {
			t.Fatalf("recovery code: %v", err)
		}
		if len(u.RecoveryCodeHashes) != sello.RecoveryCodeCount-1 {
			t.Errorf("the user keeps %d codes; want %d", len(u.RecoveryCodeHashes), sello.RecoveryCodeCount-1)
		}
		for _, c := range []string{codes[0], "aaaa-bbbb-cccc-dddd"} {
			wantError(t, sello.CheckSecondFactor(ctx, e.s, mk, u, c, now), sello.CodeUnauthenticated, "wrong")
		}
		other := MustCreateUser(t, e.s, "luis@example.com")
		wantError(t, sello.CheckSecondFactor(ctx, e.s, mk, other, code, now), sello.CodeInvalidRequest, "no second factor")
	})
}

func testMemberships(t *testing.T, open Open) {
	t.Run("OK", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		a, b := MustCreateTenant(t, e.s), MustCreateTenant(t, e.s)
		zoe, ana := MustCreateUser(t, e.s, "zoe@example.com"), MustCreateUser(t, e.s, "ana@example.com")
		start := e.clock.Peek()
		m := MustPutMembership(t, e.s, a.ID, zoe.ID, sello.RoleOwner)
		if m.Email != "zoe@example.com" || !m.CreatedAt.Equal(start) {
			t.Errorf("membership %+v: want the user's email and CreatedAt %v", m, start)
		}
		MustPutMembership(t, e.s, a.ID, ana.ID, sello.RoleDeveloper)
		MustPutMembership(t, e.s, b.ID, zoe.ID, sello.RoleOwner)
		// A change of role keeps the membership's CreatedAt.
		changed := MustPutMembership(t, e.s, a.ID, ana.ID, sello.RoleAccountant)
		got, err := e.s.FindMemberships(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].Email != "ana@example.com" || got[0].Role != sello.RoleAccountant || got[1].Email != "zoe@example.com" || got[1].Role != sello.RoleOwner {
			t.Fatalf("members of a: %v; want ana (accountant) then zoe (owner)", memberList(got))
		}
		deepEqual(t, "changed membership", got[0], changed)
		mine, err := e.s.FindUserMemberships(ctx, zoe.ID)
		if err != nil || len(mine) != 2 || mine[0].TenantID != a.ID || mine[1].TenantID != b.ID {
			t.Fatalf("zoe's tenants: %v, %v; want a then b", memberList(mine), err)
		}
		if err := e.s.DeleteMembership(ctx, a.ID, ana.ID); err != nil {
			t.Fatalf("DeleteMembership: %v", err)
		}
		if got, _ := e.s.FindMemberships(ctx, a.ID); len(got) != 1 {
			t.Fatalf("members after delete: %v", memberList(got))
		}
		wantError(t, e.s.DeleteMembership(ctx, a.ID, ana.ID), sello.CodeNotFound, "not a member")
	})
	t.Run("ErrLastOwner", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		zoe, ana := MustCreateUser(t, e.s, "zoe@example.com"), MustCreateUser(t, e.s, "ana@example.com")
		// A first member who is not an owner would leave the tenant without one.
		wantError(t, e.s.PutMembership(ctx, &sello.Membership{TenantID: tn.ID, UserID: ana.ID, Role: sello.RoleAdmin}), sello.CodeConflict, "owner")
		MustPutMembership(t, e.s, tn.ID, zoe.ID, sello.RoleOwner)
		MustPutMembership(t, e.s, tn.ID, ana.ID, sello.RoleAdmin)
		wantError(t, e.s.PutMembership(ctx, &sello.Membership{TenantID: tn.ID, UserID: zoe.ID, Role: sello.RoleAdmin}), sello.CodeConflict, "owner")
		wantError(t, e.s.DeleteMembership(ctx, tn.ID, zoe.ID), sello.CodeConflict, "owner")
		got, _ := e.s.FindMemberships(ctx, tn.ID)
		if len(got) != 2 || got[1].Role != sello.RoleOwner {
			t.Fatalf("members after refusals: %v; want the owner unchanged", memberList(got))
		}
		// With a second owner the first may go.
		MustPutMembership(t, e.s, tn.ID, ana.ID, sello.RoleOwner)
		if err := e.s.DeleteMembership(ctx, tn.ID, zoe.ID); err != nil {
			t.Fatalf("DeleteMembership of one of two owners: %v", err)
		}
		// The last member, an owner, may not leave either.
		wantError(t, e.s.DeleteMembership(ctx, tn.ID, ana.ID), sello.CodeConflict, "owner")
	})
	t.Run("ErrLastOwnerRace", func(t *testing.T) {
		// Two owners demote each other at once: one demotion succeeds.
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		var ids []string
		for i := range 4 {
			u := MustCreateUser(t, e.s, fmt.Sprintf("owner%d@example.com", i))
			MustPutMembership(t, e.s, tn.ID, u.ID, sello.RoleOwner)
			ids = append(ids, u.ID)
		}
		ok, errs := race(len(ids), func(i int) error {
			if i%2 == 0 {
				return e.s.DeleteMembership(t.Context(), tn.ID, ids[i])
			}
			return e.s.PutMembership(t.Context(), &sello.Membership{TenantID: tn.ID, UserID: ids[i], Role: sello.RoleDeveloper})
		})
		if ok != 3 || len(errs) != 1 {
			t.Fatalf("%d of 4 concurrent demotions succeeded (%v); want 3", ok, errs)
		}
		wantError(t, errs[0], sello.CodeConflict, "owner")
		owners := 0
		got, _ := e.s.FindMemberships(t.Context(), tn.ID)
		for _, m := range got {
			if m.Role == sello.RoleOwner {
				owners++
			}
		}
		if owners != 1 {
			t.Fatalf("owners after the race: %d (%v); want 1", owners, memberList(got))
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		u := MustCreateUser(t, e.s, "ana@example.com")
		wantError(t, e.s.PutMembership(ctx, &sello.Membership{TenantID: "nope", UserID: u.ID, Role: sello.RoleOwner}), sello.CodeNotFound, "nope")
		wantError(t, e.s.PutMembership(ctx, &sello.Membership{TenantID: tn.ID, UserID: "nope", Role: sello.RoleOwner}), sello.CodeNotFound, "nope")
		wantError(t, e.s.PutMembership(ctx, &sello.Membership{TenantID: tn.ID, UserID: u.ID, Role: "root"}), sello.CodeInvalidRequest, "root")
		wantError(t, e.s.DeleteMembership(ctx, tn.ID, u.ID), sello.CodeNotFound, "not a member")
	})
}

func memberList(ms []*sello.Membership) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Email+":"+string(m.Role)+"@"+m.TenantID)
	}
	return out
}

func testSessions(t *testing.T, open Open) {
	newSession := func(t *testing.T, e env, userID, tenantID string) (*sello.Session, string) {
		t.Helper()
		token, hash := sello.NewToken()
		s := &sello.Session{TokenHash: hash, UserID: userID, TenantID: tenantID, CSRFToken: "csrf-" + token[:8],
			Address: netip.MustParseAddr("2001:db8::7"), UserAgent: "Mozilla/5.0"}
		if err := e.s.CreateSession(t.Context(), s); err != nil {
			t.Fatalf("CreateSession: %v", err)
		}
		return s, token
	}
	t.Run("OK", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		u := MustCreateUser(t, e.s, "ana@example.com")
		start := e.clock.Peek()
		s, token := newSession(t, e, u.ID, tn.ID)
		if s.ID == "" || !s.CreatedAt.Equal(start) || !s.LastSeenAt.Equal(start) || !s.ExpiresAt.Equal(start.Add(sello.SessionLifetime)) {
			t.Errorf("session %+v: want an id, CreatedAt and LastSeenAt %v, ExpiresAt 12 h later", s, start)
		}
		got, err := e.s.FindSessionByTokenHash(ctx, sello.HashToken(token))
		if err != nil {
			t.Fatal(err)
		}
		deepEqual(t, "session", got, s)

		seen := start.Add(10 * time.Minute)
		if err := e.s.TouchSession(ctx, s.ID, seen); err != nil {
			t.Fatalf("TouchSession: %v", err)
		}
		other := MustCreateTenant(t, e.s)
		factor := start.Add(time.Minute)
		s.TenantID, s.SecondFactorAt = other.ID, &factor
		if err := e.s.UpdateSession(ctx, s); err != nil {
			t.Fatalf("UpdateSession: %v", err)
		}
		got, _ = e.s.FindSessionByTokenHash(ctx, s.TokenHash)
		if !got.LastSeenAt.Equal(seen) || got.TenantID != other.ID || got.SecondFactorAt == nil || !got.SecondFactorAt.Equal(factor) {
			t.Errorf("after touch and update: %+v", got)
		}
		// No tenant to work in is kept too.
		s.TenantID = ""
		if err := e.s.UpdateSession(ctx, s); err != nil {
			t.Fatal(err)
		}
		if got, _ = e.s.FindSessionByTokenHash(ctx, s.TokenHash); got.TenantID != "" {
			t.Errorf("TenantID: got %q, want none", got.TenantID)
		}

		revoked := start.Add(20 * time.Minute)
		if err := e.s.RevokeSession(ctx, s.ID, revoked); err != nil {
			t.Fatal(err)
		}
		if err := e.s.RevokeSession(ctx, s.ID, revoked.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if got, _ = e.s.FindSessionByTokenHash(ctx, s.TokenHash); got.RevokedAt == nil || !got.RevokedAt.Equal(revoked) {
			t.Errorf("RevokedAt: got %v, want %v (the first revocation)", got.RevokedAt, revoked)
		}
	})
	t.Run("RevokeUserSessions", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		ana, luis := MustCreateUser(t, e.s, "ana@example.com"), MustCreateUser(t, e.s, "luis@example.com")
		keep, _ := newSession(t, e, ana.ID, "")
		gone1, _ := newSession(t, e, ana.ID, "")
		gone2, _ := newSession(t, e, ana.ID, "")
		others, _ := newSession(t, e, luis.ID, "")
		now := e.clock.Now()
		if err := e.s.RevokeUserSessions(ctx, ana.ID, keep.ID, now); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			s       *sello.Session
			revoked bool
		}{{keep, false}, {gone1, true}, {gone2, true}, {others, false}} {
			got, _ := e.s.FindSessionByTokenHash(ctx, c.s.TokenHash)
			if (got.RevokedAt != nil) != c.revoked {
				t.Errorf("session %s: revoked %v, want %v", got.ID, got.RevokedAt, c.revoked)
			}
		}
		if err := e.s.RevokeUserSessions(ctx, ana.ID, "", now); err != nil {
			t.Fatal(err)
		}
		if got, _ := e.s.FindSessionByTokenHash(ctx, keep.TokenHash); got.RevokedAt == nil {
			t.Error("logout everywhere kept a session")
		}
	})
	t.Run("Prune", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		u := MustCreateUser(t, e.s, "ana@example.com")
		live, _ := newSession(t, e, u.ID, "")
		idle, _ := newSession(t, e, u.ID, "")
		revoked, _ := newSession(t, e, u.ID, "")
		now := live.CreatedAt.Add(time.Hour)
		_, hash := sello.NewToken()
		expired := &sello.Session{TokenHash: hash, UserID: u.ID, CreatedAt: now.Add(-time.Hour), LastSeenAt: now, ExpiresAt: now}
		if err := e.s.CreateSession(ctx, expired); err != nil {
			t.Fatal(err)
		}
		for _, err := range []error{
			e.s.TouchSession(ctx, live.ID, now.Add(-time.Minute)),
			e.s.TouchSession(ctx, idle.ID, now.Add(-sello.SessionIdle-time.Second)),
			e.s.TouchSession(ctx, revoked.ID, now),
			e.s.RevokeSession(ctx, revoked.ID, now),
		} {
			if err != nil {
				t.Fatal(err)
			}
		}
		n, err := e.s.PruneSessions(ctx, now, now.Add(-sello.SessionIdle))
		if err != nil || n != 3 {
			t.Fatalf("PruneSessions: %d, %v; want 3 (idle, expired, revoked)", n, err)
		}
		if _, err := e.s.FindSessionByTokenHash(ctx, live.TokenHash); err != nil {
			t.Errorf("the live session was pruned: %v", err)
		}
	})
	t.Run("Errors", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		u := MustCreateUser(t, e.s, "ana@example.com")
		s, _ := newSession(t, e, u.ID, "")
		_, err := e.s.FindSessionByTokenHash(ctx, sello.HashToken("nope"))
		wantError(t, err, sello.CodeNotFound, "Session")
		dup := &sello.Session{TokenHash: s.TokenHash, UserID: u.ID}
		wantError(t, e.s.CreateSession(ctx, dup), sello.CodeConflict, "token hash")
		_, hash := sello.NewToken()
		wantError(t, e.s.CreateSession(ctx, &sello.Session{TokenHash: hash, UserID: "nope"}), sello.CodeNotFound, "user")
		wantError(t, e.s.CreateSession(ctx, &sello.Session{UserID: u.ID}), sello.CodeInvalidRequest, "token hash")
		wantError(t, e.s.TouchSession(ctx, "nope", time.Now()), sello.CodeNotFound, "Session")
		wantError(t, e.s.RevokeSession(ctx, "nope", time.Now()), sello.CodeNotFound, "Session")
		wantError(t, e.s.UpdateSession(ctx, &sello.Session{ID: "nope"}), sello.CodeNotFound, "Session")
	})
}

func testLinks(t *testing.T, open Open) {
	newLink := func(t *testing.T, e env, l *sello.OneTimeLink) string {
		t.Helper()
		token, hash := sello.NewToken()
		l.TokenHash = hash
		if err := e.s.CreateLink(t.Context(), l); err != nil {
			t.Fatalf("CreateLink: %v", err)
		}
		return token
	}
	t.Run("OK", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		start := e.clock.Peek()
		l := &sello.OneTimeLink{Purpose: sello.LinkInvite, Email: "Ana@Example.com", TenantID: tn.ID, Role: sello.RoleOwner, ExpiresAt: start.Add(sello.InviteTTL)}
		token := newLink(t, e, l)
		if l.ID == "" || !l.CreatedAt.Equal(start) || l.Email != "ana@example.com" {
			t.Errorf("link %+v: want an id, CreatedAt %v, the email in lower case", l, start)
		}
		got, err := e.s.FindLink(ctx, sello.HashToken(token), start.Add(time.Hour))
		if err != nil {
			t.Fatalf("FindLink: %v", err)
		}
		deepEqual(t, "found link", got, l)
		used := start.Add(2 * time.Hour)
		got, err = e.s.UseLink(ctx, sello.HashToken(token), used)
		if err != nil {
			t.Fatalf("UseLink: %v", err)
		}
		want := *l
		want.UsedAt = &used
		deepEqual(t, "used link", got, &want)
		_, err = e.s.UseLink(ctx, sello.HashToken(token), used.Add(time.Second))
		wantError(t, err, sello.CodeNotFound, "used")
		_, err = e.s.FindLink(ctx, sello.HashToken(token), used.Add(time.Second))
		wantError(t, err, sello.CodeNotFound, "used")

		reset := &sello.OneTimeLink{Purpose: sello.LinkReset, Email: "ana@example.com", CreatedBy: "", ExpiresAt: start.Add(sello.ResetTTL)}
		rt := newLink(t, e, reset)
		if got, err := e.s.UseLink(ctx, sello.HashToken(rt), start.Add(time.Minute)); err != nil || got.Purpose != sello.LinkReset || got.TenantID != "" || got.Role != "" {
			t.Fatalf("UseLink reset: %+v, %v", got, err)
		}
	})
	t.Run("ErrExpired", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		expires := e.clock.Now().Add(time.Hour)
		token := newLink(t, e, &sello.OneTimeLink{Purpose: sello.LinkReset, Email: "ana@example.com", ExpiresAt: expires})
		_, err := e.s.FindLink(ctx, sello.HashToken(token), expires)
		wantError(t, err, sello.CodeNotFound, "expired")
		_, err = e.s.UseLink(ctx, sello.HashToken(token), expires)
		wantError(t, err, sello.CodeNotFound, "expired")
		if _, err := e.s.UseLink(ctx, sello.HashToken(token), expires.Add(-time.Microsecond)); err != nil {
			t.Fatalf("UseLink just before expiry: %v", err)
		}
	})
	t.Run("UseOnceRace", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		now := e.clock.Now()
		token := newLink(t, e, &sello.OneTimeLink{Purpose: sello.LinkInvite, Email: "ana@example.com", TenantID: tn.ID, Role: sello.RoleAdmin, ExpiresAt: now.Add(time.Hour)})
		ok, errs := race(8, func(i int) error {
			_, err := e.s.UseLink(t.Context(), sello.HashToken(token), now.Add(time.Duration(i)*time.Second))
			return err
		})
		if ok != 1 {
			t.Fatalf("%d of 8 concurrent uses of one link succeeded (%v); want 1", ok, errs)
		}
		for _, err := range errs {
			wantError(t, err, sello.CodeNotFound, "used")
		}
	})
	t.Run("Prune", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		now := e.clock.Now()
		live := newLink(t, e, &sello.OneTimeLink{Purpose: sello.LinkReset, Email: "a@example.com", ExpiresAt: now.Add(time.Hour)})
		used := newLink(t, e, &sello.OneTimeLink{Purpose: sello.LinkReset, Email: "b@example.com", ExpiresAt: now.Add(time.Hour)})
		newLink(t, e, &sello.OneTimeLink{Purpose: sello.LinkReset, Email: "c@example.com", ExpiresAt: now.Add(time.Minute)})
		if _, err := e.s.UseLink(ctx, sello.HashToken(used), now); err != nil {
			t.Fatal(err)
		}
		n, err := e.s.PruneLinks(ctx, now.Add(2*time.Minute))
		if err != nil || n != 2 {
			t.Fatalf("PruneLinks: %d, %v; want 2 (used, expired)", n, err)
		}
		if _, err := e.s.FindLink(ctx, sello.HashToken(live), now.Add(2*time.Minute)); err != nil {
			t.Errorf("the live link was pruned: %v", err)
		}
	})
	t.Run("Errors", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		exp := e.clock.Now().Add(time.Hour)
		_, hash := sello.NewToken()
		for _, c := range []struct {
			l   sello.OneTimeLink
			msg string
		}{
			{sello.OneTimeLink{Purpose: sello.LinkInvite, Email: "a@example.com", Role: sello.RoleOwner, ExpiresAt: exp}, "needs a tenant"},
			{sello.OneTimeLink{Purpose: sello.LinkInvite, Email: "a@example.com", TenantID: tn.ID, Role: "root", ExpiresAt: exp}, "root"},
			{sello.OneTimeLink{Purpose: sello.LinkReset, Email: "a@example.com", TenantID: tn.ID, ExpiresAt: exp}, "no tenant"},
			{sello.OneTimeLink{Purpose: "login", Email: "a@example.com", ExpiresAt: exp}, "login"},
			{sello.OneTimeLink{Purpose: sello.LinkReset, Email: "a", ExpiresAt: exp}, "not an email"},
			{sello.OneTimeLink{Purpose: sello.LinkReset, Email: "a@example.com"}, "expiry"},
		} {
			l := c.l
			l.TokenHash = hash
			wantError(t, e.s.CreateLink(ctx, &l), sello.CodeInvalidRequest, c.msg)
		}
		wantError(t, e.s.CreateLink(ctx, &sello.OneTimeLink{TokenHash: hash, Purpose: sello.LinkInvite, Email: "a@example.com", TenantID: "nope", Role: sello.RoleOwner, ExpiresAt: exp}), sello.CodeNotFound, "nope")
		newLink(t, e, &sello.OneTimeLink{Purpose: sello.LinkReset, Email: "a@example.com", ExpiresAt: exp})
		l := &sello.OneTimeLink{Purpose: sello.LinkReset, Email: "a@example.com", ExpiresAt: exp}
		token := newLink(t, e, l)
		dup := *l
		wantError(t, e.s.CreateLink(ctx, &dup), sello.CodeConflict, "token hash")
		_, err := e.s.UseLink(ctx, sello.HashToken(token+"x"), exp.Add(-time.Minute))
		wantError(t, err, sello.CodeNotFound, "unknown")
	})
}

func testAudit(t *testing.T, open Open) {
	t.Run("OK", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		start := e.clock.Peek()
		first := &sello.AuditEntry{TenantID: tn.ID, ActorID: "u1", ActorEmail: "ana@example.com", Action: "api_key.created", Target: "k1",
			Address: "2001:db8::1", After: []byte(`{"name": "ERP",  "scopes":["ecf:create"]}`)}
		if err := e.s.AppendAudit(ctx, first); err != nil {
			t.Fatalf("AppendAudit: %v", err)
		}
		if first.Seq != 1 || first.ID == "" || first.PrevHash != nil || !first.At.Equal(start) || !bytes.Equal(first.Hash, sello.AuditHash(nil, first)) {
			t.Errorf("first entry %+v: want seq 1, an id, no previous hash, At %v, its hash", first, start)
		}
		at := time.Date(2026, 3, 10, 18, 30, 0, 123456789, time.UTC)
		second := &sello.AuditEntry{TenantID: tn.ID, ActorEmail: "operator", Action: "user.invited", Target: "ana@example.com",
			Before: []byte{}, At: at}
		if err := e.s.AppendAudit(ctx, second); err != nil {
			t.Fatal(err)
		}
		if second.Seq != 2 || !bytes.Equal(second.PrevHash, first.Hash) || !second.At.Equal(at.Truncate(time.Microsecond)) || second.Before != nil {
			t.Errorf("second entry %+v: want seq 2 after the first's hash, At to the microsecond, no before", second)
		}
		third := MustAppendAudit(t, e.s, tn.ID, "u2", "api_key.revoked")
		chain, err := e.s.AuditChain(ctx, tn.ID)
		if err != nil {
			t.Fatal(err)
		}
		deepEqual(t, "chain", chain, []*sello.AuditEntry{first, second, third})
		if err := sello.VerifyAuditChain(chain); err != nil {
			t.Fatalf("VerifyAuditChain of the stored chain: %v", err)
		}
	})
	t.Run("Find", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		var all []*sello.AuditEntry
		for i, a := range []string{"api_key.created", "webhook.created", "api_key.revoked", "user.invited", "api_key.created"} {
			all = append(all, MustAppendAudit(t, e.s, tn.ID, fmt.Sprintf("u%d", i%2), a))
		}
		seqs := func(f sello.AuditFilter) []int64 {
			t.Helper()
			got, err := e.s.FindAudit(ctx, tn.ID, f)
			if err != nil {
				t.Fatalf("FindAudit %+v: %v", f, err)
			}
			var out []int64
			for _, x := range got {
				out = append(out, x.Seq)
			}
			return out
		}
		deepEqual(t, "all, newest first", seqs(sello.AuditFilter{}), []int64{5, 4, 3, 2, 1})
		deepEqual(t, "actor u0", seqs(sello.AuditFilter{ActorID: "u0"}), []int64{5, 3, 1})
		deepEqual(t, "action api_key.", seqs(sello.AuditFilter{Action: "api_key."}), []int64{5, 3, 1})
		deepEqual(t, "action with LIKE's characters", seqs(sello.AuditFilter{Action: "api%"}), []int64(nil))
		deepEqual(t, "since the third", seqs(sello.AuditFilter{Since: all[2].At}), []int64{5, 4, 3})
		deepEqual(t, "before 4, 2 at most", seqs(sello.AuditFilter{Before: 4, Limit: 2}), []int64{3, 2})
		deepEqual(t, "actor u1 and action user.", seqs(sello.AuditFilter{ActorID: "u1", Action: "user."}), []int64{4})
	})
	t.Run("ConcurrentAppends", func(t *testing.T) {
		// Appends at once to two tenants' chains never fork them: each
		// chain counts 1..n and verifies.
		e := newEnv(t, open)
		a, b := MustCreateTenant(t, e.s), MustCreateTenant(t, e.s)
		const n = 24
		ok, errs := race(n, func(i int) error {
			tn := a
			if i%3 == 0 {
				tn = b
			}
			return e.s.AppendAudit(t.Context(), &sello.AuditEntry{TenantID: tn.ID, ActorID: fmt.Sprint("u", i), ActorEmail: "x@example.com", Action: "test.appended"})
		})
		if ok != n {
			t.Fatalf("%d of %d concurrent appends succeeded: %v", ok, n, errs)
		}
		for tn, want := range map[string]int{a.ID: n - n/3, b.ID: n / 3} {
			chain, err := e.s.AuditChain(t.Context(), tn)
			if err != nil {
				t.Fatal(err)
			}
			if len(chain) != want {
				t.Fatalf("chain of %s: %d entries, want %d", tn, len(chain), want)
			}
			if err := sello.VerifyAuditChain(chain); err != nil {
				t.Fatalf("chain of %s: %v", tn, err)
			}
		}
	})
	t.Run("Errors", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		wantError(t, e.s.AppendAudit(ctx, &sello.AuditEntry{TenantID: "nope", Action: "x.y"}), sello.CodeNotFound, "nope")
		wantError(t, e.s.AppendAudit(ctx, &sello.AuditEntry{TenantID: tn.ID}), sello.CodeInvalidRequest, "action")
		// The failures took no seq.
		if e := MustAppendAudit(t, e.s, tn.ID, "u1", "x.y"); e.Seq != 1 {
			t.Fatalf("first entry after failures: seq %d, want 1", e.Seq)
		}
	})
}

// testPeopleIsolation: one tenant's members, audit entries and chain are
// never seen or changed from another.
func testPeopleIsolation(t *testing.T, open Open) {
	e := newEnv(t, open)
	ctx := t.Context()
	a, b := MustCreateTenant(t, e.s), MustCreateTenant(t, e.s)
	ana, luis := MustCreateUser(t, e.s, "ana@example.com"), MustCreateUser(t, e.s, "luis@example.com")
	MustPutMembership(t, e.s, a.ID, ana.ID, sello.RoleOwner)
	MustPutMembership(t, e.s, b.ID, luis.ID, sello.RoleOwner)
	for range 3 {
		MustAppendAudit(t, e.s, a.ID, ana.ID, "api_key.created")
	}
	MustAppendAudit(t, e.s, b.ID, luis.ID, "webhook.created")

	if got, err := e.s.FindMemberships(ctx, b.ID); err != nil || len(got) != 1 || got[0].UserID != luis.ID {
		t.Errorf("b's members: %v, %v; want luis alone", memberList(got), err)
	}
	if got, err := e.s.FindUserMemberships(ctx, ana.ID); err != nil || len(got) != 1 || got[0].TenantID != a.ID {
		t.Errorf("ana's tenants: %v, %v; want a alone", memberList(got), err)
	}
	wantError(t, e.s.DeleteMembership(ctx, b.ID, ana.ID), sello.CodeNotFound, "not a member")
	got, err := e.s.FindAudit(ctx, b.ID, sello.AuditFilter{ActorID: ana.ID})
	if err != nil || len(got) != 0 {
		t.Errorf("b's audit by ana: %d entries, %v; want none", len(got), err)
	}
	got, err = e.s.FindAudit(ctx, b.ID, sello.AuditFilter{})
	if err != nil || len(got) != 1 || got[0].TenantID != b.ID || got[0].Seq != 1 {
		t.Errorf("b's audit: %d entries, %v; want its one entry", len(got), err)
	}
	for tn, want := range map[string]int{a.ID: 3, b.ID: 1} {
		chain, err := e.s.AuditChain(ctx, tn)
		if err != nil || len(chain) != want || sello.VerifyAuditChain(chain) != nil {
			t.Errorf("chain of %s: %d entries, %v; want %d, whole", tn, len(chain), err, want)
		}
		for _, x := range chain {
			if x.TenantID != tn {
				t.Errorf("chain of %s holds an entry of %s", tn, x.TenantID)
			}
		}
	}
}
