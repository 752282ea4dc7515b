package xmldsig

import (
	"bytes"
	"slices"
	"unicode/utf8"

	"github.com/beevik/etree"
	"github.com/sello-do/sello/internal/xmlchar"
)

// This file is Sign's fast path: a one-pass canonicalizer for the compact
// XML Sello writes, reading the bytes directly instead of building an
// etree (parsing alone costs more than the RSA signature on a large e-CF).
// It handles elements, attributes, namespaces, the predefined and
// character references, comments and whitespace-only text (dropped, as
// Sign does), and gives up on anything else (CDATA, processing
// instructions, DOCTYPE, non-ASCII names, unusual XML declarations or
// anything malformed): Sign then takes the etree path, which also reports
// errors. Fuzzing checks that whenever it succeeds it agrees with that
// path.
//
// Verify uses it too, in verify mode: whitespace-only text is kept (it is
// signed), and the scanner notes where the XMLDSig Signature elements are,
// so the document minus its Signature can be digested without a tree.

// fastResult is the canonical form of a document and what SignedInfo
// inherits from its root.
type fastResult struct {
	decl    []byte      // the XML declaration, as written
	canon   []byte      // the root element in canonical form
	rootNS  []nsBinding // prefixed namespaces declared on the root
	rootXML []canonAttr // xml:* attributes of the root

	// Verify mode only.
	rootTag  [2]int // the root's start tag in the input
	rootName []byte
	sig      fastSig
}

// fastSig is what the verify mode saw of XMLDSig Signature elements.
type fastSig struct {
	count  int    // Signature elements anywhere, the root included
	placed bool   // the first is a child of the root and no element child follows it
	in     [2]int // the first one in the input
	out    [2]int // the first one in the canonical output
}

// maxFastDepth is the deepest nesting the fast path handles.
const maxFastDepth = 256

type fastScanner struct {
	in     []byte
	pos    int
	out    []byte
	scope  []nsBinding
	attrs  []canonAttr
	res    fastResult
	verify bool // keep whitespace-only text and note Signatures
	// declared counts the namespace declarations read: over
	// xmlchar.MaxNamespaces the scanner gives up, as it does over
	// xmlchar.MaxAttrs attributes on an element.
	declared int
}

// fastCanonicalize returns doc's canonical form after removing comments
// and whitespace-only text, or false when doc is outside the subset it
// handles.
func fastCanonicalize(doc []byte, extra int) (fastResult, bool) {
	return fastScan(doc, extra, false)
}

// fastCanonicalizeSigned returns signed's canonical form (comments
// removed, everything else kept) with where its Signature elements are,
// or false when signed is outside the subset the fast path handles.
func fastCanonicalizeSigned(signed []byte) (fastResult, bool) {
	return fastScan(signed, 0, true)
}

func fastScan(doc []byte, extra int, verify bool) (fastResult, bool) {
	if !utf8.Valid(doc) || bytes.Contains(doc, []byte("\uFFFE")) || bytes.Contains(doc, []byte("\uFFFF")) ||
		bytes.Contains(doc, []byte("<!DOCTYPE")) { // refused by the etree path, even in a comment
		return fastResult{}, false
	}
	s := &fastScanner{in: doc, out: make([]byte, 0, len(doc)+extra), verify: verify}
	if bytes.HasPrefix(doc, []byte("<?xml")) {
		end := bytes.Index(doc, []byte("?>"))
		if end < 0 {
			return fastResult{}, false
		}
		switch string(doc[5:end]) {
		case ` version="1.0" encoding="utf-8"`, ` version="1.0" encoding="UTF-8"`, ` version="1.0"`:
		default:
			return fastResult{}, false
		}
		s.res.decl = doc[:end+2]
		s.pos = end + 2
	}
	if !s.misc() || s.pos >= len(doc) || !s.root() || !s.misc() || s.pos != len(doc) {
		return fastResult{}, false
	}
	s.res.canon = s.out
	return s.res, true
}

// misc skips whitespace and comments outside the root.
func (s *fastScanner) misc() bool {
	for s.pos < len(s.in) {
		switch c := s.in[s.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			s.pos++
		case bytes.HasPrefix(s.in[s.pos:], []byte("<!--")):
			if !s.comment() {
				return false
			}
		case c == '<' && s.pos+1 < len(s.in) && (s.in[s.pos+1] == '?' || s.in[s.pos+1] == '!'):
			return false
		default:
			return true
		}
	}
	return true
}

// comment skips a comment at pos.
func (s *fastScanner) comment() bool {
	body := s.in[s.pos+4:]
	end := bytes.Index(body, []byte("-->"))
	if end < 0 || bytes.Contains(body[:end], []byte("--")) || bytes.HasSuffix(body[:end], []byte("-")) {
		return false
	}
	s.pos += 4 + end + 3
	return true
}

