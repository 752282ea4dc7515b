package worker

import (
	"context"
	"fmt"

	"github.com/riverqueue/river"
	"github.com/sello-do/sello"
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
// range and threshold; it returns how many warnings it wrote.
func (w *Worker) CheckSequences(ctx context.Context) (int, error) {
	now := w.cfg.Now()
	tenants, err := w.cfg.Store.FindTenants(ctx)
	if err != nil {
		return 0, fmt.Errorf("check sequences: %w", err)
	}
	n := 0
	for _, t := range tenants {
		for _, env := range sello.Environments {
			seqs, err := w.cfg.Store.FindSequences(ctx, t.ID, env)
			if err != nil {
				return n, fmt.Errorf("check sequences: %w", err)
			}
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
	return n, nil
}
