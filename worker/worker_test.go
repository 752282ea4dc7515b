package worker_test

import (
	"context"
	"crypto/x509/pkix"
	"encoding/pem"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/metrics"
	"github.com/sello-do/sello/internal/metrics/metricstest"
	"github.com/sello-do/sello/oracle"
	"github.com/sello-do/sello/sqlite"
	"github.com/sello-do/sello/sqlite/sqlitetest"
	"github.com/sello-do/sello/worker"
	"github.com/sello-do/sello/xmldsig"
)

// TestSignedDocumentsValidate signs every golden document the ecf package
// produces (the ten e-CF types, RFCE, ACECF, ANECF, ARECF) as the lifecycle
// does, and checks each with DGII's XSD (xmllint) and the signature with
// xmlsec1: the documents Sello sends are the documents DGII specifies.
func TestSignedDocumentsValidate(t *testing.T) {
	xmllint, xmlsec1 := oracle.Require(t, "xmllint"), oracle.Require(t, "xmlsec1")
	key, cert, err := xmldsig.GenerateSelfSigned(pkix.Name{CommonName: "Prueba", SerialNumber: "RNC-131793916"}, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	signer := &xmldsig.Signer{Key: key, Cert: cert}
	dir := t.TempDir()
	certFile := filepath.Join(dir, "cert.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}), 0o600)

	goldens, _ := filepath.Glob(filepath.Join("..", "ecf", "testdata", "golden", "*.xml"))
	if len(goldens) < 14 {
		t.Fatalf("%d golden documents, want the 10 types, RFCE, ACECF, ANECF and ARECF", len(goldens))
	}
	for _, g := range goldens {
		name := strings.TrimSuffix(filepath.Base(g), ".xml")
		t.Run(name, func(t *testing.T) {
			unsigned, err := os.ReadFile(g)
			if err != nil {
				t.Fatal(err)
			}
			signed, err := signer.Sign(unsigned)
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, name+".xml")
			os.WriteFile(file, signed, 0o600)
			if out, err := exec.Command(xmllint, "--noout", "--schema", oracle.XSD(t, schemaOf(name)), file).CombinedOutput(); err != nil {
				t.Fatalf("xmllint: %v\n%s", err, out)
			}
			if out, err := exec.Command(xmlsec1, "--verify", "--trusted-pem", certFile, file).CombinedOutput(); err != nil {
				t.Fatalf("xmlsec1: %v\n%s", err, out)
			}
		})
	}
}

// schemaOf names the XSD of a golden file.
func schemaOf(name string) string {
	switch {
	case strings.HasPrefix(name, "E"):
		return "e-CF-" + name[1:3] + ".xsd"
	case strings.HasPrefix(name, "RFCE"):
		return "RFCE-32.xsd"
	}
	kind, _, _ := strings.Cut(name, "-")
	return kind + ".xsd"
}

func TestCheckCertificates(t *testing.T) {
	ctx := context.Background()
	db, mk, tenant := mustTenantStore(t)
	now := time.Now()
	var latest time.Time
	for _, notAfter := range []time.Time{now.Add(10 * 24 * time.Hour), now.Add(365 * 24 * time.Hour)} {
		key, cert, err := xmldsig.GenerateSelfSigned(pkix.Name{CommonName: "Prueba " + notAfter.String()}, notAfter)
		if err != nil {
			t.Fatal(err)
		}
		c, err := sello.NewCertificate(tenant.ID, sello.EnvTest, cert, key, mk)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.AddCertificate(ctx, c); err != nil {
			t.Fatal(err)
		}
		latest = c.NotAfter
	}
	m := metrics.New(metrics.Options{TenantLabels: true})
	w := worker.New(worker.Config{Store: db, MasterKey: mk, Metrics: m})
	if n, err := w.CheckCertificates(ctx); err != nil || n != 1 {
		t.Fatalf("first check warned %d (%v), want 1: only the certificate expiring within 30 days", n, err)
	}
	// The tenant's latest certificate is the one the metrics tell of.
	want := map[string]float64{"environment=TesteCF,tenant=" + tenant.RNC: float64(latest.Unix())}
	if got := metricstest.Values(t, m, "sello_tenant_certificate_expiry_timestamp_seconds"); !maps.Equal(got, want) {
		t.Errorf("tenant certificate expiry %v, want %v", got, want)
	}
	if got := metricstest.Values(t, m, "sello_certificate_earliest_expiry_timestamp_seconds"); got["environment=TesteCF"] != float64(latest.Unix()) || len(got) != 1 {
		t.Errorf("earliest certificate expiry %v, want TesteCF's %d", got, latest.Unix())
	}
	if n, err := w.CheckCertificates(ctx); err != nil || n != 0 {
		t.Fatalf("second check warned %d (%v), want 0: once per certificate", n, err)
	}
	events, err := db.ListEvents(ctx, tenant.ID, sello.EnvTest, sello.EventFilter{Type: sello.EventCertificateExpiring, Limit: 10})
	if err != nil || len(events) != 1 {
		t.Fatalf("%d certificate.expiring events (%v), want 1", len(events), err)
	}
	if e := events[0].Resource(); e.Document != nil || e.Data.Severity != "warning" || e.Data.Payload["certificateId"] == nil {
		t.Fatalf("event %+v", e)
	}
}

// mustTenantStore is a fresh SQLite store with one tenant, and a master key.
func mustTenantStore(t *testing.T) (*sqlite.DB, *sello.MasterKey, *sello.Tenant) {
	t.Helper()
	db := sqlitetest.MustOpen(t)
	mk, err := sello.ParseMasterKey(sello.GenerateMasterKey())
	if err != nil {
		t.Fatal(err)
	}
	tenant := &sello.Tenant{RNC: "131793916", Name: "Prueba SRL", Plan: sello.DefaultRatePlan}
	if err := db.CreateTenant(t.Context(), tenant); err != nil {
		t.Fatal(err)
	}
	return db, mk, tenant
}