// root scans the root element and everything in it.
func (s *fastScanner) root() bool {
	type open struct {
		name  []byte
		scope int
		sig   bool // the Signature whose end fastSig records
	}
	var stack []open
	sigEnded := false
	for first := true; first || len(stack) > 0; first = false {
		if s.pos >= len(s.in) {
			return false
		}
		if s.in[s.pos] != '<' {
			if first || !s.text() {
				return false
			}
			continue
		}
		switch {
		case bytes.HasPrefix(s.in[s.pos:], []byte("</")):
			if len(stack) == 0 {
				return false
			}
			s.pos += 2
			name := s.name()
			s.space()
			top := stack[len(stack)-1]
			if name == nil || !bytes.Equal(name, top.name) || s.pos >= len(s.in) || s.in[s.pos] != '>' {
				return false
			}
			s.pos++
			s.out = append(s.out, "</"...)
			s.out = append(s.out, name...)
			s.out = append(s.out, '>')
			s.scope = s.scope[:top.scope]
			stack = stack[:len(stack)-1]
			if top.sig {
				s.res.sig.in[1], s.res.sig.out[1] = s.pos, len(s.out)
				sigEnded = true
			}
		case bytes.HasPrefix(s.in[s.pos:], []byte("<!--")):
			if !s.comment() {
				return false
			}
		case s.pos+1 < len(s.in) && (s.in[s.pos+1] == '!' || s.in[s.pos+1] == '?'):
			return false
		default:
			start, outStart := s.pos, len(s.out)
			s.pos++
			depth := len(s.scope)
			name, isSig, empty, ok := s.startTag(len(stack) == 0)
			if !ok {
				return false
			}
			mark := false
			if s.verify {
				if len(stack) == 0 {
					s.res.rootTag = [2]int{start, s.pos}
					s.res.rootName = name
				}
				if len(stack) == 1 && sigEnded {
					s.res.sig.placed = false // an element after the Signature
				}
				if isSig {
					s.res.sig.count++
					if s.res.sig.count == 1 && len(stack) == 1 {
						s.res.sig.placed = true
						s.res.sig.in[0], s.res.sig.out[0] = start, outStart
						mark = true
					}
				}
			}
			if empty {
				s.out = append(s.out, "</"...)
				s.out = append(s.out, name...)
				s.out = append(s.out, '>')
				s.scope = s.scope[:depth]
				if mark {
					s.res.sig.in[1], s.res.sig.out[1] = s.pos, len(s.out)
					sigEnded = true
				}
				if len(stack) == 0 {
					return true
				}
				continue
			}
			if len(stack) == maxFastDepth {
				return false
			}
			stack = append(stack, open{name, depth, mark})
		}
	}
	return true
}

// name reads an ASCII name with at most one colon, between non-empty
// parts (xmlchar.NameLen); nil if there is none.
func (s *fastScanner) name() []byte {
	n := xmlchar.NameLen(s.in[s.pos:])
	if n == 0 {
		return nil
	}
	s.pos += n
	return s.in[s.pos-n : s.pos]
}

// space skips whitespace and reports whether there was any.
func (s *fastScanner) space() bool {
	n := xmlchar.SpaceLen(s.in[s.pos:])
	s.pos += n
	return n > 0
}

// splitName returns the prefix and local part of a qualified name.
func splitName(name []byte) (prefix, local string) {
	if i := bytes.IndexByte(name, ':'); i >= 0 {
		return string(name[:i]), string(name[i+1:])
	}
	return "", string(name)
}

