package skip

import "testing"

const noPostgres = "SELLO_TEST_DATABASE_URL not set: skipping the PostgreSQL suite"

func TestSkip(t *testing.T) { t.Skip(noPostgres) }

func TestSkipNow(t *testing.T) { t.SkipNow() }

func TestSkipAgain(t *testing.T) { t.Skip(noPostgres) }
