package sello

import (
	"context"
	"sync"
	"time"
)

// APIKeyUseInterval is how often at most one key's use is written: the
// precision of APIKey.LastUsedAt and LastUsedAddress. Every authenticated
// request would otherwise be a write.
const APIKeyUseInterval = time.Minute

// apiKeyUsesPrune is how many keys APIKeyUses remembers before it forgets
// those it wrote more than Every ago (once per Every at most).
const apiKeyUsesPrune = 4096

// APIKeyUses writes the use of API keys to a store without a write per
// request: one key's use at most once per Every from this process, and,
// through the store's condition (APIKeyStore.RecordAPIKeyUse), at most
// once per Every between all the processes sharing the store. Its zero
// value is ready; it is safe for concurrent use.
type APIKeyUses struct {
	// Every is the least time between two writes of one key's use;
	// APIKeyUseInterval when zero.
	Every time.Duration

	mu sync.Mutex
	// wrote is when this process last wrote (or is writing) a key's use,
	// by key id.
	wrote map[string]time.Time
	// pruned is when wrote last lost its old entries.
	pruned time.Time
}

func (u *APIKeyUses) every() time.Duration {
	if u.Every > 0 {
		return u.Every
	}
	return APIKeyUseInterval
}

// Record notes that k, as just read from s, authenticated a request at
// `at` from addr. It writes nothing when k's last use, as read, or this
// process's last write of it is less than Every before at; the first use
// of a key is always written. Returns the store's error, after which the
// next request tries again.
func (u *APIKeyUses) Record(ctx context.Context, s APIKeyStore, k *APIKey, at time.Time, addr string) error {
	every := u.every()
	if k.LastUsedAt != nil && at.Sub(*k.LastUsedAt) < every {
		return nil
	}
	u.mu.Lock()
	if last, ok := u.wrote[k.ID]; ok && at.Sub(last) < every {
		u.mu.Unlock()
		return nil
	}
	if u.wrote == nil {
		u.wrote = map[string]time.Time{}
	} else if len(u.wrote) >= apiKeyUsesPrune && at.Sub(u.pruned) >= every {
		for id, last := range u.wrote {
			if at.Sub(last) >= every {
				delete(u.wrote, id)
			}
		}
		u.pruned = at
	}
	u.wrote[k.ID] = at
	u.mu.Unlock()
	if _, err := s.RecordAPIKeyUse(ctx, k.TenantID, k.ID, at, addr, every); err != nil {
		u.mu.Lock()
		if u.wrote[k.ID].Equal(at) {
			delete(u.wrote, k.ID)
		}
		u.mu.Unlock()
		return err
	}
	return nil
}

// APIKeyRotationState is how far the rotation from one key to another
// has come (spec §5, rule 6: create the new key, update the clients,
// confirm the new key is in use, then revoke the old one).
type APIKeyRotationState string

const (
	// RotationNewUnused: the new key has not authenticated any request
	// yet; the clients still need it.
	RotationNewUnused APIKeyRotationState = "new_unused"
	// RotationOldInUse: the new key is in use, but the old one was used
	// in the last APIKeyRotationQuiet: some client still sends it.
	RotationOldInUse APIKeyRotationState = "old_in_use"
	// RotationReady: the new key is in use and the old one has been quiet
	// for APIKeyRotationQuiet at least (or was never used): revoke it.
	RotationReady APIKeyRotationState = "ready"
	// RotationDone: the old key is revoked or expired.
	RotationDone APIKeyRotationState = "done"
)

// APIKeyRotationQuiet is how long the old key must go unused before a
// rotation is RotationReady: two APIKeyUseIntervals, since a use in the
// interval after the last recorded one is not written.
const APIKeyRotationQuiet = 2 * APIKeyUseInterval

// APIKeyRotation is what a person needs to decide whether to revoke the
// old key of a rotation: when the new key was first used, and when and
// from where the old one was last used.
type APIKeyRotation struct {
	Old, New *APIKey
	// NewInUse reports whether the new key has authenticated a request
	// since it was created (New.FirstUsedAt says when it first did).
	NewInUse bool
	// OldUsedSinceNew reports whether the old key was used at or after
	// the new key's first use (Old.LastUsedAt, Old.LastUsedAddress say
	// when and from where): a client switched late, or has not.
	OldUsedSinceNew bool
	State           APIKeyRotationState
}

// CheckAPIKeyRotation reads the tenant's keys oldID and newID from s and
// says how far the rotation from the first to the second has come at now.
// RotationReady is no proof that no client holds the old key (a monthly
// job may send it next month): the times are there for a person to judge.
// Returns NOT_FOUND if either key is not the tenant's, and INVALID_REQUEST
// if they are the same key, belong to different environments, or the new
// key is revoked or expired.
func CheckAPIKeyRotation(ctx context.Context, s APIKeyStore, tenantID, oldID, newID string, now time.Time) (*APIKeyRotation, error) {
	if oldID == newID {
		return nil, Errorf(CodeInvalidRequest, "A key cannot replace itself: choose the new key of the rotation.")
	}
	old, err := s.FindAPIKey(ctx, tenantID, oldID)
	if err != nil {
		return nil, err
	}
	nw, err := s.FindAPIKey(ctx, tenantID, newID)
	if err != nil {
		return nil, err
	}
	return NewAPIKeyRotation(old, nw, now)
}

// NewAPIKeyRotation says how far the rotation from old to nw has come at
// now (see CheckAPIKeyRotation). Returns INVALID_REQUEST.
func NewAPIKeyRotation(old, nw *APIKey, now time.Time) (*APIKeyRotation, error) {
	switch {
	case old.ID == nw.ID:
		return nil, Errorf(CodeInvalidRequest, "A key cannot replace itself: choose the new key of the rotation.")
	case old.Environment != nw.Environment:
		return nil, Errorf(CodeInvalidRequest, "Key %s is of %s and cannot replace key %s of %s: a key works in one environment.", nw.ID, nw.Environment, old.ID, old.Environment)
	case nw.RevokedAt != nil:
		return nil, Errorf(CodeInvalidRequest, "The new key %s is revoked: create another.", nw.ID)
	case !nw.Active(now):
		return nil, Errorf(CodeInvalidRequest, "The new key %s expired: create another.", nw.ID)
	}
	r := &APIKeyRotation{Old: old, New: nw, NewInUse: nw.FirstUsedAt != nil}
	if r.NewInUse && old.LastUsedAt != nil {
		r.OldUsedSinceNew = !old.LastUsedAt.Before(*nw.FirstUsedAt)
	}
	switch {
	case !old.Active(now):
		r.State = RotationDone
	case !r.NewInUse:
		r.State = RotationNewUnused
	case old.LastUsedAt != nil && now.Sub(*old.LastUsedAt) < APIKeyRotationQuiet:
		r.State = RotationOldInUse
	default:
		r.State = RotationReady
	}
	return r, nil
}
