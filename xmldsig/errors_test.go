package xmldsig_test

import (
	"errors"
	"strings"
)

// errorsIs reports whether err wraps target and carries Verify's context.
func errorsIs(err, target error) bool {
	return errors.Is(err, target) && strings.HasPrefix(err.Error(), "verify xml signature: ")
}
