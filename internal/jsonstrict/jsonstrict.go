// Package jsonstrict checks, in one pass over the raw bytes, what
// encoding/json lets through but a fiscal document must not carry: invalid
// UTF-8 (which encoding/json silently replaces with U+FFFD), escaped lone
// surrogates such as \ud800 (replaced the same way), and duplicate object
// keys (where encoding/json keeps the last one). It also checks the JSON
// syntax, as json.Valid does, so that callers need no second pass to know
// that the body is JSON.
package jsonstrict

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind is what is wrong with a body.
type Kind int

// The kinds of Error.
const (
	// Syntax: the body is not JSON (json.Valid would say false). Its
	// message is brief; callers that report syntax errors in detail do so
	// with encoding/json.
	Syntax Kind = iota + 1
	// InvalidUTF8: a byte sequence that is not UTF-8.
	InvalidUTF8
	// LoneSurrogate: a \u escape of a UTF-16 surrogate that is not half
	// of a pair.
	LoneSurrogate
	// DuplicateKey: an object has the same key twice.
	DuplicateKey
)

// MaxDepth is the deepest nesting accepted, encoding/json's own limit.
const MaxDepth = 10000

// Error describes the first problem found.
type Error struct {
	Kind Kind
	// Offset is the byte offset of the problem: the first byte that is not
	// UTF-8, the backslash of the lone surrogate, the opening quote of the
	// second occurrence of a key.
	Offset int
	// Path is the JSON path of the object or value holding the problem,
	// as in "ECF.DetallesItems.Item[2]" ("" at the top level).
	Path string
	// Key is the duplicated key, unescaped (DuplicateKey only).
	Key string
	// First is the offset of the key's first occurrence (DuplicateKey only).
	First int
}

// Error returns a sentence fragment: "duplicate key …", "invalid UTF-8 …".
func (e *Error) Error() string {
	where := ""
	if e.Path != "" {
		where = " in " + e.Path
	}
	switch e.Kind {
	case InvalidUTF8:
		return fmt.Sprintf("invalid UTF-8 at byte offset %d%s; the body must be UTF-8", e.Offset, where)
	case LoneSurrogate:
		return fmt.Sprintf("lone UTF-16 surrogate escape at byte offset %d%s; a \\u escape of U+D800 to U+DFFF must be a high and low surrogate pair", e.Offset, where)
	case DuplicateKey:
		obj := " in the top-level object"
		if e.Path != "" {
			obj = " in object " + e.Path
		}
		return fmt.Sprintf("duplicate key %s%s at byte offset %d (first at %d); every key may appear once", strconv.Quote(e.Key), obj, e.Offset, e.First)
	}
	return fmt.Sprintf("syntax error at byte offset %d%s", e.Offset, where)
}

// IsSyntax reports whether err is a Syntax *Error: callers that describe
// syntax errors through encoding/json leave those to it.
func IsSyntax(err error) bool {
	e, ok := err.(*Error)
	return ok && e.Kind == Syntax
}

// Check reports the first problem in b as an *Error: invalid UTF-8, a lone
// surrogate escape, a duplicate key (keys compared after unescaping), or a
// syntax error. It returns nil for JSON free of all four.
func Check(b []byte) error { return check(b, false) }

// CheckFold is Check for bodies decoded into Go structs, where
// encoding/json matches keys to fields case-insensitively: keys that differ
// only in case ("encfs", "ENCFS") are duplicates.
func CheckFold(b []byte) error { return check(b, true) }

// plain marks the bytes a string holds as they are: printable ASCII but
// the quote and the backslash.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// frame is an open array or object.
type frame struct {
	array bool
	index int            // arrays: the index of the current element
	keys  int            // objects: where this object's keys start in scanner.keys
	set   map[string]int // objects with many keys: key → offset
}

// key is a key of an open object.
type key struct {
	name  []byte // unescaped (and folded with CheckFold), for comparing
	shown []byte // unescaped, for paths
	off   int
}

// smallObject is how many keys an object holds before its keys are put in
// a map rather than compared one by one.
const smallObject = 16

type scanner struct {
	b     []byte
	i     int
	fold  bool
	stack []frame
	keys  []key
	inKey bool // scanning a key: the path stops at its object
}

func check(b []byte, fold bool) error {
	s := &scanner{b: b, fold: fold}
	return s.run()
}

