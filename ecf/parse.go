package ecf

import (
	"errors"
	"strings"

	"github.com/sello-do/sello"
)

// Parse decodes a request body and checks it, answering every problem in
// one error: the shape problems Decode finds (unknown fields, wrong JSON
// types, empty values) and the rule violations Check finds in what could be
// decoded. A rule violation at or under a path that already has a shape
// problem is left out, since it would only repeat it.
//
// Returns INVALID_JSON for malformed JSON and VALIDATION_FAILED otherwise;
// on success the document is checked and its totals are filled in.
func Parse(body []byte, c Context) (*Document, error) {
	d, shape, err := decode(body)
	if err != nil {
		return nil, err
	}
	var rules []sello.ErrorDetail
	var e *sello.Error
	if err := Check(d, c); errors.As(err, &e) {
		rules = e.Details
	} else if err != nil {
		return nil, err
	}
	details := shape
	for _, r := range rules {
		if !covered(r.Path, shape) {
			details = append(details, r)
		}
	}
	if len(details) > 0 {
		return nil, sello.ValidationError(details)
	}
	return d, nil
}

// covered reports whether path lies at or under the path of one of details.
func covered(path string, details []sello.ErrorDetail) bool {
	for _, d := range details {
		if path == d.Path || strings.HasPrefix(path, d.Path+".") || strings.HasPrefix(path, d.Path+"[") {
			return true
		}
	}
	return false
}
