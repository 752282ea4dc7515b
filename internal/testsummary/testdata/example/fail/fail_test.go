package fail

import "testing"

func TestPass(t *testing.T) {}

func TestFail(t *testing.T) {
	t.Log("before the subtests")
	t.Run("Sub", func(t *testing.T) { t.Errorf("got 1, want 2") })
	t.Run("Skipped", func(t *testing.T) { t.Skipf("xmllint not found:\ninstall libxml2-utils") })
}
