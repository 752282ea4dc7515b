package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/i18n"
	"github.com/sello-do/sello/internal/jsonstrict"
	"github.com/sello-do/sello/internal/spell"
)

// readBody checks the Content-Type and reads the whole body, at most
// MaxBodyBytes. Returns UNSUPPORTED_MEDIA_TYPE or PAYLOAD_TOO_LARGE.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if err := requireJSON(r); err != nil {
		return nil, err
	}
	if r.ContentLength > MaxBodyBytes {
		return nil, tooLarge()
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	var maxErr *http.MaxBytesError
	if errors.As(err, &maxErr) {
		return nil, tooLarge()
	} else if err != nil {
		return nil, bodyReadError(err)
	}
	return body, nil
}

// bodyReadError is the INVALID_REQUEST of a body that could not be read,
// in words that name no socket address (err, kept for the log, has them).
func bodyReadError(err error) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return sello.Errorf(sello.CodeInvalidRequest, "The request body did not arrive within the server's time limit for a request (docs/api.md); send it in one go.").WithErr(err)
	} else if errors.Is(err, io.ErrUnexpectedEOF) {
		return sello.Errorf(sello.CodeInvalidRequest, "The request body ended before its declared Content-Length.").WithErr(err)
	}
	return sello.Errorf(sello.CodeInvalidRequest, "Could not read the request body: the connection failed before it was complete.").WithErr(err)
}

func tooLarge() error {
	return sello.Errorf(sello.CodePayloadTooLarge, "The request body exceeds the limit of %d bytes (2 MiB).", MaxBodyBytes)
}

// decodeStrict decodes a small JSON request object into v, refusing unknown
// fields and trailing data. Malformed JSON, invalid UTF-8, lone surrogate
// escapes and duplicate keys (compared case-insensitively, as encoding/json
// matches them to fields) give INVALID_JSON; JSON of the wrong shape gives
// VALIDATION_FAILED with the offending path.
func decodeStrict(body []byte, v any) error {
	if err := jsonstrict.CheckFold(body); jsonstrict.IsSyntax(err) {
		return invalidJSON(body)
	} else if err != nil {
		return sello.Errorf(sello.CodeInvalidJSON, "Invalid JSON: %v.", err)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var typeErr *json.UnmarshalTypeError
		switch {
		case errors.As(err, &typeErr):
			return requestInvalid([]problem{{typeErr.Field,
				sello.Textf("must be %s, not a JSON %s", jsonKind(typeErr.Type.Kind().String()), typeErr.Value)}})
		case bytes.HasPrefix([]byte(err.Error()), []byte("json: unknown field ")):
			if problems := unknownFields(body, reflect.TypeOf(v)); len(problems) > 0 {
				return requestInvalid(problems)
			}
			field := err.Error()[len("json: unknown field "):]
			return requestInvalid([]problem{{trimQuotes(field), sello.Textf("unknown field")}})
		}
		return sello.Errorf(sello.CodeInvalidJSON, "The body is not a JSON object of the expected shape: %v.", err)
	}
	return nil
}

// requestInvalid is VALIDATION_FAILED for a request body that is not a
// document (sello.ValidationError speaks of documents): its message says
// what is wrong, naming the first problem.
func requestInvalid(problems []problem) *sello.Error {
	var p sello.Problems
	for _, pr := range problems {
		p.AddText(pr.path, pr.text)
	}
	first := problems[0]
	what := noPeriod{first.text}
	switch n := len(problems) - 1; {
	case n == 1:
		return p.Errorf(sello.CodeValidationFailed, "The request is not valid: %s: %s (and 1 more problem).", first.path, what)
	case n > 1:
		return p.Errorf(sello.CodeValidationFailed, "The request is not valid: %s: %s (and %d more problems).", first.path, what, n)
	case strings.HasSuffix(what.String(), "?"):
		return p.Errorf(sello.CodeValidationFailed, "The request is not valid: %s: %s", first.path, what)
	default:
		return p.Errorf(sello.CodeValidationFailed, "The request is not valid: %s: %s.", first.path, what)
	}
}

// problem is one problem of a request body: where, and what, in the
// reader's language.
type problem struct {
	path string
	text sello.Text
}

// noPeriod is a text without its final period, to go inside a sentence.
type noPeriod struct{ text sello.Text }

func (t noPeriod) In(lang i18n.Lang) string { return strings.TrimSuffix(t.text.In(lang), ".") }
func (t noPeriod) String() string           { return t.In(i18n.EN) }

// unknownFields lists the members of body that no field of type t takes,
// each at its path ("ranges[0].tipo") with the closest known name
// suggested (spell.Closest), at most sello.MaxDetails of them. Names match
// fields as encoding/json matches them, exactly or else ignoring case. It
// runs on the error path only: encoding/json's error names the first
// unknown field but neither where it is nor what was meant.
func unknownFields(body []byte, t reflect.Type) []problem {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return nil
	}
	var problems []problem
	var walk func(path string, v any, t reflect.Type)
	walk = func(path string, v any, t reflect.Type) {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.Struct:
			m, _ := v.(map[string]any)
			names, index := jsonFields(t)
			for _, k := range slices.Sorted(maps.Keys(m)) {
				i := slices.Index(names, k)
				if i < 0 {
					i = slices.IndexFunc(names, func(n string) bool { return strings.EqualFold(n, k) })
				}
				p := k
				if path != "" {
					p = path + "." + k
				}
				if i >= 0 {
					walk(p, m[k], t.Field(index[i]).Type)
				} else if len(problems) < sello.MaxDetails {
					msg := sello.Textf("unknown field")
					if s := spell.Closest(k, names); s != "" {
						msg = sello.Textf("unknown field; did you mean %q?", s)
					}
					problems = append(problems, problem{p, msg})
				}
			}
		case reflect.Slice, reflect.Array:
			a, _ := v.([]any)
			for i, e := range a {
				walk(fmt.Sprintf("%s[%d]", path, i), e, t.Elem())
			}
		}
	}
	walk("", v, t)
	return problems
}

// jsonFields lists the JSON names of struct t's fields that encoding/json
// decodes (exported, not tagged "-") and their indexes in t.
func jsonFields(t reflect.Type) (names []string, index []int) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		} else if name == "" {
			name = f.Name
		}
		names, index = append(names, name), append(index, i)
	}
	return names, index
}

// invalidJSON describes where body stops being JSON.
func invalidJSON(body []byte) error {
	var v any
	err := json.Unmarshal(body, &v)
	var syn *json.SyntaxError
	if len(bytes.TrimSpace(body)) == 0 {
		return sello.Errorf(sello.CodeInvalidJSON, "The request body is empty; a JSON object is required.")
	} else if errors.As(err, &syn) {
		return sello.Errorf(sello.CodeInvalidJSON, "Malformed JSON at byte %d: %v.", syn.Offset, err)
	}
	return sello.Errorf(sello.CodeInvalidJSON, "Malformed JSON: %v.", err)
}

func jsonKind(goKind string) sello.Text {
	switch goKind {
	case "slice", "array":
		return sello.Textf("an array")
	case "string":
		return sello.Textf("a string")
	case "struct", "map":
		return sello.Textf("an object")
	case "bool":
		return sello.Textf("a boolean")
	}
	return sello.Textf("a number")
}

func trimQuotes(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}
