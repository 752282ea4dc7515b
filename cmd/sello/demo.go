package main

import (
	"context"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/xmldsig"
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

// demoCAFile is where `sello serve --demo` keeps its certificate
// authority, in the data folder: the demo tenants' certificates are issued
// by it and the receivers trust it, so that the demo's trade between its
// tenants passes every check of a signer (docs/receptor.md, "Trust"). It
// holds the CA's certificate and its private key in PEM, mode 0600, and is
// reused across restarts.
const demoCAFile = "demo-ca.pem"

// demoCAValidity is how long a new demo CA lasts.
const demoCAValidity = 10 * 365 * 24 * time.Hour

// demoCA is the demo's certificate authority.
type demoCA struct {
	key  *rsa.PrivateKey
	cert *x509.Certificate
}

// demoCA reads the demo CA from the data folder, and creates it there on
// first start.
func (f *storageFlags) demoCA() (*demoCA, error) {
	path := filepath.Join(f.data, demoCAFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := f.secureData(); err != nil {
			return nil, err
		}
		key, cert, err := xmldsig.GenerateCA(pkix.Name{CommonName: "Sello Demo CA", Organization: []string{"Sello (demo)"}, Country: []string{"DO"}},
			time.Now().Add(demoCAValidity))
		if err != nil {
			return nil, err
		}
		der, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			return nil, err
		}
		out := append(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})...)
		if err := os.WriteFile(path, out, keyFileMode); err != nil {
			return nil, fmt.Errorf("write the demo CA: %w", err)
		}
		return &demoCA{key: key, cert: cert}, nil
	} else if err != nil {
		return nil, fmt.Errorf("read the demo CA: %w", err)
	}
	ca := &demoCA{}
	for {
		var blk *pem.Block
		if blk, b = pem.Decode(b); blk == nil {
			break
		}
		switch blk.Type {
		case "CERTIFICATE":
			ca.cert, err = x509.ParseCertificate(blk.Bytes)
		case "PRIVATE KEY":
			var k any
			if k, err = x509.ParsePKCS8PrivateKey(blk.Bytes); err == nil {
				ca.key, _ = k.(*rsa.PrivateKey)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if ca.cert == nil || ca.key == nil {
		return nil, fmt.Errorf("%s: want the demo CA's CERTIFICATE and RSA PRIVATE KEY in PEM; remove the file to make a new demo CA", path)
	}
	return ca, nil
}

// issue makes a signing certificate of t issued by the demo CA.
func (ca *demoCA) issue(t *sello.Tenant) (*rsa.PrivateKey, *x509.Certificate, error) {
	return xmldsig.IssueCertificate(ca.key, ca.cert, pkix.Name{
		CommonName:   t.Name + " (demo Sello)",
		SerialNumber: "RNC-" + t.RNC,
		Organization: []string{t.Name},
		Country:      []string{"DO"},
	}, time.Now().Add(sello.SelfSignedValidity))
}

// seedDemo creates, on first start, the demo tenants (the issuer and the
// buyer, demoBuyerRNC), each with a sequence for every type in every
// environment (DGII's test ranges: 1 to 10,000,000; 50,000,000 for type 32)
// and one key per environment with every scope, printed once: "demo key ENV
// KEY" for the issuer, "demo buyer key ENV KEY" for the buyer.
//
// It also gives each tenant a certificate per environment issued by the
// demo CA (ca), so documents and acuses get signed at once and the demo
// receivers, which trust ca, trust each other's signatures; eCF gets one
// only while DGII is simulated (DGII's real production accepts no such
// certificate). On a later start it issues one where a tenant has no valid
// certificate of ca (a data folder from before the demo CA, an expired
// one).
func seedDemo(ctx context.Context, st *storage, mk *sello.MasterKey, ca *demoCA, simulated bool, now time.Time, stdout, stderr io.Writer) error {
	if _, err := st.FindTenantByRNC(ctx, demoRNC); err == nil {
		fmt.Fprintf(stderr, "demo: tenant %s exists already; its keys were printed when it was created (sello keys create makes more)\n", demoRNC)
		for _, rnc := range []string{demoRNC, demoBuyerRNC} {
			t, err := st.FindTenantByRNC(ctx, rnc)
			if sello.ErrorCodeOf(err) == sello.CodeNotFound {
				continue
			} else if err != nil {
				return err
			}
			if err := demoCertificates(ctx, st, mk, ca, simulated, t, now); err != nil {
				return err
			}
		}
		return nil
	} else if sello.ErrorCodeOf(err) != sello.CodeNotFound {
		return err
	}
	for _, d := range []struct{ rnc, name, label string }{
		{demoRNC, demoName, "demo key"},
		{demoBuyerRNC, demoBuyerName, "demo buyer key"},
	} {
		if err := seedDemoTenant(ctx, st, mk, ca, simulated, now, d.rnc, d.name, d.label, stdout, stderr); err != nil {
			return err
		}
	}
	return nil
}

// seedDemoTenant creates one demo tenant with its sequences, certificates
// and keys, printing each key as "label ENV KEY".
func seedDemoTenant(ctx context.Context, st *storage, mk *sello.MasterKey, ca *demoCA, simulated bool, now time.Time, rnc, name, label string, stdout, stderr io.Writer) error {
	t, err := createDemoTenant(ctx, st, now, rnc, name)
	if err != nil {
		return err
	}
	if !simulated {
		fmt.Fprintf(stderr, "demo: no certificate of %s for eCF against live DGII: add a real one with sello certificates add\n", rnc)
	}
	if err := demoCertificates(ctx, st, mk, ca, simulated, t, now); err != nil {
		return err
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

// createDemoTenant creates a tenant on the demo plan with a sequence for
// every type in every environment (DGII's test ranges: 1 to 10,000,000;
// 50,000,000 for type 32), as seedDemo's and sello bench --setup-tenants'.
func createDemoTenant(ctx context.Context, st *storage, now time.Time, rnc, name string) (*sello.Tenant, error) {
	t := &sello.Tenant{RNC: rnc, Name: name, Plan: demoPlan}
	if err := st.CreateTenant(ctx, t); err != nil {
		return nil, err
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
				return nil, err
			}
		}
	}
	return t, nil
}

// demoCertificates gives t, in every environment (eCF only while DGII is
// simulated), a certificate issued by ca unless its signing certificate is
// one already.
func demoCertificates(ctx context.Context, st *storage, mk *sello.MasterKey, ca *demoCA, simulated bool, t *sello.Tenant, now time.Time) error {
	for _, env := range sello.Environments {
		if env == sello.EnvProd && !simulated {
			continue
		}
		if err := demoCertificate(ctx, st, mk, ca, t, env, now); err != nil {
			return err
		}
	}
	return nil
}

// demoCertificate gives t a certificate issued by ca in env unless its
// signing certificate there is one already.
func demoCertificate(ctx context.Context, st *storage, mk *sello.MasterKey, ca *demoCA, t *sello.Tenant, env sello.Environment, now time.Time) error {
	if c, err := st.FindSigningCertificate(ctx, t.ID, env, now); err == nil {
		if x, err := x509.ParseCertificate(c.DER); err == nil && x.CheckSignatureFrom(ca.cert) == nil {
			return nil
		}
	} else if sello.ErrorCodeOf(err) != sello.CodeNotFound {
		return err
	}
	key, cert, err := ca.issue(t)
	if err != nil {
		return err
	}
	c, err := sello.NewCertificate(t.ID, env, cert, key, mk)
	if err != nil {
		return err
	}
	return st.AddCertificate(ctx, c)
}
