package sqlite_test

import (
	"strings"
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/storetest"
)

// TestAuditAppendOnly: the database itself refuses to change or remove an
// audit entry (the triggers of migration 00019); with the triggers
// dropped, an edit shows in the chain.
func TestAuditAppendOnly(t *testing.T) {
	db := MustOpen(t)
	ctx := t.Context()
	tn := storetest.MustCreateTenant(t, db)
	for range 3 {
		storetest.MustAppendAudit(t, db, tn.ID, "u1", "api_key.created")
	}
	for _, q := range []string{
		`UPDATE audit_log SET action = 'api_key.revoked' WHERE seq = 2`,
		`DELETE FROM audit_log WHERE seq = 3`,
		`DELETE FROM audit_log`,
	} {
		_, err := db.SQL().ExecContext(ctx, q)
		if err == nil || !strings.Contains(err.Error(), "audit_log is append-only") {
			t.Errorf("%s: got %v; want a refusal", q, err)
		}
	}
	chain, err := db.AuditChain(ctx, tn.ID)
	if err != nil || len(chain) != 3 || sello.VerifyAuditChain(chain) != nil {
		t.Fatalf("chain after the refusals: %d entries, %v", len(chain), err)
	}
	if _, err := db.SQL().ExecContext(ctx, `DROP TRIGGER audit_log_no_update`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL().ExecContext(ctx, `UPDATE audit_log SET action = 'api_key.revoked' WHERE seq = 2`); err != nil {
		t.Fatal(err)
	}
	chain, _ = db.AuditChain(ctx, tn.ID)
	if ce, ok := sello.VerifyAuditChain(chain).(*sello.AuditChainError); !ok || ce.Seq != 2 {
		t.Fatalf("VerifyAuditChain after an edit of seq 2: %v", sello.VerifyAuditChain(chain))
	}
}