// startTag reads a start tag after its '<' and writes it in canonical
// form: namespace declarations not already in effect, then attributes,
// sorted. In verify mode isSig says whether it is an XMLDSig Signature.
func (s *fastScanner) startTag(isRoot bool) (name []byte, isSig, empty, ok bool) {
	name = s.name()
	if name == nil {
		return nil, false, false, false
	}
	attrs := s.attrs[:0]
	rendered := len(s.scope)
	for {
		// Over xmlchar's limits: the etree path refuses it (prepare).
		if len(attrs) > xmlchar.MaxAttrs || s.declared > xmlchar.MaxNamespaces {
			return nil, false, false, false
		}
		sp := s.space()
		if s.pos >= len(s.in) {
			return nil, false, false, false
		}
		if s.in[s.pos] == '>' {
			s.pos++
			break
		}
		if s.in[s.pos] == '/' {
			if s.pos+1 >= len(s.in) || s.in[s.pos+1] != '>' {
				return nil, false, false, false
			}
			s.pos += 2
			empty = true
			break
		}
		an := s.name()
		if !sp || an == nil {
			return nil, false, false, false
		}
		s.space()
		if s.pos >= len(s.in) || s.in[s.pos] != '=' {
			return nil, false, false, false
		}
		s.pos++
		s.space()
		value, ok := s.attrValue()
		if !ok {
			return nil, false, false, false
		}
		prefix, local := splitName(an)
		if prefix == "xmlns" || prefix == "" && local == "xmlns" {
			s.declared++
		}
		switch {
		case prefix == "" && local == "xmlns":
			attrs = append(attrs, canonAttr{isNS: true, key: "", value: value})
		case prefix == "xmlns":
			if local == "xml" || local == "xmlns" || value == "" {
				return nil, false, false, false
			}
			attrs = append(attrs, canonAttr{isNS: true, key: local, value: value})
		default:
			attrs = append(attrs, canonAttr{uri: prefix, key: local, name: string(an), value: value})
		}
	}

	// Declarations first: they are in scope for the element's own name
	// and attributes.
	for i := range attrs {
		if !attrs[i].isNS {
			continue
		}
		a := &attrs[i]
		cur, _ := lookupNS(s.scope[:rendered], a.key)
		if a.value == cur {
			a.name = "" // already in effect: not rendered
		} else if a.key == "" {
			a.name = "xmlns"
		} else {
			a.name = "xmlns:" + a.key
		}
		s.scope = append(s.scope, nsBinding{a.key, a.value})
		if isRoot && a.key != "" {
			s.res.rootNS = append(s.res.rootNS, nsBinding{a.key, a.value})
		}
	}
	prefix, local := "", name
	if i := bytes.IndexByte(name, ':'); i >= 0 {
		prefix, local = string(name[:i]), name[i+1:]
		if _, ok := lookupNS(s.scope, prefix); !ok || prefix == "xml" || prefix == "xmlns" {
			return nil, false, false, false
		}
	}
	if s.verify && string(local) == "Signature" {
		uri, _ := lookupNS(s.scope, prefix)
		isSig = uri == nsDSig
	}
	for i := range attrs {
		a := &attrs[i]
		if a.isNS || a.uri == "" {
			continue
		}
		if a.uri == "xml" {
			a.uri = nsXML
			if isRoot {
				s.res.rootXML = append(s.res.rootXML, *a)
			}
			continue
		}
		uri, ok := lookupNS(s.scope, a.uri)
		if !ok || uri == "" {
			return nil, false, false, false
		}
		a.uri = uri
	}
	slices.SortFunc(attrs, compareAttr)
	for i := 1; i < len(attrs); i++ {
		if compareAttr(attrs[i-1], attrs[i]) == 0 {
			return nil, false, false, false // duplicate attribute
		}
	}

	s.out = append(s.out, '<')
	s.out = append(s.out, name...)
	for _, a := range attrs {
		if a.name == "" {
			continue
		}
		s.out = append(s.out, ' ')
		s.out = append(s.out, a.name...)
		s.out = append(s.out, '=', '"')
		s.out = appendEscapedAttr(s.out, a.value)
		s.out = append(s.out, '"')
	}
	s.out = append(s.out, '>')
	s.attrs = attrs[:0]
	return name, isSig, empty, true
}

// attrValue reads a quoted attribute value and returns it decoded.
func (s *fastScanner) attrValue() (string, bool) {
	if s.pos >= len(s.in) || s.in[s.pos] != '"' && s.in[s.pos] != '\'' {
		return "", false
	}
	q := s.in[s.pos]
	s.pos++
	end := bytes.IndexByte(s.in[s.pos:], q)
	if end < 0 {
		return "", false
	}
	raw := s.in[s.pos : s.pos+end]
	s.pos += end + 1
	var buf []byte
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '<' || c < 0x20: // tabs and line ends would need attribute-value normalization
			return "", false
		case c == '&':
			r, n := entity(raw[i:])
			if n == 0 {
				return "", false
			}
			if buf == nil {
				buf = append(make([]byte, 0, len(raw)), raw[:i]...)
			}
			buf = utf8.AppendRune(buf, r)
			i += n - 1
		default:
			if buf != nil {
				buf = append(buf, c)
			}
		}
	}
	if buf == nil {
		return string(raw), true
	}
	return string(buf), true
}

