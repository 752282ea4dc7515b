package storetest

import (
	"testing"
	"time"

	"github.com/sello-do/sello"
)

// testInboundFromIssuer holds IssuerQuotaReached, what the receivers'
// quota per issuer counts: one issuer's documents to one tenant in one
// environment, received since a time, that DGII has not accepted; and the
// earliest of the latest quota of them.
func testInboundFromIssuer(t *testing.T, open Open) {
	e := newEnv(t, open)
	a, b := MustCreateTenant(t, e.s), MustCreateTenant(t, e.s)
	const issuer, other = "131000001", "131000002"
	start := e.clock.Peek()
	// Received a second apart: the latest of them are told apart.
	first := MustCreateInbound(t, e.s, newInbound(a.ID, sello.EnvTest, issuer, 1))
	e.clock.Add(time.Second)
	second := MustCreateInbound(t, e.s, newInbound(a.ID, sello.EnvTest, issuer, 2))
	e.clock.Add(time.Second)
	third := MustCreateInbound(t, e.s, newInbound(a.ID, sello.EnvTest, issuer, 3))
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
	e.clock.Add(time.Second)
	unconfirmed := MustCreateInbound(t, e.s, newInbound(a.ID, sello.EnvTest, confirmedIssuer, 2))
	MustRecordDGII(t, e.s, a.ID, sello.EnvTest, c1.ID, 1, "Aceptado")
	e.clock.Add(time.Hour)
	later := e.clock.Peek()
	last := MustCreateInbound(t, e.s, newInbound(a.ID, sello.EnvTest, issuer, 4))

	for _, c := range []struct {
		name   string
		tenant *sello.Tenant
		env    sello.Environment
		issuer string
		since  time.Time
		n      int // the documents counted
		// latest are the receivedAt of the latest of them, newest first:
		// latest[q-1] is the earliest of the latest q.
		latest []time.Time
	}{
		{"All", a, sello.EnvTest, issuer, start, 4, []time.Time{last.ReceivedAt, third.ReceivedAt, second.ReceivedAt, first.ReceivedAt}},
		{"Since", a, sello.EnvTest, issuer, later, 1, []time.Time{last.ReceivedAt}},
		{"SinceExactly", a, sello.EnvTest, issuer, last.ReceivedAt, 1, []time.Time{last.ReceivedAt}},
		{"None", a, sello.EnvTest, "131000003", start, 0, nil},
		{"Future", a, sello.EnvTest, issuer, later.Add(time.Hour), 0, nil},
		{"OtherTenant", b, sello.EnvTest, issuer, start, 1, nil},
		{"OtherEnvironment", a, sello.EnvCert, issuer, start, 1, nil},
		{"Confirmed", a, sello.EnvTest, confirmedIssuer, start, 2, []time.Time{unconfirmed.ReceivedAt, forged.ReceivedAt}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for quota := 1; quota <= c.n+1; quota++ {
				reached, earliest, err := e.s.IssuerQuotaReached(t.Context(), c.tenant.ID, c.env, c.issuer, c.since, quota)
				if err != nil {
					t.Fatal(err)
				}
				if reached != (quota <= c.n) {
					t.Errorf("quota %d: got reached %v, want %v (%d documents)", quota, reached, !reached, c.n)
				} else if reached && c.latest != nil && !earliest.Equal(c.latest[quota-1]) {
					t.Errorf("quota %d: got earliest %s, want %s", quota, earliest, c.latest[quota-1])
				}
			}
			if reached, _, err := e.s.IssuerQuotaReached(t.Context(), c.tenant.ID, c.env, c.issuer, c.since, 0); err != nil || reached {
				t.Errorf("no quota: got reached %v, %v", reached, err)
			}
		})
	}
}
