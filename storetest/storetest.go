package storetest

import (
	"testing"

	"github.com/sello-do/sello"
)

// Run runs the storage contract against the engine open returns. open is
// called once per subtest and must return a fresh, empty store that its t
// closes in Cleanup; the store must have an exported field
// Now func() time.Time, which the suite sets to a fake clock.
func Run(t *testing.T, open func(t *testing.T) sello.Store) {
	t.Run("Tenant", func(t *testing.T) { testTenant(t, open) })
	t.Run("APIKey", func(t *testing.T) { testAPIKey(t, open) })
	t.Run("Sequence", func(t *testing.T) { testSequence(t, open) })
	t.Run("CreateDocument", func(t *testing.T) { testCreateDocument(t, open) })
	t.Run("Idempotency", func(t *testing.T) { testIdempotency(t, open) })
	t.Run("ReadDocuments", func(t *testing.T) { testReadDocuments(t, open) })
	t.Run("Events", func(t *testing.T) { testEvents(t, open) })
	t.Run("EventsOrder", func(t *testing.T) { testEventsOrder(t, open) })
	t.Run("Lifecycle", func(t *testing.T) { testLifecycle(t, open) })
	t.Run("Certificates", func(t *testing.T) { testCertificates(t, open) })
	t.Run("Jobs", func(t *testing.T) { testJobs(t, open) })
	t.Run("Webhooks", func(t *testing.T) { testWebhooks(t, open) })
	t.Run("TenantIsolation", func(t *testing.T) { testTenantIsolation(t, open) })
	t.Run("EnvironmentIsolation", func(t *testing.T) { testEnvironmentIsolation(t, open) })
}
