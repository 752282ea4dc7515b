package sello_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

func TestApplyInboundDGII(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	doc := func(state string) *sello.InboundDocument {
		d := &sello.InboundDocument{ID: "a", TenantID: "t", Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal,
			ENCF: "E310000000001", IssuerRNC: "131000001", SecurityCode: "AAAAAA"}
		if state != "" {
			d.DGII = &sello.InboundDGII{Status: state}
		}
		return d
	}
	other := &sello.AcceptedInbound{ID: "b", SecurityCode: "BBBBBB", ReceivedAt: now.Add(-time.Hour)}
	type want struct {
		state   string // the document's status after
		changed bool
		events  []sello.EventType
		refute  bool // the other documents under the e-NCF are refuted
	}
	for _, c := range []struct {
		name     string
		doc      *sello.InboundDocument
		accepted *sello.AcceptedInbound
		ans      sello.InboundDGIIAnswer
		want     want
	}{
		{"AcceptedRefutesOthers", doc(sello.DGIIPending), nil, sello.InboundDGIIAnswer{Codigo: 1, Estado: "Aceptado"},
			want{sello.DGIIAccepted, true, []sello.EventType{sello.EventInboundDGIIConfirmed}, true}},
		{"Conditional", doc(sello.DGIINotFound), nil, sello.InboundDGIIAnswer{Codigo: 4},
			want{sello.DGIIAccepted, true, []sello.EventType{sello.EventInboundDGIIConfirmed}, true}},
		{"Rejected", doc(sello.DGIINotFound), nil, sello.InboundDGIIAnswer{Codigo: 2},
			want{sello.DGIIRejected, true, []sello.EventType{sello.EventInboundDGIIRefuted}, false}},
		{"NotFound", doc(sello.DGIIPending), nil, sello.InboundDGIIAnswer{Codigo: 0},
			want{sello.DGIINotFound, true, nil, false}},
		{"EnProceso", doc(sello.DGIINotFound), nil, sello.InboundDGIIAnswer{Codigo: 3},
			want{sello.DGIIPending, true, nil, false}},
		// Stored beside a document DGII accepted meanwhile (a receipt that
		// raced the confirmation): No encontrado refutes it.
		{"NotFoundBesideAccepted", doc(sello.DGIIPending), other, sello.InboundDGIIAnswer{Codigo: 0},
			want{sello.DGIIRefuted, true, []sello.EventType{sello.EventInboundDGIIRefuted}, false}},
		// DGII spends an e-NCF once: the first accepted stays.
		{"AcceptedBesideAccepted", doc(sello.DGIIPending), other, sello.InboundDGIIAnswer{Codigo: 1},
			want{sello.DGIIRefuted, true, []sello.EventType{sello.EventInboundDGIIRefuted}, false}},
		{"FinalStays", doc(sello.DGIIRefuted), nil, sello.InboundDGIIAnswer{Codigo: 1},
			want{sello.DGIIRefuted, false, nil, false}},
		{"GiveUp", doc(sello.DGIINotFound), nil, sello.InboundDGIIAnswer{GiveUp: true},
			want{sello.DGIINotFound, true, []sello.EventType{sello.EventInboundDGIIRefuted}, false}},
		// A document received before Sello asked DGII is held to DGII's
		// answer all the same.
		{"Legacy", doc(""), nil, sello.InboundDGIIAnswer{Codigo: 1},
			want{sello.DGIIAccepted, true, []sello.EventType{sello.EventInboundDGIIConfirmed}, true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			changed, events, refute := sello.ApplyInboundDGII(c.doc, c.accepted, c.ans, now)
			var types []sello.EventType
			for _, ev := range events {
				types = append(types, ev.Type)
				if ev.Data.Payload["inboundDocumentId"] != "a" {
					t.Errorf("event %s about %v, want a", ev.Type, ev.Data.Payload["inboundDocumentId"])
				}
			}
			if c.doc.DGII.Status != c.want.state || changed != c.want.changed || refute != c.want.refute || !slices.Equal(types, c.want.events) {
				t.Fatalf("got state %s, changed %v, events %v, refute %v; want %s, %v, %v, %v",
					c.doc.DGII.Status, changed, types, refute, c.want.state, c.want.changed, c.want.events, c.want.refute)
			}
			if changed != c.doc.UpdatedAt.Equal(now) {
				t.Errorf("changed %v but UpdatedAt %v", changed, c.doc.UpdatedAt)
			}
			if c.doc.DGII.Status == sello.DGIIRefuted && changed && !strings.Contains(c.doc.DGII.Mensaje, other.ID) {
				t.Errorf("refuted: mensaje %q does not name the accepted %s", c.doc.DGII.Mensaje, other.ID)
			}
		})
	}
}

func TestInboundConfirmDelay(t *testing.T) {
	var total time.Duration
	n := 0
	for age := time.Duration(0); age < sello.InboundConfirmFor; n++ {
		d := sello.InboundConfirmDelay(age)
		if d <= 0 || d > 2*time.Hour {
			t.Fatalf("delay at %s: %s", age, d)
		}
		age += d
		total = age
	}
	// About 80 questions over three days.
	if n < 60 || n > 100 || total < sello.InboundConfirmFor {
		t.Errorf("%d questions over %s; want 60 to 100 over %s", n, total, sello.InboundConfirmFor)
	}
}
