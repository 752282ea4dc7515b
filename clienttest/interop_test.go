package clienttest_test

import (
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/client"
	"github.com/sello-do/sello/webhook"
)

// An event as Sello's webhook sender writes it, signed at now.
var (
	now  = time.Unix(1_800_000_000, 0)
	body = []byte(`{"id":"0e8e2c3a-5f1d-4b7a-9c2e-6a1f0b3d4c5e","type":"ecf.accepted","createdAt":"2026-11-22T14:03:07.123Z",` +
		`"tenantId":"t1","environment":"testecf","document":null,"data":{"severity":"info","message":"Aceptado","payload":{}}}`)
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