// run scans one value surrounded by whitespace, keeping the open arrays
// and objects on a stack instead of recursing.
func (s *scanner) run() error {
	b := s.b
	var top *frame
value:
	s.ws()
	if s.i >= len(b) {
		return s.syntax()
	}
	switch c := b[s.i]; {
	case c == '{' || c == '[':
		array := c == '['
		if err := s.push(array); err != nil {
			return err
		}
		s.i++
		s.ws()
		if s.i < len(b) && b[s.i] == c+2 { // '}' or ']'
			s.i++
			s.pop()
			goto after
		}
		if array {
			goto value
		}
		goto member
	case c == '"':
		if _, _, err := s.str(); err != nil {
			return err
		}
	case c == '-' || c >= '0' && c <= '9':
		if !s.number() {
			return s.syntax()
		}
	case c == 't':
		if !s.literal("true") {
			return s.syntax()
		}
	case c == 'f':
		if !s.literal("false") {
			return s.syntax()
		}
	case c == 'n':
		if !s.literal("null") {
			return s.syntax()
		}
	default:
		return s.syntax()
	}
after:
	s.ws()
	if len(s.stack) == 0 {
		if s.i != len(b) {
			return s.syntax()
		}
		return nil
	}
	if s.i >= len(b) {
		return s.syntax()
	}
	top = &s.stack[len(s.stack)-1]
	switch c := b[s.i]; {
	case c == ',':
		s.i++
		if top.array {
			top.index++
			goto value
		}
		s.ws()
		goto member
	case c == ']' && top.array, c == '}' && !top.array:
		s.i++
		s.pop()
		goto after
	}
	return s.syntax()
member:
	if s.i >= len(b) || b[s.i] != '"' {
		return s.syntax()
	}
	{
		off := s.i
		s.inKey = true
		raw, escaped, err := s.str()
		if err != nil {
			return err
		}
		if err := s.addKey(raw, escaped, off); err != nil {
			return err
		}
		s.inKey = false
	}
	s.ws()
	if s.i >= len(b) || b[s.i] != ':' {
		return s.syntax()
	}
	s.i++
	goto value
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// syntax returns the error at s.i: InvalidUTF8 when the byte there starts
// no UTF-8 character (a more precise answer than "not JSON"), else Syntax.
func (s *scanner) syntax() error {
	if s.i < len(s.b) && s.b[s.i] >= utf8.RuneSelf {
		if r, n := utf8.DecodeRune(s.b[s.i:]); r == utf8.RuneError && n == 1 {
			return s.fail(InvalidUTF8, s.i)
		}
	}
	return s.fail(Syntax, s.i)
}

func (s *scanner) fail(k Kind, off int) *Error {
	return &Error{Kind: k, Offset: off, Path: s.path()}
}

// path spells where the scanner is: each open object's current key and
// each open array's current index; within a key, the path of its object.
// A path longer than maxPath keeps its end.
func (s *scanner) path() string {
	n := len(s.stack)
	if s.inKey {
		n--
	}
	segs := make([]string, n)
	end := len(s.keys) // the keys of an object end where the next one's start
	for i := len(s.stack) - 1; i >= 0; i-- {
		f := s.stack[i]
		if f.array {
			if i < n {
				segs[i] = "[" + strconv.Itoa(f.index) + "]"
			}
			continue
		}
		if i < n && end > f.keys {
			segs[i] = "." + string(s.keys[end-1].shown)
		}
		end = f.keys
	}
	p := strings.TrimPrefix(strings.Join(segs, ""), ".")
	if len(p) > maxPath {
		i := len(p) - maxPath
		for !utf8.RuneStart(p[i]) {
			i++
		}
		p = "…" + p[i:]
	}
	return p
}

// maxPath bounds the length of Error.Path.
const maxPath = 200

func (s *scanner) push(array bool) error {
	if len(s.stack) >= MaxDepth {
		return s.fail(Syntax, s.i)
	}
	s.stack = append(s.stack, frame{array: array, keys: len(s.keys)})
	return nil
}

func (s *scanner) pop() {
	f := s.stack[len(s.stack)-1]
	s.stack = s.stack[:len(s.stack)-1]
	if !f.array {
		s.keys = s.keys[:f.keys]
	}
}

// addKey records a key of the innermost object, refusing a duplicate.
func (s *scanner) addKey(raw []byte, escaped bool, off int) error {
	name := raw
	if escaped {
		name = unescape(raw)
	}
	shown := name
	if s.fold {
		name = foldName(name)
	}
	f := &s.stack[len(s.stack)-1]
	own := s.keys[f.keys:]
	if f.set != nil {
		if first, ok := f.set[string(name)]; ok {
			return s.duplicate(shown, off, first)
		}
		f.set[string(name)] = off
	} else {
		for _, k := range own {
			if bytes.Equal(k.name, name) {
				return s.duplicate(shown, off, k.off)
			}
		}
		if len(own) == smallObject {
			f.set = make(map[string]int, 2*smallObject)
			for _, k := range own {
				f.set[string(k.name)] = k.off
			}
			f.set[string(name)] = off
		}
	}
	s.keys = append(s.keys, key{name: name, shown: shown, off: off})
	return nil
}

func (s *scanner) duplicate(name []byte, off, first int) error {
	e := s.fail(DuplicateKey, off)
	e.Key, e.First = string(name), first
	return e
}

// str scans the string at s.i (its opening quote) and returns its raw
// content and whether it holds escapes.
func (s *scanner) str() (raw []byte, escaped bool, err error) {
	b := s.b
	start := s.i + 1
	i := start
	for {
		for i+8 <= len(b) && plain[b[i]] && plain[b[i+1]] && plain[b[i+2]] && plain[b[i+3]] &&
			plain[b[i+4]] && plain[b[i+5]] && plain[b[i+6]] && plain[b[i+7]] {
			i += 8
		}
		for i < len(b) && plain[b[i]] {
			i++
		}
		if i >= len(b) {
			s.i = i
			return nil, false, s.fail(Syntax, i)
		}
		switch c := b[i]; {
		case c == '"':
			s.i = i + 1
			return b[start:i], escaped, nil
		case c == '\\':
			escaped = true
			n, k := s.escape(i)
			if k != 0 {
				return nil, false, s.fail(k, i)
			}
			i += n
		case c < 0x20:
			s.i = i
			return nil, false, s.fail(Syntax, i)
		default:
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n == 1 {
				s.i = i
				return nil, false, s.fail(InvalidUTF8, i)
			}
			i += n
		}
	}
}

// escape checks the escape at b[i] (a backslash) and returns its length,
// or the kind of problem.
func (s *scanner) escape(i int) (int, Kind) {
	b := s.b
	if i+1 >= len(b) {
		return 0, Syntax
	}
	switch b[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2, 0
	case 'u':
	default:
		return 0, Syntax
	}
	r, ok := hex4(b[i+2:])
	if !ok {
		return 0, Syntax
	}
	switch {
	case r < 0xd800 || r > 0xdfff:
		return 6, 0
	case r >= 0xdc00:
		return 0, LoneSurrogate
	}
	// A high surrogate: a low one must follow.
	if i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
		lo, ok := hex4(b[i+8:])
		if !ok {
			return 0, Syntax
		}
		if lo >= 0xdc00 && lo <= 0xdfff {
			return 12, 0
		}
	}
	return 0, LoneSurrogate
}

