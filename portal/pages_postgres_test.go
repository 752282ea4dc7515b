package portal_test

import (
	"testing"

	"github.com/sello-do/sello/postgres"
	"github.com/sello-do/sello/postgres/pgtest"
)

// TestPagesPostgres runs the tests of the API keys', users' and audit
// log's pages on PostgreSQL (SELLO_TEST_DATABASE_URL), each on a fresh
// schema.
func TestPagesPostgres(t *testing.T) {
	pgtest.DatabaseURL(t)
	for _, tt := range []struct {
		name string
		test func(*testing.T, *Site)
	}{
		{"Keys", testKeys},
		{"KeyRotation", testKeyRotation},
		{"KeysRoles", testKeysRoles},
		{"KeysOtherTenant", testKeysOtherTenant},
		{"Users", testUsers},
		{"UsersLastOwner", testUsersLastOwner},
		{"RequireSecondFactor", testRequireSecondFactor},
		{"UsersRoles", testUsersRoles},
		{"UsersOtherTenant", testUsersOtherTenant},
		{"Audit", testAudit},
		{"AuditTampered", func(t *testing.T, site *Site) {
			pool := site.Store.(*postgres.DB).Pool()
			testAuditTampered(t, site, func(q string) error {
				_, err := pool.Exec(t.Context(), q)
				return err
			}, "ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_change")
		}},
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
