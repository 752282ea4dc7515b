package metrics

import (
	"bytes"
	"os"
	"strconv"
)

// peakRSS is the process's peak resident memory in bytes, VmHWM of
// /proc/self/status; 0 where there is no such file (not Linux).
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	return parseVmHWM(b)
}

// parseVmHWM reads the line "VmHWM:   123456 kB" of a /proc/PID/status
// file, in bytes; 0 when there is none.
func parseVmHWM(status []byte) int64 {
	for line := range bytes.Lines(status) {
		v, ok := bytes.CutPrefix(line, []byte("VmHWM:"))
		if !ok {
			continue
		}
		f := bytes.Fields(v)
		if len(f) != 2 || string(f[1]) != "kB" {
			return 0
		}
		n, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil {
			return 0
		}
		return n << 10
	}
	return 0
}
