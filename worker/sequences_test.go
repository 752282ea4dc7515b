package worker_test

import (
	"context"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/metrics"
	"github.com/sello-do/sello/internal/metrics/metricstest"
	"github.com/sello-do/sello/storetest"
	"github.com/sello-do/sello/webhook"
	"github.com/sello-do/sello/worker"
)

func TestCheckSequences(t *testing.T) {
	ctx := context.Background()
	db, mk, tenant := mustTenantStore(t)
	now := time.Date(2026, 11, 26, 16, 0, 0, 0, time.UTC)
	date := func(t time.Time) *sello.Date { d := sello.TodayInDR(t); return &d }
	add := func(env sello.Environment, typ sello.DocumentType, from, to int64, expires *sello.Date) *sello.Sequence {
		s := &sello.Sequence{TenantID: tenant.ID, Environment: env, Type: typ, From: from, To: to, ExpiresOn: expires}
		if err := db.AddSequence(ctx, s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	far := date(now.Add(365 * 24 * time.Hour))
	low := add(sello.EnvTest, sello.TypeCreditoFiscal, 1, 50, far)                                 // 50 left of 50: low
	expiring := add(sello.EnvTest, sello.TypeNotaDebito, 1, 10000, date(now.Add(10*24*time.Hour))) // expiring
	add(sello.EnvTest, sello.TypeCompras, 1, 10000, far)                                           // neither
	add(sello.EnvTest, sello.TypeGastosMenores, 1, 10, date(now.Add(-48*time.Hour)))               // expired: neither
	both := add(sello.EnvProd, sello.TypeCreditoFiscal, 1, 100, date(now))                         // both, in eCF

	clock := now
	m := metrics.New(metrics.Options{TenantLabels: true})
	w := worker.New(worker.Config{Store: db, MasterKey: mk, Now: func() time.Time { return clock }, Metrics: m})
	if n, err := w.CheckSequences(ctx); err != nil || n != 4 {
		t.Fatalf("first check warned %d (%v), want 4", n, err)
	}
	// The numbers left of each type with a range, the expired ones' none.
	left := metricstest.Values(t, m, "sello_tenant_sequence_numbers_left")
	for labels, want := range map[string]float64{
		"environment=TesteCF,tenant=131793916,type=31": 50,
		"environment=TesteCF,tenant=131793916,type=33": 10000,
		"environment=TesteCF,tenant=131793916,type=41": 10000,
		"environment=TesteCF,tenant=131793916,type=43": 0,
		"environment=eCF,tenant=131793916,type=31":     100,
	} {
		if got, ok := left[labels]; !ok || got != want {
			t.Errorf("numbers left {%s} = %v (%v), want %v", labels, got, ok, want)
		}
	}
	if len(left) != 5 {
		t.Errorf("numbers left of %d types, want 5: %v", len(left), left)
	}
	if got := metricstest.Values(t, m, "sello_sequence_lowest_numbers_left")["environment=TesteCF,type=43"]; got != 0 {
		t.Errorf("lowest numbers left of type 43 = %v, want 0", got)
	}
	clock = now.Add(time.Hour)
	if n, err := w.CheckSequences(ctx); err != nil || n != 0 {
		t.Fatalf("second check warned %d (%v), want 0: once per range and threshold", n, err)
	}
	ids := func(env sello.Environment, typ sello.EventType) []any {
		t.Helper()
		evs, err := db.ListEvents(ctx, tenant.ID, env, sello.EventFilter{Type: typ, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var out []any
		for _, e := range evs {
			r := e.Resource()
			if r.Document != nil || r.Data.Severity != "warning" {
				t.Errorf("event %+v", r)
			}
			out = append(out, r.Data.Payload["sequenceId"])
		}
		return out
	}
	for _, tc := range []struct {
		env  sello.Environment
		typ  sello.EventType
		want *sello.Sequence
	}{
		{sello.EnvTest, sello.EventSequenceLow, low},
		{sello.EnvTest, sello.EventSequenceExpiring, expiring},
		{sello.EnvProd, sello.EventSequenceLow, both},
		{sello.EnvProd, sello.EventSequenceExpiring, both},
	} {
		if got := ids(tc.env, tc.typ); len(got) != 1 || got[0] != tc.want.ID {
			t.Errorf("%s in %s: got ranges %v, want [%s]", tc.typ, tc.env, got, tc.want.ID)
		}
	}
}

func TestCheckSequencesThresholds(t *testing.T) {
	ctx := context.Background()
	db, mk, tenant := mustTenantStore(t)
	s := &sello.Sequence{TenantID: tenant.ID, Environment: sello.EnvTest, Type: sello.TypeConsumo, From: 1, To: 50}
	if err := db.AddSequence(ctx, s); err != nil {
		t.Fatal(err)
	}
	// 50 left: low by default, not when low means 1% or 10 left.
	w := worker.New(worker.Config{Store: db, MasterKey: mk, SequenceThresholds: sello.SequenceThresholds{LowPercent: 1, LowCount: 10}})
	if n, err := w.CheckSequences(ctx); err != nil || n != 0 {
		t.Fatalf("check warned %d (%v), want 0", n, err)
	}
}

// TestSequenceCheckJob: the periodic sequence check runs at start on the
// job runner, and its sequence.low event fans out to a subscribed
// webhook endpoint.
func TestSequenceCheckJob(t *testing.T) {
	forEachStore(t, func(t *testing.T, st storetest.Store) {
		h := mustHookTest(t, st, worker.Config{Webhooks: webhook.Options{AllowLoopback: true}})
		rc := mustReceiver(t, false, nil)
		h.endpoint(t, sello.EnvTest, rc.URL+"/hooks", secretA, sello.EventSequenceLow)
		s := &sello.Sequence{TenantID: h.tenant.ID, Environment: sello.EnvTest, Type: sello.TypeConsumo, From: 1, To: 20}
		if err := st.AddSequence(t.Context(), s); err != nil {
			t.Fatal(err)
		}
		h.startPeriodic(t, st)

		ev := verify(t, rc.waitRequests(t, 1)[0], secretA)
		if ev.Type != "sequence.low" || ev.Data.Payload["sequenceId"] != s.ID || ev.Data.Payload["type"] != "E32" || ev.Data.Payload["left"] != float64(20) {
			t.Errorf("event: got %+v, want sequence.low of %s with 20 left", ev, s.ID)
		}
	})
}
