package portal_test

import (
	"testing"

	"github.com/sello-do/sello/postgres"
	"github.com/sello-do/sello/postgres/pgtest"
)

// TestPostgres runs the portal's session, second-factor and link tests on
// PostgreSQL (SELLO_TEST_DATABASE_URL), each on a fresh schema: the
// sessions, users and links are the store's, and every node of a
// PostgreSQL deployment reads them there.
func TestPostgres(t *testing.T) {
	pgtest.DatabaseURL(t)
	for _, tt := range []struct {
		name string
		test func(*testing.T, *Site)
	}{
		{"Login", testLogin},
		{"SessionFixation", testSessionFixation},
		{"SessionExpiry", testSessionExpiry},
		{"CSRF", testCSRF},
		{"SecondFactor", testSecondFactor},
		{"SecondFactorRequired", testSecondFactorRequired},
		{"ChangePassword", testChangePassword},
		{"TenantSwitch", testTenantSwitch},
		{"Invitation", testInvitation},
		{"PasswordReset", testPasswordReset},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db, err := postgres.Open(t.Context(), pgtest.MustSchema(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			tt.test(t, MustSiteOn(t, db))
		})
	}
}
