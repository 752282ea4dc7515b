package sello_test

import (
	"crypto/x509/pkix"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/xmldsig"
)

// TestKeyCache: a certificate's key is opened once and then served from
// the cache; a nil cache opens every time; a wrong master key is an error
// and caches nothing.
func TestKeyCache(t *testing.T) {
	mk, err := sello.ParseMasterKey(sello.GenerateMasterKey())
	if err != nil {
		t.Fatal(err)
	}
	key, x, err := xmldsig.GenerateSelfSigned(pkix.Name{CommonName: "Prueba"}, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	c, err := sello.NewCertificate("t1", sello.EnvTest, x, key, mk)
	if err != nil {
		t.Fatal(err)
	}
	other, err := sello.ParseMasterKey(sello.GenerateMasterKey())
	if err != nil {
		t.Fatal(err)
	}
	var kc sello.KeyCache
	if _, _, err := kc.Open(c, other); err == nil {
		t.Fatal("opened with another master key")
	}
	k1, x1, err := kc.Open(c, mk)
	if err != nil {
		t.Fatal(err)
	}
	if !k1.Equal(key) || !x1.Equal(x) {
		t.Fatal("opened another key or certificate")
	}
	k2, x2, err := kc.Open(c, other) // cached: the master key is not asked again
	if err != nil || k2 != k1 || x2 != x1 {
		t.Fatalf("second open: %p %p %v; want the cached %p %p", k2, x2, err, k1, x1)
	}
	var none *sello.KeyCache
	k3, _, err := none.Open(c, mk)
	if err != nil || k3 == k1 || !k3.Equal(key) {
		t.Fatalf("nil cache: %p, %v; want a key opened anew", k3, err)
	}
}
