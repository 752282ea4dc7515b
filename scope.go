package sello

import (
	"slices"
	"strings"
)

// Scope is a permission carried by an API key (spec §5).
type Scope string

// The five scopes of spec §5.
const (
	ScopeValidate   Scope = "ecf:validate"
	ScopeCreate     Scope = "ecf:create"
	ScopeRead       Scope = "ecf:read"
	ScopeStatusRead Scope = "status:read"
	ScopeAdmin      Scope = "tenant:admin"
)

// Scopes lists every scope.
var Scopes = []Scope{ScopeValidate, ScopeCreate, ScopeRead, ScopeStatusRead, ScopeAdmin}

// ParseScopes parses a comma-separated list of scopes, rejecting unknown and
// empty entries with INVALID_REQUEST. Duplicates are folded.
func ParseScopes(s string) ([]Scope, error) {
	var out []Scope
	for part := range strings.SplitSeq(s, ",") {
		sc := Scope(strings.TrimSpace(part))
		if !slices.Contains(Scopes, sc) {
			return nil, Errorf(CodeInvalidRequest, "Unknown scope %q: use %s.", sc, JoinScopes(Scopes))
		}
		if !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	return out, nil
}

// JoinScopes joins scopes with commas.
func JoinScopes(scopes []Scope) string {
	s := make([]string, len(scopes))
	for i, sc := range scopes {
		s[i] = string(sc)
	}
	return strings.Join(s, ",")
}
