package clienttest_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/sello-do/sello/client"
)

// TestSequences registers and lists ranges through the SDK against Sello's
// real API (which registered E31 1–1,000,000 at the start).
func TestSequences(t *testing.T) {
	a := mustRealAPI(t)
	c := a.client(t, a.key)
	ctx := t.Context()

	t.Run("Create", func(t *testing.T) {
		res, err := c.CreateSequence(ctx, client.CreateSequenceRequest{Type: "32", From: 1, To: 100})
		if err != nil {
			t.Fatal(err)
		}
		s := res.Sequence
		if s.ID == "" || s.Type != "E32" || s.From != 1 || s.To != 100 || s.Next == nil || *s.Next != "E320000000001" ||
			s.Used != 0 || s.Left != 100 || s.ExpiresOn != nil || s.State != client.SequenceActive || s.CreatedAt.IsZero() || res.CorrelationID == "" {
			t.Fatalf("range %+v", s)
		}
		res, err = c.CreateSequence(ctx, client.CreateSequenceRequest{Type: "E33", From: 1, To: 10, ExpiresOn: "31-12-2099"})
		if err != nil {
			t.Fatal(err)
		}
		if s := res.Sequence; s.Type != "E33" || s.ExpiresOn == nil || *s.ExpiresOn != "2099-12-31" {
			t.Fatalf("range %+v, want E33 expiring 2099-12-31 (given in DGII's format)", s)
		}
	})

	t.Run("RetriedOnce", func(t *testing.T) {
		// The range is registered but the answer is lost: the retry
		// registers nothing more, and says which range overlaps.
		a.lose(1, func(r *http.Request) bool { return r.Method == "POST" && r.URL.Path == "/TesteCF/secuencias" })
		_, err := c.CreateSequence(ctx, client.CreateSequenceRequest{Type: "34", From: 1, To: 50})
		if a.lost != 1 {
			t.Fatalf("%d answers lost, want 1", a.lost)
		}
		var e *client.Error
		if !errors.As(err, &e) || e.Code != client.CodeValidationFailed || !strings.Contains(e.Message, "overlaps") {
			t.Fatalf("the retry: %v, want VALIDATION_FAILED naming the range registered", err)
		}
		var e34 []client.Sequence
		for s, err := range c.Sequences(ctx, client.ListSequencesParams{}) {
			if err != nil {
				t.Fatal(err)
			}
			if s.Type == "E34" {
				e34 = append(e34, *s)
			}
		}
		if len(e34) != 1 || !strings.Contains(e.Message, e34[0].ID) {
			t.Fatalf("E34 ranges %+v after a retried create, want exactly the one the error names (%s)", e34, e.Message)
		}
	})

	t.Run("List", func(t *testing.T) {
		page, err := c.ListSequences(ctx, client.ListSequencesParams{Limit: 3})
		if err != nil || len(page.Data) != 3 || !page.HasMore || page.NextCursor == "" {
			t.Fatalf("limit 3: %+v, %v", page, err)
		}
		rest, err := c.ListSequences(ctx, client.ListSequencesParams{Cursor: page.NextCursor, Limit: 3})
		if err != nil || len(rest.Data) != 1 || rest.HasMore || rest.NextCursor != "" {
			t.Fatalf("the next page: %+v, %v", rest, err)
		}
		var types []string
		for s, err := range c.Sequences(ctx, client.ListSequencesParams{Limit: 1}) {
			if err != nil {
				t.Fatal(err)
			}
			types = append(types, s.Type)
		}
		if got, want := strings.Join(types, ","), "E31,E32,E33,E34"; got != want {
			t.Fatalf("every range: %s, want %s (by type)", got, want)
		}
	})

	t.Run("ErrInvalidRequest", func(t *testing.T) {
		_, err := c.CreateSequence(ctx, client.CreateSequenceRequest{Type: "31", From: 5, To: 4, ExpiresOn: "2099-12-31"})
		var e *client.Error
		if !errors.As(err, &e) || e.Code != client.CodeInvalidRequest || e.HTTPStatus != 400 || !strings.Contains(e.Message, "Range 5–4") {
			t.Fatalf("error %v, want INVALID_REQUEST", err)
		}
		if _, err := c.ListSequences(ctx, client.ListSequencesParams{Cursor: "garbage"}); !client.IsCode(err, client.CodeInvalidRequest) {
			t.Fatalf("bad cursor: %v, want INVALID_REQUEST", err)
		}
	})

	t.Run("ErrOverlap", func(t *testing.T) {
		_, err := c.CreateSequence(ctx, client.CreateSequenceRequest{Type: "31", From: 500, To: 600, ExpiresOn: "2099-12-31"})
		var e *client.Error
		if !errors.As(err, &e) || e.Code != client.CodeValidationFailed || e.HTTPStatus != 422 {
			t.Fatalf("error %v, want VALIDATION_FAILED", err)
		}
	})
}
