package sello

import (
	"strings"
	"time"
)

// Environment is one of DGII's three environments. A key, a sequence, a
// document and an event each belong to exactly one.
type Environment string

// The three environments, spelled as in the API paths.
const (
	EnvTest Environment = "TesteCF" // pre-certification
	EnvCert Environment = "CerteCF" // certification
	EnvProd Environment = "eCF"     // production
)

// Environments lists every environment.
var Environments = []Environment{EnvTest, EnvCert, EnvProd}

// ParseEnvironment returns the environment named s, exactly as in the API
// paths (TesteCF, CerteCF, eCF). Returns INVALID_REQUEST otherwise.
func ParseEnvironment(s string) (Environment, error) {
	switch e := Environment(s); e {
	case EnvTest, EnvCert, EnvProd:
		return e, nil
	}
	return "", Errorf(CodeInvalidRequest, "Unknown environment %q: use TesteCF, CerteCF or eCF.", s)
}

// ParseEnvironmentAnyCase returns the environment named s in any case: the
// API paths' TesteCF, the events' testecf, TESTECF. It is for what people
// type (the CLI's --env); the API paths keep to ParseEnvironment's spelling.
// Returns INVALID_REQUEST for any other name.
func ParseEnvironmentAnyCase(s string) (Environment, error) {
	for _, e := range Environments {
		if strings.EqualFold(s, string(e)) {
			return e, nil
		}
	}
	return "", Errorf(CodeInvalidRequest, "Unknown environment %q: use TesteCF, CerteCF or eCF (in any case: testecf, certecf, ecf).", s)
}

// Slug is the lower-case name used in webhook events, key prefixes and DGII
// URLs: testecf, certecf or ecf.
func (e Environment) Slug() string {
	switch e {
	case EnvTest:
		return "testecf"
	case EnvCert:
		return "certecf"
	case EnvProd:
		return "ecf"
	}
	return ""
}

// DRZone is the Dominican Republic's time zone (GMT-4, no daylight saving).
// DGII's dates and times are in it; Sello's API and events are in UTC.
var DRZone = time.FixedZone("GMT-4", -4*60*60)

// TimeFormat is the layout of every time Sello writes in its API and events:
// UTC, ISO 8601, milliseconds.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// FormatTime formats t as TimeFormat in UTC.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeFormat) }
