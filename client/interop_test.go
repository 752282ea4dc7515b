package client_test

import (
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/client"
	"github.com/sello-do/sello/webhook"
)

// TestVerifiesServerSignature checks the SDK against the sender: what
// Sello's webhook package signs, with one or two secrets, the SDK verifies,
// and both write the same header.
func TestVerifiesServerSignature(t *testing.T) {
	newest, oldest := sello.GenerateWebhookSecret(), sello.GenerateWebhookSecret()
	h := webhook.Sign([]string{newest, oldest}, now, body)
	if got := client.SignatureHeader(now, body, newest, oldest); got != h {
		t.Fatalf("SDK header %s, sender's %s", got, h)
	}
	for _, secrets := range [][]string{{newest}, {oldest}, {"whsec_other", oldest}} {
		if _, err := client.VerifyWebhook(body, h, secrets, now); err != nil {
			t.Errorf("secrets %v: %v", secrets, err)
		}
	}
	if _, err := client.VerifyWebhook(body, h, []string{sello.GenerateWebhookSecret()}, now); err == nil {
		t.Error("verified under a secret that did not sign")
	}
}
