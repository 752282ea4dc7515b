package sello_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

func TestSequenceWarnings(t *testing.T) {
	// Noon in Santo Domingo on 2026-11-26.
	now := time.Date(2026, 11, 26, 16, 0, 0, 0, time.UTC)
	date := func(y int, m time.Month, d int) *sello.Date { return &sello.Date{Year: y, Month: m, Day: d} }
	low, exp := sello.SequenceWarningLow, sello.SequenceWarningExpiring
	for _, tc := range []struct {
		name     string
		from, to int64
		next     int64
		expires  *sello.Date
		th       sello.SequenceThresholds
		want     []sello.SequenceWarning
	}{
		{"Plenty", 1, 10000, 1, nil, sello.SequenceThresholds{}, nil},
		{"TenPercent", 1, 10000, 9001, nil, sello.SequenceThresholds{}, []sello.SequenceWarning{low}},
		{"AboveTenPercent", 1, 10000, 9000, nil, sello.SequenceThresholds{}, nil},
		{"HundredLeft", 1, 500, 401, nil, sello.SequenceThresholds{}, []sello.SequenceWarning{low}},
		{"HundredOneLeft", 1, 500, 400, nil, sello.SequenceThresholds{}, nil},
		{"SmallRange", 1, 50, 1, nil, sello.SequenceThresholds{}, []sello.SequenceWarning{low}},
		{"UsedUp", 1, 50, 51, nil, sello.SequenceThresholds{}, nil},
		{"ThirtyDays", 1, 10000, 1, date(2026, 12, 26), sello.SequenceThresholds{}, []sello.SequenceWarning{exp}},
		{"ThirtyOneDays", 1, 10000, 1, date(2026, 12, 27), sello.SequenceThresholds{}, nil},
		{"ExpiresToday", 1, 100, 1, date(2026, 11, 26), sello.SequenceThresholds{}, []sello.SequenceWarning{low, exp}},
		{"Expired", 1, 100, 1, date(2026, 11, 25), sello.SequenceThresholds{}, nil},
		{"Configured", 1, 1000, 501, date(2027, 1, 1), sello.SequenceThresholds{LowPercent: 50, LowCount: 1, ExpiryWarning: 60 * 24 * time.Hour}, []sello.SequenceWarning{low, exp}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &sello.Sequence{Type: sello.TypeCreditoFiscal, From: tc.from, To: tc.to, Next: tc.next, ExpiresOn: tc.expires}
			if got := s.Warnings(tc.th, now); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestNewSequenceEvent(t *testing.T) {
	now := time.Date(2026, 11, 26, 16, 0, 0, 0, time.UTC)
	s := &sello.Sequence{ID: "s1", TenantID: "t1", Environment: sello.EnvProd, Type: sello.TypeCreditoFiscal, From: 1, To: 100, Next: 91, ExpiresOn: &sello.Date{Year: 2026, Month: 12, Day: 1}}
	ev := sello.NewSequenceEvent(s, sello.SequenceWarningExpiring, now)
	if ev.Type != sello.EventSequenceExpiring || ev.TenantID != "t1" || ev.Environment != sello.EnvProd || ev.Data.Message != "The e-NCF range 1–100 of type E31 expires on 2026-12-01." {
		t.Errorf("got %+v", ev)
	}
	want := map[string]any{"sequenceId": "s1", "type": "E31", "from": int64(1), "to": int64(100), "left": int64(10), "expiresOn": "2026-12-01"}
	if !reflect.DeepEqual(ev.Data.Payload, want) {
		t.Errorf("payload: got %v, want %v", ev.Data.Payload, want)
	}
	if ev := sello.NewSequenceEvent(s, sello.SequenceWarningLow, now); ev.Type != sello.EventSequenceLow || ev.Data.Message != "The e-NCF range 1–100 of type E31 has 10 numbers left." {
		t.Errorf("low: got %+v", ev)
	}
}
