package sello_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sello-do/sello"
)

// TestParseWebhookEventTypes: blanks are skipped, repeats kept once in
// the order given, none is every type, an unknown type is refused naming
// it and the known ones.
func TestParseWebhookEventTypes(t *testing.T) {
	got, err := sello.ParseWebhookEventTypes([]string{" ecf.accepted", "", "ecf.rejected", "ecf.accepted "})
	if err != nil || fmt.Sprint(got) != "[ecf.accepted ecf.rejected]" {
		t.Fatalf("got %v, %v", got, err)
	}
	if got, err := sello.ParseWebhookEventTypes(nil); err != nil || got != nil {
		t.Fatalf("none: %v, %v", got, err)
	}
	_, err = sello.ParseWebhookEventTypes([]string{"ecf.accepted", "ecf.nonsense"})
	if sello.ErrorCodeOf(err) != sello.CodeInvalidRequest || !strings.Contains(err.Error(), `"ecf.nonsense"`) || !strings.Contains(err.Error(), "ecf.queued") {
		t.Fatalf("unknown type: %v", err)
	}
	if _, err := sello.ParseWebhookEventTypes([]string{string(sello.EventWebhookEndpointTest)}); err == nil {
		t.Fatal("the test event's type is not one an endpoint subscribes to")
	}
}
