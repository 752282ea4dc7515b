package clienttest_test

import (
	"bytes"
	"errors"
	"net/http"
	"reflect"
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/client"
)

// TestVoids voids numbers and follows the void through the SDK against
// Sello's real API.
func TestVoids(t *testing.T) {
	a := mustRealAPI(t)
	c := a.client(t, a.key)
	ctx := t.Context()

	var first client.Void
	t.Run("CreateRetriedOnce", func(t *testing.T) {
		// The void is made but its answer is lost; the retry, with the same
		// Idempotency-Key, gets it replayed.
		a.lose(1, func(r *http.Request) bool { return r.Method == "POST" && r.URL.Path == "/TesteCF/anulaciones" })
		res, err := c.CreateVoid(ctx, client.CreateVoidRequest{Ranges: []client.VoidRangeRequest{{Type: "31", From: 100, To: 109}, {Type: "E31", From: 200, To: 200}}})
		if err != nil {
			t.Fatal(err)
		}
		if a.lost != 1 || !res.Replayed {
			t.Fatalf("%d answers lost, replayed %v: want 1 and a replay", a.lost, res.Replayed)
		}
		first = res.Void
		want := []client.VoidRange{{Type: "E31", From: 100, To: 109, Count: 10}, {Type: "E31", From: 200, To: 200, Count: 1}}
		if first.ID == "" || first.State != client.VoidPending || first.Count != 11 || !reflect.DeepEqual(first.Ranges, want) ||
			first.DGII != nil || first.FailureReason != nil || first.CreatedAt.IsZero() || res.CorrelationID == "" {
			t.Fatalf("void %+v", first)
		}
		page, err := c.ListVoids(ctx, client.ListVoidsParams{})
		if err != nil || len(page.Data) != 1 || page.Data[0].ID != first.ID {
			t.Fatalf("voids after a retried create: %+v, %v; want exactly the one", page, err)
		}
	})

	t.Run("ErrIdempotencyKeyReused", func(t *testing.T) {
		req := client.CreateVoidRequest{Ranges: []client.VoidRangeRequest{{Type: "31", From: 300, To: 300}}, IdempotencyKey: "void-300"}
		if _, err := c.CreateVoid(ctx, req); err != nil {
			t.Fatal(err)
		}
		again, err := c.CreateVoid(ctx, req)
		if err != nil || !again.Replayed {
			t.Fatalf("the same key and body: %+v, %v; want the void replayed", again, err)
		}
		req.Ranges[0].To = 301
		_, err = c.CreateVoid(ctx, req)
		var e *client.Error
		if !errors.As(err, &e) || e.Code != client.CodeIdempotencyKeyReused || e.HTTPStatus != 409 {
			t.Fatalf("the same key, another body: %v, want IDEMPOTENCY_KEY_REUSED", err)
		}
	})

	t.Run("ErrValidationFailed", func(t *testing.T) {
		_, err := c.CreateVoid(ctx, client.CreateVoidRequest{Ranges: []client.VoidRangeRequest{{Type: "31", From: 105, To: 106}}})
		var e *client.Error
		if !errors.As(err, &e) || e.Code != client.CodeValidationFailed || len(e.Details) == 0 || e.Details[0].Path != "ranges[0]" {
			t.Fatalf("numbers voided already: %v, want VALIDATION_FAILED at ranges[0]", err)
		}
	})

	t.Run("GetAndXML", func(t *testing.T) {
		if _, err := c.GetVoidXML(ctx, first.ID); !client.IsNotFound(err) {
			t.Fatalf("XML before signing: %v, want NOT_FOUND", err)
		}
		anecf := []byte(`<?xml version="1.0" encoding="UTF-8"?><ANECF><Signature/></ANECF>`)
		if _, err := a.db.RecordVoidOutcome(ctx, a.tenant.ID, sello.EnvTest, first.ID, sello.VoidOutcome{
			ANECF: anecf, State: sello.VoidAccepted,
			DGII: &sello.DGIIResult{Codigo: new(1), Estado: "Anulación procesada", Mensajes: []sello.DGIIMessage{{Valor: "Las secuencias fueron anuladas correctamente."}}},
		}); err != nil {
			t.Fatal(err)
		}
		res, err := c.GetVoid(ctx, first.ID)
		if err != nil {
			t.Fatal(err)
		}
		v := res.Void
		if v.ID != first.ID || v.State != client.VoidAccepted || v.DGII == nil || v.DGII.Codigo != 1 || v.DGII.Estado != "Anulación procesada" ||
			len(v.DGII.Mensajes) != 1 || v.DGII.Mensajes[0].Codigo != nil || v.DGII.Mensajes[0].Valor != "Las secuencias fueron anuladas correctamente." ||
			v.DGII.SecuenciaUtilizada != nil || v.UpdatedAt.Before(v.CreatedAt) {
			t.Fatalf("void after DGII's answer %+v (dgii %+v)", v, v.DGII)
		}
		xml, err := c.GetVoidXML(ctx, first.ID)
		if err != nil || !bytes.Equal(xml, anecf) {
			t.Fatalf("XML: %q, %v; want the ANECF as sent", xml, err)
		}
	})

	t.Run("List", func(t *testing.T) {
		page, err := c.ListVoids(ctx, client.ListVoidsParams{Limit: 1})
		if err != nil || len(page.Data) != 1 || !page.HasMore {
			t.Fatalf("limit 1: %+v, %v", page, err)
		}
		var ids []string
		for v, err := range c.Voids(ctx, client.ListVoidsParams{Limit: 1}) {
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, v.ID)
		}
		if len(ids) != 2 || ids[1] != first.ID {
			t.Fatalf("every void: %v, want 2, newest first, the first last", ids)
		}
		if _, err := c.ListVoids(ctx, client.ListVoidsParams{Limit: 500}); !client.IsCode(err, client.CodeInvalidRequest) {
			t.Fatalf("limit 500: %v, want INVALID_REQUEST", err)
		}
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		if _, err := c.GetVoid(ctx, "01976a40-0000-7000-8000-000000000000"); !client.IsNotFound(err) {
			t.Fatalf("error %v, want NOT_FOUND", err)
		}
	})
}
