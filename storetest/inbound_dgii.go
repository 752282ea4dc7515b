package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sello-do/sello"
)

// testInboundDGII holds DGII's confirmation of inbound documents
// (RecordInboundDGII): the states, the events, the refutation of the other
// documents under an e-NCF, the list's filter.
func testInboundDGII(t *testing.T, open Open) {
	// The pre-emption of issue 20: a forged copy of the issuer's next
	// e-NCF arrives first; the genuine one is kept too; DGII does not know
	// the forged one and accepts the genuine one, which refutes the other.
	t.Run("PreEmption", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		forged := MustCreateInbound(t, e.s, newInbound(tn.ID, sello.EnvTest, "131000001", 1))
		in := newInbound(tn.ID, sello.EnvTest, "131000001", 1)
		in.XML, in.SecurityCode = []byte("<ECF>genuine</ECF>"), "G3nu1n"
		genuine := MustCreateInbound(t, e.s, in)

		got := MustRecordDGII(t, e.s, tn.ID, sello.EnvTest, forged.ID, 0, "No encontrado")
		if got.DGII.Status != sello.DGIINotFound || got.DGII.Codigo == nil || *got.DGII.Codigo != 0 || got.DGII.CheckedAt == nil || got.DGII.Mensaje != "No encontrado" {
			t.Fatalf("the forged one after No encontrado: got %+v", got.DGII)
		}
		got = MustRecordDGII(t, e.s, tn.ID, sello.EnvTest, genuine.ID, 1, "Aceptado")
		if got.DGII.Status != sello.DGIIAccepted || *got.DGII.Codigo != 1 || got.DGII.Mensaje != "Aceptado" {
			t.Fatalf("the genuine one after Aceptado: got %+v", got.DGII)
		}
		f, err := e.s.FindInboundDocument(t.Context(), tn.ID, sello.EnvTest, forged.ID)
		if err != nil {
			t.Fatal(err)
		}
		if f.DGII.Status != sello.DGIIRefuted || !f.UpdatedAt.After(forged.UpdatedAt) {
			t.Fatalf("the forged one after DGII accepted the genuine: got %+v, updated %v", f.DGII, f.UpdatedAt)
		}
		evs := WaitEvents(t, e.s, tn.ID, sello.EnvTest, sello.EventFilter{}, WithType(sello.EventInboundDGIIRefuted))
		var confirmed, refuted []string
		for _, ev := range evs {
			switch ev.Type {
			case sello.EventInboundDGIIConfirmed:
				confirmed = append(confirmed, ev.Data.Payload["inboundDocumentId"].(string))
			case sello.EventInboundDGIIRefuted:
				refuted = append(refuted, ev.Data.Payload["inboundDocumentId"].(string))
				if ev.Data.Severity != "warning" || ev.Document.ENCF != forged.ENCF {
					t.Errorf("refuted event: got %+v", ev)
				}
			}
		}
		if !slices.Equal(confirmed, []string{genuine.ID}) || !slices.Equal(refuted, []string{forged.ID}) {
			t.Fatalf("events: confirmed %v, refuted %v; want [%s] and [%s]", confirmed, refuted, genuine.ID, forged.ID)
		}
		// A final state does not change.
		if again := MustRecordDGII(t, e.s, tn.ID, sello.EnvTest, forged.ID, 1, "Aceptado"); again.DGII.Status != sello.DGIIRefuted {
			t.Fatalf("the refuted one after another answer: got %+v", again.DGII)
		}
		// The buyer's list shows which is which.
		for _, c := range []struct {
			state string
			want  []string
		}{{sello.DGIIAccepted, []string{genuine.ID}}, {sello.DGIIRefuted, []string{forged.ID}}, {sello.DGIIPending, nil}} {
			if got := inboundIDs(mustListInbound(t, e.s, tn.ID, sello.EnvTest, sello.InboundFilter{DGII: c.state})); !slices.Equal(got, c.want) {
				t.Errorf("list dgii=%s: got %v, want %v", c.state, got, c.want)
			}
		}
	})
	// DGII's acceptance of one refutes every other document under the
	// e-NCF whose confirmation is not final, in one statement, each with
	// its event; a rejected one stays rejected, another e-NCF's documents
	// stay as they are.
	t.Run("RefutesAll", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		const issuer = "131000001"
		var docs []*sello.InboundDocument
		for i := range 5 {
			docs = append(docs, MustCreateInbound(t, e.s, differentInbound(tn.ID, sello.EnvTest, issuer, 1, fmt.Sprint("doc", i))))
		}
		notFound := MustRecordDGII(t, e.s, tn.ID, sello.EnvTest, docs[1].ID, 0, "No encontrado")
		MustRecordDGII(t, e.s, tn.ID, sello.EnvTest, docs[2].ID, 2, "Rechazado")
		elsewhere := MustCreateInbound(t, e.s, differentInbound(tn.ID, sello.EnvTest, issuer, 2, "doc0"))
		genuine := MustRecordDGII(t, e.s, tn.ID, sello.EnvTest, docs[3].ID, 1, "Aceptado")
		for i, want := range []string{sello.DGIIRefuted, sello.DGIIRefuted, sello.DGIIRejected, sello.DGIIAccepted, sello.DGIIRefuted} {
			got, err := e.s.FindInboundDocument(t.Context(), tn.ID, sello.EnvTest, docs[i].ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.DGII.Status != want {
				t.Errorf("document %d: %s, want %s", i, got.DGII.Status, want)
			}
			if want == sello.DGIIRefuted && (!got.UpdatedAt.Equal(genuine.UpdatedAt) || !strings.Contains(got.DGII.Mensaje, genuine.ID) || !strings.Contains(got.DGII.Mensaje, genuine.SecurityCode)) {
				t.Errorf("document %d refuted: updated %s (the acceptance %s), mensaje %q; want it to name %s", i, got.UpdatedAt, genuine.UpdatedAt, got.DGII.Mensaje, genuine.ID)
			}
			if i == 1 && (got.DGII.CheckedAt == nil || !got.DGII.CheckedAt.Equal(*notFound.DGII.CheckedAt) || got.DGII.Codigo == nil || *got.DGII.Codigo != 0) {
				t.Errorf("the not_found one refuted: got %+v, want DGII's last answer kept", got.DGII)
			}
			if string(got.XML) != string(docs[i].XML) {
				t.Errorf("document %d: its XML changed", i)
			}
		}
		if got, _ := e.s.FindInboundDocument(t.Context(), tn.ID, sello.EnvTest, elsewhere.ID); got.DGII.Status != sello.DGIIPending {
			t.Errorf("another e-NCF's document: %s, want pending", got.DGII.Status)
		}
		evs := WaitEvents(t, e.s, tn.ID, sello.EnvTest, sello.EventFilter{Type: sello.EventInboundDGIIRefuted}, AtLeast(4))
		var refuted []string
		for _, ev := range evs {
			id := ev.Data.Payload["inboundDocumentId"].(string)
			if id == docs[2].ID {
				continue // its rejection
			}
			refuted = append(refuted, id)
			dg, _ := ev.Data.Payload["dgii"].(map[string]any)
			if ev.Data.Severity != "warning" || ev.Document.ENCF != docs[0].ENCF || ev.Data.Payload["securityCode"] == "" ||
				!strings.Contains(ev.Data.Message, genuine.ID) || dg["status"] != sello.DGIIRefuted {
				t.Errorf("refuted event: got %+v", ev)
			}
		}
		slices.Sort(refuted)
		want := []string{docs[0].ID, docs[1].ID, docs[4].ID}
		slices.Sort(want)
		if !slices.Equal(refuted, want) {
			t.Fatalf("refuted events about %v, want one each about %v", refuted, want)
		}
	})
	t.Run("States", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		for i, c := range []struct {
			codigo int
			estado string
			want   string
			event  sello.EventType
		}{
			{2, "Rechazado", sello.DGIIRejected, sello.EventInboundDGIIRefuted},
			{4, "Aceptado Condicional", sello.DGIIAccepted, sello.EventInboundDGIIConfirmed},
			{3, "En Proceso", sello.DGIIPending, ""},
			{0, "No encontrado", sello.DGIINotFound, ""},
		} {
			d := MustCreateInbound(t, e.s, newInbound(tn.ID, sello.EnvTest, "131000001", int64(i+1)))
			got := MustRecordDGII(t, e.s, tn.ID, sello.EnvTest, d.ID, c.codigo, c.estado)
			if got.DGII.Status != c.want || *got.DGII.Codigo != c.codigo {
				t.Errorf("codigo %d: got %+v, want %s", c.codigo, got.DGII, c.want)
			}
			if c.event != "" {
				evs := WaitEvents(t, e.s, tn.ID, sello.EnvTest, sello.EventFilter{Type: c.event}, AtLeast(1))
				if evs[len(evs)-1].Data.Payload["inboundDocumentId"] != d.ID {
					t.Errorf("codigo %d: the last %s is not about %s", c.codigo, c.event, d.ID)
				}
			}
		}
	})
	t.Run("GiveUp", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		d := MustCreateInbound(t, e.s, newInbound(tn.ID, sello.EnvTest, "131000001", 1))
		MustRecordDGII(t, e.s, tn.ID, sello.EnvTest, d.ID, 0, "No encontrado")
		got, err := e.s.RecordInboundDGII(t.Context(), tn.ID, sello.EnvTest, d.ID, sello.InboundDGIIAnswer{GiveUp: true})
		if err != nil {
			t.Fatal(err)
		}
		if got.DGII.Status != sello.DGIINotFound || got.DGII.CheckedAt == nil {
			t.Fatalf("after giving up: got %+v, want not_found as DGII last answered", got.DGII)
		}
		evs := WaitEvents(t, e.s, tn.ID, sello.EnvTest, sello.EventFilter{Type: sello.EventInboundDGIIRefuted}, AtLeast(1))
		if len(evs) != 1 || evs[0].Data.Severity != "warning" || evs[0].Data.Payload["inboundDocumentId"] != d.ID {
			t.Fatalf("events after giving up: got %+v", evs)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		e := newEnv(t, open)
		a, b := MustCreateTenant(t, e.s), MustCreateTenant(t, e.s)
		d := MustCreateInbound(t, e.s, newInbound(a.ID, sello.EnvTest, "131000001", 1))
		_, err := e.s.RecordInboundDGII(t.Context(), b.ID, sello.EnvTest, d.ID, sello.InboundDGIIAnswer{Codigo: 1})
		wantError(t, err, sello.CodeNotFound)
		_, err = e.s.RecordInboundDGII(t.Context(), a.ID, sello.EnvCert, d.ID, sello.InboundDGIIAnswer{Codigo: 1})
		wantError(t, err, sello.CodeNotFound)
		_, err = e.s.RecordInboundDGII(t.Context(), a.ID, sello.EnvTest, sello.NewID(), sello.InboundDGIIAnswer{Codigo: 1})
		wantError(t, err, sello.CodeNotFound)
		if got, err := e.s.FindInboundDocument(t.Context(), a.ID, sello.EnvTest, d.ID); err != nil || got.DGII.Status != sello.DGIIPending {
			t.Fatalf("after another tenant's answer: got %+v, %v; want pending", got, err)
		}
	})
}