// text reads character data up to the next '<' and writes it in canonical
// form, or nothing if it is whitespace only.
func (s *fastScanner) text() bool {
	start := len(s.out)
	blank := true
	last := s.pos
	for ; s.pos < len(s.in); s.pos++ {
		c := s.in[s.pos]
		switch {
		case c == '<':
			s.out = append(s.out, s.in[last:s.pos]...)
			if blank && !s.verify {
				s.out = s.out[:start]
			}
			return true
		case c == '>':
			if s.pos >= 2 && s.in[s.pos-1] == ']' && s.in[s.pos-2] == ']' {
				return false // "]]>" is not allowed in text
			}
			s.out = append(s.out, s.in[last:s.pos]...)
			s.out = append(s.out, "&gt;"...)
			last = s.pos + 1
			blank = false
		case c == '&':
			r, n := entity(s.in[s.pos:])
			if n == 0 {
				return false
			}
			s.out = append(s.out, s.in[last:s.pos]...)
			switch r {
			case '&':
				s.out = append(s.out, "&amp;"...)
			case '<':
				s.out = append(s.out, "&lt;"...)
			case '>':
				s.out = append(s.out, "&gt;"...)
			case '\r':
				s.out = append(s.out, "&#xD;"...)
			default:
				s.out = utf8.AppendRune(s.out, r)
			}
			if r != ' ' && r != '\t' && r != '\n' && r != '\r' {
				blank = false
			}
			s.pos += n - 1
			last = s.pos + 1
		case c == '\r': // line ends would need normalizing
			return false
		case c == ' ' || c == '\t' || c == '\n':
		case c < 0x20:
			return false
		default:
			blank = false
		}
	}
	return false
}

// entity is xmlchar.Entity.
func entity(b []byte) (rune, int) { return xmlchar.Entity(b) }

// fastSignatureTree returns, as etree reads them, the root of signed
// with the Signature the verify mode found (res) as its only child: what
// Verify checks of the Signature and SignedInfo's inherited namespaces and
// xml:* attributes come from there. The bytes were read by the scanner
// already; it reports false on anything unexpected all the same.
// FuzzFastPath checks it against etree.
func fastSignatureTree(signed []byte, res *fastResult) (*etree.Element, bool) {
	s := &fastScanner{in: signed[:res.sig.in[1]], pos: res.rootTag[0] + 1}
	root, empty, ok := s.treeStartTag(nil)
	if !ok || empty || s.pos != res.rootTag[1] {
		return nil, false
	}
	s.pos = res.sig.in[0]
	stack := []*etree.Element{root}
	for s.pos < len(s.in) {
		top := stack[len(stack)-1]
		rest := s.in[s.pos:]
		switch {
		case rest[0] != '<':
			end := bytes.IndexByte(rest, '<')
			if end < 0 {
				return nil, false
			}
			text, ok := decodeText(rest[:end])
			if !ok || top == root {
				return nil, false
			}
			top.CreateCharData(text)
			s.pos += end
		case bytes.HasPrefix(rest, []byte("</")):
			s.pos += 2
			name := s.name()
			s.space()
			if top == root || string(name) != top.FullTag() || s.pos >= len(s.in) || s.in[s.pos] != '>' {
				return nil, false
			}
			s.pos++
			stack = stack[:len(stack)-1]
		case bytes.HasPrefix(rest, []byte("<!--")):
			end := bytes.Index(rest[4:], []byte("-->"))
			if end < 0 || top == root {
				return nil, false
			}
			top.CreateComment(string(rest[4 : 4+end]))
			s.pos += 4 + end + 3
		default:
			s.pos++
			el, empty, ok := s.treeStartTag(top)
			if !ok {
				return nil, false
			}
			if !empty {
				stack = append(stack, el)
			}
		}
	}
	if len(stack) != 1 || len(root.Child) != 1 {
		return nil, false
	}
	return root, true
}

// treeStartTag reads a start tag after its '<' into a new element, a child
// of parent unless nil, with its attributes in document order.
func (s *fastScanner) treeStartTag(parent *etree.Element) (el *etree.Element, empty, ok bool) {
	name := s.name()
	if name == nil {
		return nil, false, false
	}
	if parent == nil {
		el = etree.NewElement(string(name))
	} else {
		el = parent.CreateElement(string(name))
	}
	for {
		s.space()
		if s.pos >= len(s.in) {
			return nil, false, false
		}
		switch s.in[s.pos] {
		case '>':
			s.pos++
			return el, false, true
		case '/':
			if s.pos+1 >= len(s.in) || s.in[s.pos+1] != '>' {
				return nil, false, false
			}
			s.pos += 2
			return el, true, true
		}
		an := s.name()
		if an == nil {
			return nil, false, false
		}
		s.space()
		if s.pos >= len(s.in) || s.in[s.pos] != '=' {
			return nil, false, false
		}
		s.pos++
		s.space()
		value, ok := s.attrValue()
		if !ok {
			return nil, false, false
		}
		el.CreateAttr(string(an), value)
	}
}

// decodeText returns character data with its references decoded.
func decodeText(raw []byte) (string, bool) {
	amp := bytes.IndexByte(raw, '&')
	if amp < 0 {
		return string(raw), true
	}
	b := make([]byte, 0, len(raw))
	for amp >= 0 {
		b = append(b, raw[:amp]...)
		r, n := entity(raw[amp:])
		if n == 0 {
			return "", false
		}
		b = utf8.AppendRune(b, r)
		raw = raw[amp+n:]
		amp = bytes.IndexByte(raw, '&')
	}
	return string(append(b, raw...)), true
}
