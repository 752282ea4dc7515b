package sello_test

import (
	"testing"
	"time"

	"github.com/sello-do/sello"
)

func TestReceiverSeed(t *testing.T) {
	key := []byte("server key")
	now := time.Date(2026, 11, 27, 9, 30, 15, 123456789, time.UTC)
	seed := sello.IssueReceiverSeed(key, sello.EnvTest, "130000001", now)
	if len(seed.Value) != 52 || !seed.IssuedAt.Equal(now.Truncate(100*time.Nanosecond)) {
		t.Fatalf("seed %+v: want 52 characters issued at %s", seed, now.Truncate(100*time.Nanosecond))
	}
	if other := sello.IssueReceiverSeed(key, sello.EnvTest, "130000001", now); other.Value == seed.Value {
		t.Fatal("two seeds issued at the same time have the same value")
	}
	t.Run("OK", func(t *testing.T) {
		for _, at := range []time.Time{now, seed.IssuedAt.Add(sello.ReceiverSeedTTL - time.Nanosecond), seed.IssuedAt.Add(-sello.ReceiverClockSkew)} {
			if err := seed.Check(key, sello.EnvTest, "130000001", at); err != nil {
				t.Errorf("at %s: %v", at, err)
			}
		}
	})
	changed := func(edit func(s *sello.ReceiverSeed)) sello.ReceiverSeed {
		s := seed
		edit(&s)
		return s
	}
	for _, c := range []struct {
		name string
		seed sello.ReceiverSeed
		key  []byte
		env  sello.Environment
		rnc  string
		now  time.Time
	}{
		{"ErrExpired", seed, key, sello.EnvTest, "130000001", seed.IssuedAt.Add(sello.ReceiverSeedTTL)},
		{"ErrFromTheFuture", seed, key, sello.EnvTest, "130000001", seed.IssuedAt.Add(-sello.ReceiverClockSkew - time.Nanosecond)},
		{"ErrOtherKey", seed, []byte("another server's key"), sello.EnvTest, "130000001", now},
		{"ErrOtherEnvironment", seed, key, sello.EnvProd, "130000001", now},
		{"ErrOtherRNC", seed, key, sello.EnvTest, "130000002", now},
		{"ErrOtherFecha", changed(func(s *sello.ReceiverSeed) { s.IssuedAt = s.IssuedAt.Add(100 * time.Nanosecond) }), key, sello.EnvTest, "130000001", now},
		{"ErrOtherValue", changed(func(s *sello.ReceiverSeed) { s.Value = otherFirst(s.Value) }), key, sello.EnvTest, "130000001", now},
		{"ErrShort", changed(func(s *sello.ReceiverSeed) { s.Value = s.Value[:40] }), key, sello.EnvTest, "130000001", now},
		{"ErrNotBase32", changed(func(s *sello.ReceiverSeed) { s.Value = "!" + s.Value[1:] }), key, sello.EnvTest, "130000001", now},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.seed.Check(c.key, c.env, c.rnc, c.now)
			if sello.ErrorCodeOf(err) != sello.CodeUnauthenticated {
				t.Fatalf("got %v, want UNAUTHENTICATED", err)
			}
		})
	}
}

// otherFirst is v with another base32 character first.
func otherFirst(v string) string {
	if v[0] == 'A' {
		return "B" + v[1:]
	}
	return "A" + v[1:]
}
