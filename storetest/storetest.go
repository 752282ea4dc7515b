package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/sello-do/sello/internal/jobs"

	"github.com/sello-do/sello"
)

// Store is what the suite runs against: the domain's store and the
// engine's job runner over the same database.
type Store interface {
	sello.Store
	NewJobRunner(workers *river.Workers, cfg jobs.Config) (jobs.Runner, error)
	// CountJobs counts River's unfinished jobs by kind and state, reading
	// at most limit of them (the metrics' queue depth).
	CountJobs(ctx context.Context, limit int) ([]jobs.Count, error)
	// ObserveCommits has f told of every COMMIT of the store's write
	// transactions (the metrics' commit latency and group size).
	ObserveCommits(f func(group int, took time.Duration))
}

// Open returns a fresh, empty store whose clock is now, which its t closes
// in Cleanup.
type Open func(t *testing.T, now func() time.Time) Store

// Run runs the storage contract against the engine open returns; open is
// called once per subtest, with the suite's fake clock.
func Run(t *testing.T, open Open) {
	t.Run("Tenant", func(t *testing.T) { testTenant(t, open) })
	t.Run("APIKey", func(t *testing.T) { testAPIKey(t, open) })
	t.Run("APIKeyUse", func(t *testing.T) { testAPIKeyUse(t, open) })
	t.Run("Sequence", func(t *testing.T) { testSequence(t, open) })
	t.Run("CreateDocument", func(t *testing.T) { testCreateDocument(t, open) })
	t.Run("Idempotency", func(t *testing.T) { testIdempotency(t, open) })
	t.Run("ReadDocuments", func(t *testing.T) { testReadDocuments(t, open) })
	t.Run("Events", func(t *testing.T) { testEvents(t, open) })
	t.Run("EventsOrder", func(t *testing.T) { testEventsOrder(t, open) })
	t.Run("DocumentStory", func(t *testing.T) { testDocumentStory(t, open) })
	t.Run("Lifecycle", func(t *testing.T) { testLifecycle(t, open) })
	t.Run("Delivery", func(t *testing.T) { testDelivery(t, open) })
	t.Run("Certificates", func(t *testing.T) { testCertificates(t, open) })
	t.Run("SequenceWarnings", func(t *testing.T) { testSequenceWarnings(t, open) })
	t.Run("Contingency", func(t *testing.T) { testContingency(t, open) })
	t.Run("Jobs", func(t *testing.T) { testJobs(t, open) })
	t.Run("Webhooks", func(t *testing.T) { testWebhooks(t, open) })
	t.Run("Inbound", func(t *testing.T) { testInbound(t, open) })
	t.Run("InboundList", func(t *testing.T) { testInboundList(t, open) })
	t.Run("InboundDGII", func(t *testing.T) { testInboundDGII(t, open) })
	t.Run("InboundConfirmQueue", func(t *testing.T) { testInboundConfirmQueue(t, open) })
	t.Run("ApprovalReceived", func(t *testing.T) { testApproval(t, open) })
	t.Run("Approvals", func(t *testing.T) { testApprovals(t, open) })
	t.Run("ApprovalList", func(t *testing.T) { testApprovalList(t, open) })
	t.Run("ReceiverAuth", func(t *testing.T) { testReceiverAuth(t, open) })
	t.Run("InboundFromIssuer", func(t *testing.T) { testInboundFromIssuer(t, open) })
	t.Run("Certification", func(t *testing.T) { testCertification(t, open) })
	t.Run("TenantIsolation", func(t *testing.T) { testTenantIsolation(t, open) })
	t.Run("EnvironmentIsolation", func(t *testing.T) { testEnvironmentIsolation(t, open) })
	t.Run("Voids", func(t *testing.T) { testVoids(t, open) })
	t.Run("People", func(t *testing.T) { testPeople(t, open) })
	t.Run("Overview", func(t *testing.T) { testOverview(t, open) })
	t.Run("MetricsHooks", func(t *testing.T) { testMetricsHooks(t, open) })
}
