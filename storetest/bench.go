package storetest

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sello-do/sello"
)

// CreateBench is one case of BenchCreates.
type CreateBench struct {
	Tenants, Clients int
}

// Name is the case's subbenchmark name.
func (c CreateBench) Name() string { return fmt.Sprintf("tenants=%d/clients=%d", c.Tenants, c.Clients) }

// CreateBenches are the cases each engine runs: one tenant's creates from
// 16 clients (as `sello bench --concurrency 16`), and 100 tenants' spread
// evenly, from 16 clients and from 100.
var CreateBenches = []CreateBench{{1, 16}, {100, 16}, {100, 100}}

// BenchCreates measures document creates through s: b.N of type 31 in
// TesteCF from c.Clients goroutines at once, spread evenly over c.Tenants
// new tenants (create i goes to tenant i mod c.Tenants), each with a range
// that b.N fits in. It reports creates/s.
func BenchCreates(b *testing.B, s sello.Store, c CreateBench) {
	tenants := make([]string, c.Tenants)
	for i := range tenants {
		tn := MustCreateTenant(b, s)
		MustAddSequence(b, s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, int64(b.N+1))
		tenants[i] = tn.ID
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	for range c.Clients {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) {
					return
				}
				if _, _, err := s.CreateDocument(b.Context(), newDoc(tenants[i%int64(len(tenants))], sello.EnvTest, sello.TypeCreditoFiscal)); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "creates/s")
}
