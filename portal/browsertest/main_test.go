package browsertest_test

import (
	"testing"

	"github.com/sello-do/sello/portal/browsertest"
)

func TestMain(m *testing.M) { browsertest.Main(m) }
