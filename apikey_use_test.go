package sello_test

import (
	"testing"
	"time"

	"github.com/sello-do/sello"
)

// TestNewAPIKeyRotation: the state of a rotation from the keys' times
// alone, and the pairs that are no rotation.
func TestNewAPIKeyRotation(t *testing.T) {
	now := time.Date(2026, 11, 26, 18, 5, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { t := now.Add(d); return &t }
	key := func(id string, first, last *time.Time) *sello.APIKey {
		return &sello.APIKey{ID: id, Environment: sello.EnvProd, FirstUsedAt: first, LastUsedAt: last, CreatedAt: now.Add(-24 * time.Hour)}
	}
	for _, tt := range []struct {
		name     string
		old, nw  *sello.APIKey
		want     sello.APIKeyRotationState
		oldSince bool
	}{
		{"NewUnused", key("o", at(-time.Hour), at(-time.Second)), key("n", nil, nil), sello.RotationNewUnused, false},
		{"NewUnusedOldNeverUsed", key("o", nil, nil), key("n", nil, nil), sello.RotationNewUnused, false},
		{"OldInUse", key("o", at(-time.Hour), at(-time.Minute)), key("n", at(-10*time.Minute), at(-time.Second)), sello.RotationOldInUse, true},
		// Used before the new key's first use, but too recently to tell.
		{"OldRecent", key("o", at(-time.Hour), at(-90*time.Second)), key("n", at(-80*time.Second), at(-time.Second)), sello.RotationOldInUse, false},
		{"Ready", key("o", at(-time.Hour), at(-15*time.Minute)), key("n", at(-10*time.Minute), at(-time.Second)), sello.RotationReady, false},
		{"ReadyQuietJustLongEnough", key("o", at(-time.Hour), at(-sello.APIKeyRotationQuiet)), key("n", at(-10*time.Minute), at(-time.Second)), sello.RotationReady, true},
		{"ReadyOldUsedLate", key("o", at(-time.Hour), at(-5*time.Minute)), key("n", at(-10*time.Minute), at(-time.Second)), sello.RotationReady, true},
		{"ReadyOldNeverUsed", key("o", nil, nil), key("n", at(-10*time.Minute), at(-time.Second)), sello.RotationReady, false},
		{"DoneRevoked", func() *sello.APIKey {
			k := key("o", nil, at(-time.Second))
			k.RevokedAt = at(-time.Millisecond)
			return k
		}(), key("n", nil, nil), sello.RotationDone, false},
		{"DoneExpired", func() *sello.APIKey { k := key("o", nil, at(-time.Hour)); k.ExpiresAt = at(-time.Minute); return k }(), key("n", at(-30*time.Minute), at(-time.Second)), sello.RotationDone, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := sello.NewAPIKeyRotation(tt.old, tt.nw, now)
			if err != nil {
				t.Fatalf("NewAPIKeyRotation: %v", err)
			}
			if r.State != tt.want || r.OldUsedSinceNew != tt.oldSince || r.NewInUse != (tt.nw.FirstUsedAt != nil) || r.Old != tt.old || r.New != tt.nw {
				t.Errorf("got %s, old used since new %v, new in use %v; want %s, %v", r.State, r.OldUsedSinceNew, r.NewInUse, tt.want, tt.oldSince)
			}
		})
	}
	t.Run("ErrNewExpired", func(t *testing.T) {
		nw := key("n", nil, nil)
		nw.ExpiresAt = at(-time.Second)
		_, err := sello.NewAPIKeyRotation(key("o", nil, nil), nw, now)
		if sello.ErrorCodeOf(err) != sello.CodeInvalidRequest || sello.ErrorMessageOf(err) != "The new key n expired: create another." {
			t.Errorf("got %v, want INVALID_REQUEST saying the new key expired", err)
		}
	})
}
