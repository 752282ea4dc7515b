package portal

import (
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/i18n"
)

// TestFiscalStrings: the lookup tables of the fiscal pages (TestStrings
// finds the keys written in calls) cover every state they name, and are
// in the catalogue with both languages.
func TestFiscalStrings(t *testing.T) {
	var keys []string
	want := func(what string, k string, ok bool) {
		if !ok {
			t.Errorf("%s has no text", what)
		}
		keys = append(keys, k)
	}
	for _, st := range []sello.SequenceState{sello.SequenceActive, sello.SequenceExpired, sello.SequenceExhausted} {
		k, ok := sequenceStateKeys[st]
		want("range state "+string(st), k, ok)
	}
	for _, st := range []sello.VoidState{sello.VoidPending, sello.VoidAccepted, sello.VoidPartiallyAccepted, sello.VoidRejected, sello.VoidFailed} {
		k, ok := voidStateKeys[st]
		want("void state "+string(st), k, ok)
	}
	for _, st := range []sello.CertificateState{sello.CertificateValid, sello.CertificateExpiring, sello.CertificateExpired, sello.CertificateNotYetValid} {
		k, ok := certificateStateKeys[st]
		want("certificate state "+string(st), k, ok)
	}
	for _, st := range []string{sello.CertificationRunning, sello.CertificationPassed, sello.CertificationStopped, sello.CertificationFailed} {
		k, ok := certificationStateKeys[st]
		want("run state "+st, k, ok)
	}
	for _, st := range []string{sello.RowPending, sello.RowSigned, sello.RowSent, sello.RowAccepted, sello.RowAcceptedConditional, sello.RowRejected, sello.RowFailed} {
		k, ok := certificationRowStateKeys[st]
		want("row state "+st, k, ok)
	}
	for _, kind := range sello.CertificationKinds {
		k, ok := certificationKindKeys[kind]
		want("row kind "+string(kind), k, ok)
	}
	for _, k := range fiscalFlashKeys {
		keys = append(keys, k)
	}
	for _, k := range keys {
		if e, ok := i18n.Lookup(k); !ok || e.EN == "" || e.ES == "" {
			t.Errorf("key %q is not in the catalogue with both languages", k)
		}
	}
}
