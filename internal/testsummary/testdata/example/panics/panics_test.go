package panics

import "testing"

func TestPanic(t *testing.T) {
	t.Log("about to panic")
	panic("boom")
}
