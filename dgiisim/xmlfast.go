package dgiisim

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/sello-do/sello/internal/xmlchar"
)

// parseXMLFast is parseXML without encoding/xml, for the compact UTF-8 XML
// Sello and most clients send: elements, attributes (checked, then
// ignored), text with the predefined and character references, comments
// and the usual XML declarations. It reports false on anything else
// (CDATA, processing instructions, DOCTYPE, non-ASCII names, control
// characters and carriage returns, anything malformed or too deep), and
// parseXML then reads the document with encoding/xml, which also words
// the errors. FuzzParseXML checks that whenever it succeeds, encoding/xml
// gives the same tree.
func parseXMLFast(b []byte) (*node, bool) {
	if !utf8.Valid(b) || bytes.Contains(b, []byte("\uFFFE")) || bytes.Contains(b, []byte("\uFFFF")) {
		return nil, false
	}
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' {
			return nil, false
		}
	}
	p := &fastParser{src: string(b)}
	if strings.HasPrefix(p.src, "<?xml") {
		end := strings.Index(p.src, "?>")
		if end < 0 {
			return nil, false
		}
		switch p.src[5:end] {
		case ` version="1.0" encoding="utf-8"`, ` version="1.0" encoding="UTF-8"`, ` version="1.0"`:
		default:
			return nil, false
		}
		p.pos = end + 2
	}
	// One allocation for all the nodes: every start tag is a '<' not
	// followed by '/'.
	p.nodes = make([]node, 0, strings.Count(p.src, "<")-strings.Count(p.src, "</"))
	if !p.misc() || p.pos == len(p.src) {
		return nil, false
	}
	root, ok := p.root()
	if !ok || !p.misc() || p.pos != len(p.src) {
		return nil, false
	}
	return root, true
}

type fastParser struct {
	src   string
	pos   int
	nodes []node
}

// misc skips whitespace and comments outside the root.
func (p *fastParser) misc() bool {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == ' ' || c == '\t' || c == '\n':
			p.pos++
		case strings.HasPrefix(p.src[p.pos:], "<!--"):
			if !p.comment() {
				return false
			}
		case c == '<' && p.pos+1 < len(p.src) && (p.src[p.pos+1] == '?' || p.src[p.pos+1] == '!'):
			return false
		case c == '<':
			return true
		default:
			return false // text outside the root
		}
	}
	return true
}

// comment skips a comment at pos.
func (p *fastParser) comment() bool {
	body := p.src[p.pos+4:]
	end := strings.Index(body, "-->")
	if end < 0 || strings.Contains(body[:end], "--") || strings.HasSuffix(body[:end], "-") {
		return false
	}
	p.pos += 4 + end + 3
	return true
}

// openElement is an element being read: its node, its name as written
// and its text so far.
type openElement struct {
	n    *node
	name string
	text string
}

// root reads the root element and everything in it.
func (p *fastParser) root() (*node, bool) {
	var stack []openElement
	var root *node
	for {
		if p.pos >= len(p.src) {
			return nil, false
		}
		if p.src[p.pos] != '<' {
			if len(stack) == 0 {
				return nil, false
			}
			t, ok := p.text()
			if !ok {
				return nil, false
			}
			stack[len(stack)-1].text += t
			continue
		}
		rest := p.src[p.pos:]
		switch {
		case strings.HasPrefix(rest, "</"):
			p.pos += 2
			name := p.name()
			p.space()
			top := len(stack) - 1
			if top < 0 || name == "" || name != stack[top].name || p.pos >= len(p.src) || p.src[p.pos] != '>' {
				return nil, false
			}
			p.pos++
			// A copy: the text outlives the request in submissions and must
			// not hold the whole document.
			stack[top].n.text = strings.Clone(strings.TrimSpace(stack[top].text))
			stack = stack[:top]
			if top == 0 {
				return root, true
			}
		case strings.HasPrefix(rest, "<!--"):
			if !p.comment() {
				return nil, false
			}
		case len(rest) > 1 && (rest[1] == '!' || rest[1] == '?'):
			return nil, false
		default:
			if len(stack) >= maxDepth {
				return nil, false
			}
			p.pos++
			name, empty, ok := p.startTag()
			if !ok {
				return nil, false
			}
			if len(p.nodes) == cap(p.nodes) {
				return nil, false // cannot happen: more start tags than '<'
			}
			p.nodes = append(p.nodes, node{name: local(name)})
			n := &p.nodes[len(p.nodes)-1]
			if len(stack) == 0 {
				root = n
			} else {
				parent := stack[len(stack)-1].n
				parent.children = append(parent.children, n)
			}
			if empty {
				if len(stack) == 0 {
					return root, true
				}
				continue
			}
			stack = append(stack, openElement{n: n, name: name})
		}
	}
}

