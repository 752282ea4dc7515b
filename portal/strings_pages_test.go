package portal

import (
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/i18n"
)

// TestPagesStrings: the lookup tables of the API keys', users' and audit
// log's pages (TestStrings finds the keys written in calls) are in the
// catalogue with both languages, and cover every value they name.
func TestPagesStrings(t *testing.T) {
	var keys []string
	for _, sc := range sello.Scopes {
		k, ok := scopeKeys[sc]
		if !ok {
			t.Errorf("scope %s has no description", sc)
		}
		keys = append(keys, k)
	}
	for _, st := range []sello.APIKeyRotationState{sello.RotationNewUnused, sello.RotationOldInUse, sello.RotationReady, sello.RotationDone} {
		k, ok := rotationStateKeys[st]
		if !ok {
			t.Errorf("rotation state %s has no text", st)
		}
		keys = append(keys, k)
	}
	for _, r := range sello.Roles {
		k, ok := roleDescriptionKeys[r]
		if !ok {
			t.Errorf("role %s has no description", r)
		}
		keys = append(keys, k)
	}
	for _, k := range keyStateKeys {
		keys = append(keys, k)
	}
	for _, k := range auditActionKeys {
		keys = append(keys, k)
	}
	for _, a := range auditActions {
		keys = append(keys, a.Key)
	}
	for _, k := range keys {
		e, ok := i18n.Lookup(k)
		if !ok || e.EN == "" || e.ES == "" {
			t.Errorf("key %q is not in the catalogue with both languages", k)
		}
	}
}
