package pass

import "testing"

func TestPass(t *testing.T) {
	t.Parallel()
	t.Run("Sub", func(t *testing.T) { t.Parallel() })
}
