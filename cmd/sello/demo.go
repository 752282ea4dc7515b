package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/sello-do/sello"
)

// The demo tenants of `sello serve --demo`: an issuer, and a buyer that
// receives its e-CFs, so that a document can go from one tenant to the
// other in one process (docs/receptor.md).
const (
	demoRNC       = "130000001"
	demoName      = "Sello Demo SRL"
	demoBuyerRNC  = "130000002"
	demoBuyerName = "Comprador Demo SRL"
)

// demoPlan is generous, so that trying the demo never trips the limit and
// sello bench measures the pipeline rather than the plan.
var demoPlan = sello.RatePlan{Name: "demo", Rate: 10000, Burst: 20000}

// seedDemo creates, on first start, the demo tenants (the issuer and the
// buyer, demoBuyerRNC), each with a sequence for every type in every
// environment (DGII's test ranges: 1 to 10,000,000; 50,000,000 for type 32)
// and one key per environment with every scope, printed once: "demo key ENV
// KEY" for the issuer, "demo buyer key ENV KEY" for the buyer.
//
// It also generates a self-signed certificate per tenant and environment,
// so documents and acuses get signed at once; eCF gets one only while DGII
// is simulated (DGII's real production refuses self-signed certificates).
func seedDemo(ctx context.Context, st *storage, mk *sello.MasterKey, simulated bool, now time.Time, stdout, stderr io.Writer) error {
	if _, err := st.FindTenantByRNC(ctx, demoRNC); err == nil {
		fmt.Fprintf(stderr, "demo: tenant %s exists already; its keys were printed when it was created (sello keys create makes more)\n", demoRNC)
		return nil
	} else if sello.ErrorCodeOf(err) != sello.CodeNotFound {
		return err
	}
	for _, d := range []struct{ rnc, name, label string }{
		{demoRNC, demoName, "demo key"},
		{demoBuyerRNC, demoBuyerName, "demo buyer key"},
	} {
		if err := seedDemoTenant(ctx, st, mk, simulated, now, d.rnc, d.name, d.label, stdout, stderr); err != nil {
			return err
		}
	}
	return nil
}

// seedDemoTenant creates one demo tenant with its sequences, certificates
// and keys, printing each key as "label ENV KEY".
func seedDemoTenant(ctx context.Context, st *storage, mk *sello.MasterKey, simulated bool, now time.Time, rnc, name, label string, stdout, stderr io.Writer) error {
	t := &sello.Tenant{RNC: rnc, Name: name, Plan: demoPlan}
	if err := st.CreateTenant(ctx, t); err != nil {
		return err
	}
	expires := sello.Date{Year: sello.TodayInDR(now).Year + 1, Month: time.December, Day: 31}
	for _, env := range sello.Environments {
		for _, typ := range sello.DocumentTypes {
			seq := &sello.Sequence{TenantID: t.ID, Environment: env, Type: typ, From: 1, To: 10_000_000, ExpiresOn: &expires}
			if typ == sello.TypeConsumo {
				seq.To = 50_000_000
			}
			if typ == sello.TypeConsumo || typ == sello.TypeNotaCredito {
				seq.ExpiresOn = nil // DGII: types 32 and 34 carry no expiry.
			}
			if err := st.AddSequence(ctx, seq); err != nil {
				return err
			}
		}
	}
	for _, env := range sello.Environments {
		if env == sello.EnvProd && !simulated {
			fmt.Fprintf(stderr, "demo: no certificate of %s for eCF against live DGII: add a real one with sello certificates add\n", rnc)
			continue
		}
		key, cert, err := generateCertificate(t)
		if err != nil {
			return err
		}
		c, err := sello.NewCertificate(t.ID, env, cert, key, mk)
		if err != nil {
			return err
		}
		if err := st.AddCertificate(ctx, c); err != nil {
			return err
		}
	}
	for _, env := range sello.Environments {
		k, plaintext := sello.NewAPIKey(t.ID, env, "demo", sello.Scopes, nil)
		if err := st.CreateAPIKey(ctx, k); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s %s %s\n", label, env, plaintext)
	}
	return nil
}
