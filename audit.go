package sello

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
)

// The audit log is append-only and tamper-evident: each tenant's entries
// form a chain, each entry's Hash covering the one before's (PrevHash) and
// every field of its own. An entry edited or removed in the database
// breaks the chain at that entry or the next, which VerifyAuditChain
// names; the stores also refuse UPDATE and DELETE on the table with a
// trigger. Removing the newest entries leaves a shorter chain that is
// still whole: compare the head (the last Seq and Hash, which
// sello audit verify prints) with one kept elsewhere to see that.

// auditHashVersion starts every hashed encoding, so the encoding can
// change.
const auditHashVersion = "sello audit v1\n"

// AuditHash is the hash of e following an entry whose hash is prev (nil
// for the first): SHA-256 over a canonical encoding of prev and every
// field of e but PrevHash and Hash. Strings and byte fields are written
// with their length before them (absent and empty bytes are the same), the
// Seq as 8 bytes, At as its Unix time in microseconds (the stores'
// precision), so that no two different entries encode alike.
func AuditHash(prev []byte, e *AuditEntry) []byte {
	h := sha256.New()
	h.Write([]byte(auditHashVersion))
	writeInt(h, e.Seq)
	for _, s := range []string{e.ID, e.TenantID, e.ActorID, e.ActorEmail, e.Action, e.Target, e.Address} {
		writeBytes(h, []byte(s))
	}
	writeBytes(h, e.Before)
	writeBytes(h, e.After)
	writeInt(h, e.At.UnixMicro())
	writeBytes(h, prev)
	return h.Sum(nil)
}

func writeInt(h hash.Hash, n int64) {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(n))
	h.Write(b[:])
}

func writeBytes(h hash.Hash, b []byte) {
	writeInt(h, int64(len(b)))
	h.Write(b)
}

// AuditChainError is where a tenant's chain breaks: the first entry that
// is not what the chain before it says.
type AuditChainError struct {
	TenantID string
	// Seq is the first broken entry's: the edited entry, the one after a
	// removed one, or the one after an entry whose hash was recomputed.
	Seq    int64
	Reason string
}

func (e *AuditChainError) Error() string {
	return fmt.Sprintf("audit chain broken at seq %d: %s", e.Seq, e.Reason)
}

// VerifyAuditChain checks a tenant's whole chain, in Seq order (as
// PeopleStore.AuditChain returns it): Seq counts from 1 without a gap,
// every entry belongs to the first's tenant, each PrevHash is the Hash
// before (nil for the first), and each Hash is AuditHash of its entry.
// Returns nil or an *AuditChainError naming the first broken Seq.
func VerifyAuditChain(entries []*AuditEntry) error {
	var prev []byte
	for i, e := range entries {
		want := int64(i + 1)
		broken := func(format string, args ...any) error {
			return &AuditChainError{TenantID: entries[0].TenantID, Seq: want, Reason: fmt.Sprintf(format, args...)}
		}
		switch {
		case e.Seq != want:
			return broken("seq %d is missing (the next entry is seq %d)", want, e.Seq)
		case e.TenantID != entries[0].TenantID:
			return broken("the entry belongs to tenant %s", e.TenantID)
		case !bytes.Equal(e.PrevHash, prev):
			return broken("its previous hash is not the hash of seq %d", want-1)
		case !bytes.Equal(e.Hash, AuditHash(prev, e)):
			return broken("its hash does not match its fields")
		}
		prev = e.Hash
	}
	return nil
}
