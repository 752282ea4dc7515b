package sello_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

func TestApplyInboundDGII(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	docs := func(states ...string) []*sello.InboundDocument {
		var out []*sello.InboundDocument
		for i, s := range states {
			d := &sello.InboundDocument{ID: string(rune('a' + i)), TenantID: "t", Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal,
				ENCF: "E310000000001", IssuerRNC: "131000001", SecurityCode: strings.Repeat(string(rune('A'+i)), 6)}
			if s != "" {
				d.DGII = &sello.InboundDGII{Status: s}
			}
			out = append(out, d)
		}
		return out
	}
	type want struct {
		states  []string // every document's status after, in order
		changed int
		events  []sello.EventType
	}
	for _, c := range []struct {
		name string
		docs []*sello.InboundDocument
		ans  sello.InboundDGIIAnswer
		want want
	}{
		{"AcceptedRefutesOthers", docs(sello.DGIIPending, sello.DGIINotFound, sello.DGIIRejected), sello.InboundDGIIAnswer{Codigo: 1, Estado: "Aceptado"},
			want{[]string{sello.DGIIAccepted, sello.DGIIRefuted, sello.DGIIRejected}, 2, []sello.EventType{sello.EventInboundDGIIConfirmed, sello.EventInboundDGIIRefuted}}},
		{"Conditional", docs(sello.DGIIPending), sello.InboundDGIIAnswer{Codigo: 4},
			want{[]string{sello.DGIIAccepted}, 1, []sello.EventType{sello.EventInboundDGIIConfirmed}}},
		{"Rejected", docs(sello.DGIINotFound), sello.InboundDGIIAnswer{Codigo: 2},
			want{[]string{sello.DGIIRejected}, 1, []sello.EventType{sello.EventInboundDGIIRefuted}}},
		{"NotFound", docs(sello.DGIIPending, sello.DGIIPending), sello.InboundDGIIAnswer{Codigo: 0},
			want{[]string{sello.DGIINotFound, sello.DGIIPending}, 1, nil}},
		{"EnProceso", docs(sello.DGIINotFound), sello.InboundDGIIAnswer{Codigo: 3},
			want{[]string{sello.DGIIPending}, 1, nil}},
		// Stored beside a document DGII accepted meanwhile (a receipt that
		// raced the confirmation): No encontrado refutes it.
		{"NotFoundBesideAccepted", docs(sello.DGIIPending, sello.DGIIAccepted), sello.InboundDGIIAnswer{Codigo: 0},
			want{[]string{sello.DGIIRefuted, sello.DGIIAccepted}, 1, []sello.EventType{sello.EventInboundDGIIRefuted}}},
		// DGII spends an e-NCF once: the first accepted stays.
		{"AcceptedBesideAccepted", docs(sello.DGIIPending, sello.DGIIAccepted), sello.InboundDGIIAnswer{Codigo: 1},
			want{[]string{sello.DGIIRefuted, sello.DGIIAccepted}, 1, []sello.EventType{sello.EventInboundDGIIRefuted}}},
		{"FinalStays", docs(sello.DGIIRefuted, sello.DGIIPending), sello.InboundDGIIAnswer{Codigo: 1},
			want{[]string{sello.DGIIRefuted, sello.DGIIPending}, 0, nil}},
		{"GiveUp", docs(sello.DGIINotFound), sello.InboundDGIIAnswer{GiveUp: true},
			want{[]string{sello.DGIINotFound}, 1, []sello.EventType{sello.EventInboundDGIIRefuted}}},
		// A document received before Sello asked DGII is held to DGII's
		// answer all the same.
		{"Legacy", docs(sello.DGIIPending, ""), sello.InboundDGIIAnswer{Codigo: 1},
			want{[]string{sello.DGIIAccepted, sello.DGIIRefuted}, 2, []sello.EventType{sello.EventInboundDGIIConfirmed, sello.EventInboundDGIIRefuted}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			changed, events, err := sello.ApplyInboundDGII(c.docs, "a", c.ans, now)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range c.docs {
				s := ""
				if d.DGII != nil {
					s = d.DGII.Status
				}
				got = append(got, s)
			}
			var types []sello.EventType
			for _, ev := range events {
				types = append(types, ev.Type)
			}
			if strings.Join(got, ",") != strings.Join(c.want.states, ",") || len(changed) != c.want.changed || len(types) != len(c.want.events) {
				t.Fatalf("got states %v, %d changed, events %v; want %v, %d, %v", got, len(changed), types, c.want.states, c.want.changed, c.want.events)
			}
			for i := range types {
				if types[i] != c.want.events[i] {
					t.Fatalf("events: got %v, want %v", types, c.want.events)
				}
			}
			for _, d := range changed {
				if !d.UpdatedAt.Equal(now) {
					t.Errorf("%s changed but UpdatedAt %v", d.ID, d.UpdatedAt)
				}
			}
		})
	}
	t.Run("ErrNotFound", func(t *testing.T) {
		_, _, err := sello.ApplyInboundDGII(docs(sello.DGIIPending), "z", sello.InboundDGIIAnswer{Codigo: 1}, now)
		if sello.ErrorCodeOf(err) != sello.CodeNotFound {
			t.Fatalf("got %v, want NOT_FOUND", err)
		}
	})
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
