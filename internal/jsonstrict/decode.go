package jsonstrict

import (
	"encoding/json"
)

// Decode builds the generic value of body, what encoding/json's Decoder
// with UseNumber decodes into an any (objects as map[string]any, arrays as
// []any, numbers as json.Number), at a fraction of its cost (issue 23: it
// was most of a create's parsing, of the signing job's own work and of
// reading DGII's answers). It reads only bodies that Check passes
// (well-formed JSON, UTF-8, no lone surrogate escape, no duplicate key)
// nested at most 512 deep, and reports false on anything else: the caller
// then decodes with encoding/json, so a gap in it costs time, never a
// different value.
func Decode(body []byte) (any, bool) {
	p := treeParser{b: body}
	p.space()
	v, ok := p.value(0)
	if !ok {
		return nil, false
	}
	if p.space(); p.i != len(p.b) {
		return nil, false
	}
	return v, true
}

// treeParser reads one JSON value from b at i.
type treeParser struct {
	b []byte
	i int
}

// maxTreeDepth bounds the recursion; deeper bodies go to encoding/json
// (which refuses past 10,000 levels).
const maxTreeDepth = 512

func (p *treeParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

func (p *treeParser) value(depth int) (any, bool) {
	if p.i >= len(p.b) || depth > maxTreeDepth {
		return nil, false
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.string()
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	}
	return nil, false
}

func (p *treeParser) literal(s string) bool {
	if len(p.b)-p.i < len(s) || string(p.b[p.i:p.i+len(s)]) != s {
		return false
	}
	p.i += len(s)
	return true
}

func (p *treeParser) object(depth int) (any, bool) {
	p.i++ // {
	m := map[string]any{}
	p.space()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return m, true
	}
	for {
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return nil, false
		}
		k, ok := p.string()
		if !ok {
			return nil, false
		}
		if _, dup := m[k]; dup {
			return nil, false // jsonstrict refuses these; never guess
		}
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return nil, false
		}
		p.i++
		p.space()
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		m[k] = v
		p.space()
		if p.i >= len(p.b) {
			return nil, false
		}
		switch p.b[p.i] {
		case ',':
			p.i++
			p.space()
		case '}':
			p.i++
			return m, true
		default:
			return nil, false
		}
	}
}

func (p *treeParser) array(depth int) (any, bool) {
	p.i++ // [
	a := []any{}
	p.space()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return a, true
	}
	for {
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		p.space()
		if p.i >= len(p.b) {
			return nil, false
		}
		switch p.b[p.i] {
		case ',':
			p.i++
			p.space()
		case ']':
			p.i++
			return a, true
		default:
			return nil, false
		}
	}
}

// number reads a number in JSON's grammar as its literal text.
func (p *treeParser) number() (any, bool) {
	start := p.i
	if p.b[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.b) && p.b[p.i] == '0':
		p.i++
	case p.i < len(p.b) && p.b[p.i] >= '1' && p.b[p.i] <= '9':
		p.digits()
	default:
		return nil, false
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if !p.digits() {
			return nil, false
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if !p.digits() {
			return nil, false
		}
	}
	return json.Number(p.b[start:p.i]), true
}

// digits reads one or more decimal digits.
func (p *treeParser) digits() bool {
	start := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}

// string reads a string at its opening quote with Check's own scanner
// (scanner.str: the same rules, so nothing Check passed is read otherwise)
// and decodes its escapes with unescape, as encoding/json does, a surrogate
// pair into its one code point.
func (p *treeParser) string() (string, bool) {
	s := scanner{b: p.b, i: p.i}
	raw, escaped, err := s.str()
	if err != nil {
		return "", false
	}
	p.i = s.i
	if escaped {
		return string(unescape(raw)), true
	}
	return string(raw), true
}
