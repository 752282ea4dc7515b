package portal

import (
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/i18n"
)

// TestWebhookStrings: every status, trigger and message after an action
// the Webhooks pages name has its catalogue entry in both languages
// (TestStrings finds the keys written in calls; these are in tables).
func TestWebhookStrings(t *testing.T) {
	var keys []string
	for _, s := range []sello.WebhookEndpointStatus{sello.WebhookEndpointActive, sello.WebhookEndpointPaused, sello.WebhookEndpointDisabled} {
		k, ok := endpointStatusKeys[s]
		if !ok {
			t.Errorf("endpoint status %s has no label", s)
		}
		keys = append(keys, k)
	}
	for _, s := range []sello.WebhookDeliveryStatus{sello.WebhookPending, sello.WebhookHeld, sello.WebhookSucceeded, sello.WebhookFailed} {
		k, ok := deliveryStatusKeys[s]
		if !ok {
			t.Errorf("delivery status %s has no label", s)
		}
		keys = append(keys, k)
	}
	for _, tr := range []sello.WebhookTrigger{sello.WebhookTriggerEvent, sello.WebhookTriggerReplay, sello.WebhookTriggerTest} {
		k, ok := triggerKeys[tr]
		if !ok {
			t.Errorf("trigger %s has no label", tr)
		}
		keys = append(keys, k)
	}
	for _, k := range webhookFlashKeys {
		keys = append(keys, k)
	}
	for _, k := range keys {
		if e, ok := i18n.Lookup(k); !ok || e.EN == "" || e.ES == "" {
			t.Errorf("key %q is not in the catalogue in both languages: %+v", k, e)
		}
	}
	l := &layoutData{V: &visit{Lang: i18n.ES}}
	for _, h := range overlapChoices {
		if got := overlapLabel(l, h); got == "" || got[0] == '%' {
			t.Errorf("overlap %d h: label %q", h, got)
		}
	}
	if !contains(overlapChoices, defaultOverlapHours) {
		t.Errorf("the default overlap, %d h, is not a choice", defaultOverlapHours)
	}
}
