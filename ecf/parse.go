package ecf

import (
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
func Parse(body []byte, c Issuance) (*Document, error) {
	d, p, err := decode(body)
	if err != nil {
		return nil, err
	}
	check(d, c, p, p.Details())
	if err := p.Err(); err != nil {
		return nil, err
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
