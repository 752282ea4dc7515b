package storetest

import (
	"testing"
	"time"

	"github.com/sello-do/sello"
)

// testInboundFromIssuer holds CountInboundFromIssuer, what the receivers'
// quota per issuer counts: one issuer's documents to one tenant in one
// environment, received since a time, and the earliest of them; and the
// hours' counts that bound it (CountInboundFromIssuerHours), kept by the
// receipts and DGII's acceptances, and their prune.
func testInboundFromIssuer(t *testing.T, open Open) {
	e := newEnv(t, open)
	a, b := MustCreateTenant(t, e.s), MustCreateTenant(t, e.s)
	const issuer, other = "131000001", "131000002"
	start := e.clock.Peek()
	var first, last *sello.InboundDocument
	for n := range int64(3) {
		d := MustCreateInbound(t, e.s, newInbound(a.ID, sello.EnvTest, issuer, n+1))
		if first == nil {
			first = d
		}
	}
	// Not counted: another issuer, another tenant, another environment.
	MustCreateInbound(t, e.s, newInbound(a.ID, sello.EnvTest, other, 1))
	MustCreateInbound(t, e.s, newInbound(b.ID, sello.EnvTest, issuer, 1))
	MustCreateInbound(t, e.s, newInbound(a.ID, sello.EnvCert, issuer, 1))
	// Not counted: a document DGII confirmed (the quota is of unconfirmed
	// documents), nor one the issuer sent under another RNC. Counted: the
	// other document under the confirmed one's e-NCF, which DGII's answer
	// refutes, and one DGII has not confirmed.
	const confirmedIssuer = "131000004"
	c1 := MustCreateInbound(t, e.s, newInbound(a.ID, sello.EnvTest, confirmedIssuer, 1))
	forged := newInbound(a.ID, sello.EnvTest, confirmedIssuer, 1)
	forged.XML, forged.SecurityCode = append(forged.XML, " "...), "Zz9Zz9"
	forged = MustCreateInbound(t, e.s, forged)
	MustCreateInbound(t, e.s, newInbound(a.ID, sello.EnvTest, confirmedIssuer, 2))
	MustRecordDGII(t, e.s, a.ID, sello.EnvTest, c1.ID, 1, "Aceptado")
	e.clock.Add(time.Hour)
	later := e.clock.Peek()
	last = MustCreateInbound(t, e.s, newInbound(a.ID, sello.EnvTest, issuer, 4))

	for _, c := range []struct {
		name     string
		tenant   *sello.Tenant
		env      sello.Environment
		issuer   string
		since    time.Time
		n        int
		earliest time.Time
	}{
		{"All", a, sello.EnvTest, issuer, start, 4, first.ReceivedAt},
		{"Since", a, sello.EnvTest, issuer, later, 1, last.ReceivedAt},
		{"SinceExactly", a, sello.EnvTest, issuer, last.ReceivedAt, 1, last.ReceivedAt},
		{"None", a, sello.EnvTest, "131000003", start, 0, time.Time{}},
		{"Future", a, sello.EnvTest, issuer, later.Add(time.Hour), 0, time.Time{}},
		{"OtherTenant", b, sello.EnvTest, issuer, start, 1, time.Time{}},
		{"OtherEnvironment", a, sello.EnvCert, issuer, start, 1, time.Time{}},
		{"Confirmed", a, sello.EnvTest, confirmedIssuer, start, 2, forged.ReceivedAt},
	} {
		t.Run(c.name, func(t *testing.T) {
			n, earliest, err := e.s.CountInboundFromIssuer(t.Context(), c.tenant.ID, c.env, c.issuer, c.since)
			if err != nil {
				t.Fatal(err)
			}
			if n != c.n || (!c.earliest.IsZero() || c.n == 0) && !earliest.Equal(c.earliest) {
				t.Errorf("got %d, earliest %s; want %d, earliest %s", n, earliest, c.n, c.earliest)
			}
			// The hours' counts: the exact count from since's hour on,
			// never less than the count from since.
			hours, err := e.s.CountInboundFromIssuerHours(t.Context(), c.tenant.ID, c.env, c.issuer, c.since)
			if err != nil {
				t.Fatal(err)
			}
			want, _, err := e.s.CountInboundFromIssuer(t.Context(), c.tenant.ID, c.env, c.issuer, sello.IssuerQuotaHour(c.since))
			if err != nil {
				t.Fatal(err)
			}
			if hours != want || hours < c.n {
				t.Errorf("hours' counts: got %d, want %d (at least %d)", hours, want, c.n)
			}
		})
	}

	// Within since's hour, the documents received before since are in the
	// hours' counts too: the quota's check counts exactly only when they
	// reach it.
	t.Run("HoursWithinTheHour", func(t *testing.T) {
		hours, err := e.s.CountInboundFromIssuerHours(t.Context(), a.ID, sello.EnvTest, issuer, first.ReceivedAt.Add(time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		n, _, err := e.s.CountInboundFromIssuer(t.Context(), a.ID, sello.EnvTest, issuer, first.ReceivedAt.Add(time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		if hours != 4 || n != 3 {
			t.Errorf("hours' counts %d, count %d; want 4, 3", hours, n)
		}
	})

	// An accepted document leaves the count once: DGII's answer recorded
	// again changes nothing.
	t.Run("AcceptedOnce", func(t *testing.T) {
		MustRecordDGII(t, e.s, a.ID, sello.EnvTest, c1.ID, 1, "Aceptado")
		hours, err := e.s.CountInboundFromIssuerHours(t.Context(), a.ID, sello.EnvTest, confirmedIssuer, start)
		if err != nil {
			t.Fatal(err)
		}
		if hours != 2 {
			t.Errorf("hours' counts after a second acceptance: %d, want 2", hours)
		}
	})

	// The prune forgets the hours that ended by since, and only those.
	t.Run("Prune", func(t *testing.T) {
		n, err := e.s.PruneIssuerReceipts(t.Context(), last.ReceivedAt)
		if err != nil {
			t.Fatal(err)
		} else if n < 1 {
			t.Errorf("pruned %d hours' counts, want at least 1", n)
		}
		hours, err := e.s.CountInboundFromIssuerHours(t.Context(), a.ID, sello.EnvTest, issuer, start)
		if err != nil {
			t.Fatal(err)
		} else if hours != 1 {
			t.Errorf("hours' counts after the prune: %d, want 1 (the last hour's)", hours)
		}
	})
}
