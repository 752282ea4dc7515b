package main

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

func TestEvery(t *testing.T) {
	t.Run("RunsUntilStopped", func(t *testing.T) {
		var calls atomic.Int32
		stop := every(5*time.Millisecond, time.Second, func(context.Context) { calls.Add(1) })
		deadline := time.Now().Add(10 * time.Second)
		for calls.Load() < 3 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		stop()
		n := calls.Load()
		if n < 3 {
			t.Fatalf("%d calls in 10 s at a 5 ms interval, want at least 3", n)
		}
		time.Sleep(50 * time.Millisecond)
		if after := calls.Load(); after != n {
			t.Errorf("%d calls after stop returned, want none", after-n)
		}
	})
	t.Run("StopCancelsARunAndWaitsForIt", func(t *testing.T) {
		started, ended := make(chan struct{}), make(chan error, 1)
		stop := every(time.Millisecond, time.Hour, func(ctx context.Context) {
			select {
			case started <- struct{}{}:
			default:
				return
			}
			<-ctx.Done()
			ended <- ctx.Err()
		})
		<-started
		stop()
		select {
		case err := <-ended:
			if err != context.Canceled {
				t.Errorf("the run's context ended with %v, want context.Canceled", err)
			}
		default:
			t.Fatal("stop returned before the run in progress ended")
		}
	})
	t.Run("TimeoutBoundsARun", func(t *testing.T) {
		ended := make(chan error, 1)
		stop := every(time.Millisecond, 20*time.Millisecond, func(ctx context.Context) {
			<-ctx.Done()
			select {
			case ended <- ctx.Err():
			default:
			}
		})
		defer stop()
		select {
		case err := <-ended:
			if err != context.DeadlineExceeded {
				t.Errorf("the run's context ended with %v, want context.DeadlineExceeded", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a run with a 20 ms timeout did not end in 10 s")
		}
	})
}
