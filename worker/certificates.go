package worker

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/metrics"
)

// CertificateCheckArgs looks for certificates about to expire.
type CertificateCheckArgs struct{}

// Kind implements river.JobArgs.
func (CertificateCheckArgs) Kind() string { return "sello.certificate_check" }

// Periodic returns the periodic jobs of the lifecycle: the certificate and
// sequence checks, hourly and at start, the events' retention, daily and at
// start, the receivers' expired seeds and tokens, every
// ReceiverAuthPruneInterval, and the portal's dead sessions and links, every
// PortalPruneInterval (River runs periodic jobs on one node only).
func (w *Worker) Periodic() []*river.PeriodicJob {
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(time.Hour),
			func() (river.JobArgs, *river.InsertOpts) { return CertificateCheckArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(time.Hour),
			func() (river.JobArgs, *river.InsertOpts) { return SequenceCheckArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
		eventRetentionJob(),
		receiverAuthPruneJob(),
		portalPruneJob(),
	}
}

// certificateCheckWorker emits certificate.expiring, once per certificate,
// CertificateExpiryWarning before a valid certificate expires.
type certificateCheckWorker struct {
	river.WorkerDefaults[CertificateCheckArgs]
	w *Worker
}

func (cw *certificateCheckWorker) Work(ctx context.Context, job *river.Job[CertificateCheckArgs]) error {
	_, err := cw.w.CheckCertificates(ctx)
	return err
}

// CheckCertificates warns of every valid certificate of every tenant that
// expires within CertificateExpiryWarning, once each; it returns how many
// warnings it wrote. Having read them all, it gives the metrics each
// tenant's latest expiry per environment.
func (w *Worker) CheckCertificates(ctx context.Context) (int, error) {
	now := w.cfg.Now()
	tenants, err := w.cfg.Store.FindTenants(ctx)
	if err != nil {
		return 0, fmt.Errorf("check certificates: %w", err)
	}
	n := 0
	var expiries []metrics.CertificateExpiry
	for _, t := range tenants {
		for _, env := range sello.Environments {
			certs, err := w.cfg.Store.FindCertificates(ctx, t.ID, env)
			if err != nil {
				return n, fmt.Errorf("check certificates: %w", err)
			}
			if latest := latestExpiry(certs); !latest.IsZero() {
				expiries = append(expiries, metrics.CertificateExpiry{Environment: env, Tenant: t.RNC, NotAfter: latest})
			}
			for _, c := range certs {
				if !c.Valid(now) || c.NotAfter.Sub(now) > sello.CertificateExpiryWarning {
					continue
				}
				warned, err := w.cfg.Store.WarnCertificateExpiring(ctx, c, now)
				if err != nil {
					return n, fmt.Errorf("check certificates: %w", err)
				} else if warned {
					n++
				}
			}
		}
	}
	w.cfg.Metrics.SetCertificateExpiries(expiries)
	return n, nil
}

// latestExpiry is the latest NotAfter of certs, zero when there is none.
func latestExpiry(certs []*sello.Certificate) time.Time {
	var latest time.Time
	for _, c := range certs {
		if c.NotAfter.After(latest) {
			latest = c.NotAfter
		}
	}
	return latest
}
