package sello_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

// TestNewDGIIEvent: the two events' types, severities, payloads and the
// message's count of waiting documents.
func TestNewDGIIEvent(t *testing.T) {
	since := time.Date(2026, 11, 26, 14, 0, 0, 0, time.UTC)
	until := since.Add(90 * time.Minute)
	down := &sello.Reachability{Environment: sello.EnvProd, State: sello.DGIIContingency, Since: &since}
	ev := sello.NewDGIIEvent(sello.TenantWaiting{TenantID: "t", Waiting: 3}, down, until)
	if ev.Type != sello.EventDGIIUnavailable || ev.Data.Severity != "warning" || ev.Data.Payload["since"] != "2026-11-26T14:00:00.000Z" ||
		ev.Data.Payload["waiting"] != 3 || !strings.Contains(ev.Data.Message, "Oficina Virtual") {
		t.Errorf("unavailable: %+v", ev)
	}
	up := &sello.Reachability{Environment: sello.EnvProd, State: sello.DGIIDraining, Since: &since, Until: &until}
	for waiting, want := range map[int]string{
		0: "no document was waiting.",
		1: "the document waiting is being sent.",
		7: "the 7 documents waiting are being sent, oldest first.",
	} {
		ev := sello.NewDGIIEvent(sello.TenantWaiting{TenantID: "t", Waiting: waiting}, up, until)
		if ev.Type != sello.EventDGIIAvailable || ev.Data.Severity != "info" || ev.Data.Payload["until"] != "2026-11-26T15:30:00.000Z" ||
			!strings.HasSuffix(ev.Data.Message, want) {
			t.Errorf("available, %d waiting: %s %q, want it to end %q", waiting, ev.Type, ev.Data.Message, want)
		}
	}
}