// local is encoding/xml's local part of a name with at most one colon.
func local(name string) string {
	if _, l, ok := strings.Cut(name, ":"); ok {
		return l
	}
	return name
}

// name reads an ASCII name with at most one colon, between non-empty
// parts (xmlchar.NameLen); "" if there is none.
func (p *fastParser) name() string {
	n := xmlchar.NameLen(p.src[p.pos:])
	if n == 0 {
		return ""
	}
	p.pos += n
	return p.src[p.pos-n : p.pos]
}

// space skips whitespace and reports whether there was any.
func (p *fastParser) space() bool {
	start := p.pos
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t' || p.src[p.pos] == '\n') {
		p.pos++
	}
	return p.pos > start
}

// startTag reads a start tag after its '<', checking its attributes.
func (p *fastParser) startTag() (name string, empty, ok bool) {
	name = p.name()
	if name == "" {
		return "", false, false
	}
	for {
		sp := p.space()
		if p.pos >= len(p.src) {
			return "", false, false
		}
		switch p.src[p.pos] {
		case '>':
			p.pos++
			return name, false, true
		case '/':
			if !strings.HasPrefix(p.src[p.pos:], "/>") {
				return "", false, false
			}
			p.pos += 2
			return name, true, true
		}
		if !sp || p.name() == "" {
			return "", false, false
		}
		p.space()
		if p.pos >= len(p.src) || p.src[p.pos] != '=' {
			return "", false, false
		}
		p.pos++
		p.space()
		if p.pos >= len(p.src) || p.src[p.pos] != '"' && p.src[p.pos] != '\'' {
			return "", false, false
		}
		q := p.src[p.pos]
		p.pos++
		end := strings.IndexByte(p.src[p.pos:], q)
		if end < 0 {
			return "", false, false
		}
		value := p.src[p.pos : p.pos+end]
		p.pos += end + 1
		if strings.IndexByte(value, '<') >= 0 || strings.IndexByte(value, '\t') >= 0 || strings.IndexByte(value, '\n') >= 0 {
			return "", false, false
		}
		for i := strings.IndexByte(value, '&'); i >= 0; {
			_, n := entity(value[i:])
			if n == 0 {
				return "", false, false
			}
			value = value[i+n:]
			i = strings.IndexByte(value, '&')
		}
	}
}

// text reads character data up to the next '<' and returns it decoded.
func (p *fastParser) text() (string, bool) {
	start := p.pos
	end := strings.IndexByte(p.src[start:], '<')
	if end < 0 {
		return "", false
	}
	raw := p.src[start : start+end]
	p.pos += end
	if strings.Contains(raw, "]]>") {
		return "", false
	}
	amp := strings.IndexByte(raw, '&')
	if amp < 0 {
		return raw, true
	}
	var b strings.Builder
	b.Grow(len(raw))
	for amp >= 0 {
		b.WriteString(raw[:amp])
		r, n := entity(raw[amp:])
		if n == 0 {
			return "", false
		}
		b.WriteRune(r)
		raw = raw[amp+n:]
		amp = strings.IndexByte(raw, '&')
	}
	b.WriteString(raw)
	return b.String(), true
}

// entity is xmlchar.Entity, without &#xD;, which is left to encoding/xml.
func entity(s string) (rune, int) {
	r, n := xmlchar.Entity(s)
	if r == 0xD {
		return 0, 0
	}
	return r, n
}
