package worker

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/metrics"
)

// SequenceCheckArgs looks for e-NCF ranges running low or about to expire.
type SequenceCheckArgs struct{}

// Kind implements river.JobArgs.
func (SequenceCheckArgs) Kind() string { return "sello.sequence_check" }

// sequenceCheckWorker emits sequence.low and sequence.expiring, once per
// range and threshold (Config.SequenceThresholds).
type sequenceCheckWorker struct {
	river.WorkerDefaults[SequenceCheckArgs]
	w *Worker
}

func (sw *sequenceCheckWorker) Work(ctx context.Context, job *river.Job[SequenceCheckArgs]) error {
	_, err := sw.w.CheckSequences(ctx)
	return err
}

// CheckSequences warns of every range of every tenant that is due a warning
// under Config.SequenceThresholds (see sello.Sequence.Warnings), once per
// range and threshold; it returns how many warnings it wrote. Having read
// them all, it gives the metrics the numbers each tenant has left per
// environment and document type.
func (w *Worker) CheckSequences(ctx context.Context) (int, error) {
	now := w.cfg.Now()
	tenants, err := w.cfg.Store.FindTenants(ctx)
	if err != nil {
		return 0, fmt.Errorf("check sequences: %w", err)
	}
	n := 0
	var left []metrics.SequenceLeft
	for _, t := range tenants {
		for _, env := range sello.Environments {
			seqs, err := w.cfg.Store.FindSequences(ctx, t.ID, env)
			if err != nil {
				return n, fmt.Errorf("check sequences: %w", err)
			}
			left = append(left, numbersLeft(t.RNC, env, seqs, now)...)
			for _, s := range seqs {
				for _, warning := range s.Warnings(w.cfg.SequenceThresholds, now) {
					warned, err := w.cfg.Store.WarnSequence(ctx, s, warning, now)
					if err != nil {
						return n, fmt.Errorf("check sequences: %w", err)
					} else if warned {
						n++
					}
				}
			}
		}
	}
	w.cfg.Metrics.SetSequencesLeft(left)
	return n, nil
}

// numbersLeft is what the tenant (its RNC) has left of each document type
// it has ranges of in env: the numbers of those not expired at now, in the
// order the types first appear in seqs.
func numbersLeft(rnc string, env sello.Environment, seqs []*sello.Sequence, now time.Time) []metrics.SequenceLeft {
	var out []metrics.SequenceLeft
	at := map[sello.DocumentType]int{}
	for _, s := range seqs {
		i, ok := at[s.Type]
		if !ok {
			i = len(out)
			at[s.Type] = i
			out = append(out, metrics.SequenceLeft{Environment: env, Type: s.Type, Tenant: rnc})
		}
		if !s.Expired(now) {
			out[i].Left += s.Remaining()
		}
	}
	return out
}
