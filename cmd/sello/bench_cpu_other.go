//go:build !unix

package main

import "time"

// processCPU is not measured here: the bench falls back on wall time.
func processCPU() (time.Duration, bool) { return 0, false }
