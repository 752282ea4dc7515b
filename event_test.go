package sello_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

// TestEventResourceNoValueIsNull checks the absent-value rule on event
// payloads: a field with no value is null, never "" (also in events
// written before the rule, whose payloads the store gives back with "").
func TestEventResourceNoValueIsNull(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	t.Run("StoredPayload", func(t *testing.T) {
		e := &sello.Event{ID: "e1", Type: sello.EventECFCommercialApproval, CreatedAt: now, Environment: sello.EnvTest,
			Data: sello.EventData{Payload: map[string]any{"status": "approved", "reason": "", "n": 0.0, "ok": false,
				"leg": map[string]any{"error": "", "status": "sent"}, "list": []any{"", "x"}}}}
		b, err := json.Marshal(e.Resource().Data.Payload)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(b), `{"leg":{"error":null,"status":"sent"},"list":[null,"x"],"n":0,"ok":false,"reason":null,"status":"approved"}`; got != want {
			t.Fatalf("payload %s, want %s", got, want)
		}
	})
	t.Run("NilPayload", func(t *testing.T) {
		b, _ := json.Marshal((&sello.Event{Type: sello.EventECFQueued}).Resource().Data.Payload)
		if string(b) != "{}" {
			t.Fatalf("payload %s, want {}", b)
		}
	})
	t.Run("CommercialApprovalApproved", func(t *testing.T) {
		a := &sello.ReceivedApproval{BuyerRNC: "101000002", Status: sello.ApprovalApproved}
		ev := a.Event(&sello.Document{ID: "d1", Type: sello.TypeCreditoFiscal, ENCF: "E310000000001"}, now)
		b, _ := json.Marshal(ev.Data.Payload)
		if got, want := string(b), `{"buyerRnc":"101000002","reason":null,"signer":null,"status":"approved"}`; got != want {
			t.Fatalf("payload %s, want %s", got, want)
		}
	})
}