// hex4 reads the four hex digits at the start of b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
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

// number scans a number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() bool {
	b, i := s.b, s.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i+1)
	default:
		s.i = i
		return false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			s.i = j
			return false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			s.i = j
			return false
		}
		i = j
	}
	s.i = i
	return true
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

func (s *scanner) literal(word string) bool {
	if !bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		return false
	}
	s.i += len(word)
	return true
}

// unescape decodes the escapes of a checked string's content.
func unescape(raw []byte) []byte {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		switch raw[i+1] {
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
			r, _ := hex4(raw[i+2:])
			if r >= 0xd800 && r < 0xdc00 {
				lo, _ := hex4(raw[i+8:])
				out = utf8.AppendRune(out, (r-0xd800)<<10|(lo-0xdc00)+0x10000)
				i += 12
				continue
			}
			out = utf8.AppendRune(out, r)
			i += 6
			continue
		default: // '"', '\\', '/'
			out = append(out, raw[i+1])
		}
		i += 2
	}
	return out
}

// foldName folds a key as encoding/json does to match it to a field:
// ASCII letters to upper case, every other rune to the smallest rune of its
// case-folding orbit, so that two keys fold alike exactly when
// bytes.EqualFold holds.
func foldName(in []byte) []byte {
	out := make([]byte, 0, len(in))
	for i := 0; i < len(in); {
		if c := in[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(in[i:])
		out = utf8.AppendRune(out, foldRune(r))
		i += n
	}
	return out
}

func foldRune(r rune) rune {
	for {
		r2 := unicode.SimpleFold(r)
		if r2 <= r {
			return r2
		}
		r = r2
	}
}
