package jsonstrict

import (
	"encoding/json"
	"unicode/utf16"
	"unicode/utf8"
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

// string reads a string at its opening quote. Plain strings are copied as
// they are; escapes are decoded as encoding/json does, a surrogate pair
// into its one code point (a lone one, which jsonstrict refuses, is left
// to encoding/json).
func (p *treeParser) string() (string, bool) {
	p.i++ // "
	start := p.i
	for p.i < len(p.b) {
		switch c := p.b[p.i]; {
		case c == '"':
			s := string(p.b[start:p.i])
			p.i++
			return s, true
		case c == '\\':
			return p.escaped(start)
		case c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			p.i++
		default:
			r, n := utf8.DecodeRune(p.b[p.i:])
			if r == utf8.RuneError && n == 1 {
				return "", false
			}
			p.i += n
		}
	}
	return "", false
}

// escaped finishes a string that began at start and has an escape at i.
func (p *treeParser) escaped(start int) (string, bool) {
	out := make([]byte, 0, p.i-start+16)
	out = append(out, p.b[start:p.i]...)
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return string(out), true
		case c < 0x20:
			return "", false
		case c != '\\':
			if c < utf8.RuneSelf {
				out = append(out, c)
				p.i++
				continue
			}
			r, n := utf8.DecodeRune(p.b[p.i:])
			if r == utf8.RuneError && n == 1 {
				return "", false
			}
			out = append(out, p.b[p.i:p.i+n]...)
			p.i += n
			continue
		}
		if p.i+1 >= len(p.b) {
			return "", false
		}
		switch e := p.b[p.i+1]; e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := p.hex4(p.i + 2)
			if !ok {
				return "", false
			}
			if utf16.IsSurrogate(r) {
				// Only a high surrogate followed by an escaped low one.
				if r >= 0xDC00 || p.i+11 >= len(p.b) || p.b[p.i+6] != '\\' || p.b[p.i+7] != 'u' {
					return "", false
				}
				r2, ok := p.hex4(p.i + 8)
				if !ok || r2 < 0xDC00 || r2 > 0xDFFF {
					return "", false
				}
				out = utf8.AppendRune(out, utf16.DecodeRune(r, r2))
				p.i += 12
				continue
			}
			out = utf8.AppendRune(out, r)
			p.i += 6
			continue
		default:
			return "", false
		}
		p.i += 2
	}
	return "", false
}

// hex4 reads the four hex digits of a \u escape at i.
func (p *treeParser) hex4(i int) (rune, bool) {
	if i+4 > len(p.b) {
		return 0, false
	}
	var r rune
	for _, c := range p.b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
