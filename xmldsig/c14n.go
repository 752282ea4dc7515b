package xmldsig

import (
	"slices"
	"strings"

	"github.com/beevik/etree"
)

// This file is inclusive Canonical XML 1.0 without comments
// (http://www.w3.org/TR/2001/REC-xml-c14n-20010315) over an etree tree: a
// single pass appending to a byte slice, without copying the tree (unlike
// goxmldsig's canonicalizer, which copies each subtree once per level).
// Tests check it against goxmldsig's canonicalizer and xmlsec1.

// nsBinding is one namespace declaration in scope; prefix "" is the
// default namespace.
type nsBinding struct{ prefix, uri string }

// lookupNS returns the namespace bound to prefix in scope (innermost
// last) and whether it is bound.
func lookupNS(scope []nsBinding, prefix string) (string, bool) {
	for i := len(scope) - 1; i >= 0; i-- {
		if scope[i].prefix == prefix {
			return scope[i].uri, true
		}
	}
	return "", false
}

// canonAttr is an attribute being rendered: ns declarations sort before
// other attributes, by prefix; the others by namespace URI and local name.
type canonAttr struct {
	isNS     bool
	uri, key string // key: prefix for declarations, local name otherwise
	name     string // qualified name as written
	value    string
}

func compareAttr(a, b canonAttr) int {
	switch {
	case a.isNS != b.isNS:
		if a.isNS {
			return -1
		}
		return 1
	case a.isNS:
		return strings.Compare(a.key, b.key)
	}
	if c := strings.Compare(a.uri, b.uri); c != 0 {
		return c
	}
	return strings.Compare(a.key, b.key)
}

// canonicalizer appends the canonical form of elements to buf.
type canonicalizer struct {
	buf   []byte
	attrs []canonAttr // scratch
	skip  *etree.Element
}

// canonicalize returns the canonical form of the whole document rooted at
// root (whose parent is the document), leaving out skip and its subtree.
func canonicalize(root, skip *etree.Element, sizeHint int) []byte {
	c := &canonicalizer{buf: make([]byte, 0, sizeHint), skip: skip}
	c.element(root, nil, nil)
	return c.buf
}

// canonicalizeSubtree returns the canonical form of el as the apex of a
// document subset: the namespaces in scope from its ancestors are rendered
// on it, and so are the xml:* attributes it inherits (C14N 1.0 §2.4).
func canonicalizeSubtree(el *etree.Element) []byte {
	var ancestors []*etree.Element
	for p := el.Parent(); p != nil; p = p.Parent() {
		ancestors = append(ancestors, p)
	}
	var inherited []nsBinding
	var xmlAttrs []etree.Attr
	for i := len(ancestors) - 1; i >= 0; i-- {
		for _, a := range ancestors[i].Attr {
			switch {
			case a.Space == "xmlns" || a.Space == "" && a.Key == "xmlns":
				inherited = append(inherited, declOf(a))
			case a.Space == "xml":
				xmlAttrs = slices.DeleteFunc(xmlAttrs, func(x etree.Attr) bool { return x.Key == a.Key })
				xmlAttrs = append(xmlAttrs, a)
			}
		}
	}
	xmlAttrs = slices.DeleteFunc(xmlAttrs, func(x etree.Attr) bool { return el.SelectAttr("xml:"+x.Key) != nil })
	c := &canonicalizer{}
	c.element(el, nil, inherited, xmlAttrs)
	return c.buf
}

// declOf returns the binding an xmlns attribute declares.
func declOf(a etree.Attr) nsBinding {
	if a.Space == "" {
		return nsBinding{"", a.Value}
	}
	return nsBinding{a.Key, a.Value}
}

// element renders el. scope holds the namespaces in scope of its parent,
// which in a whole document are also the ones rendered. For the apex of a
// subset, inherited holds the ancestors' declarations (nothing is rendered
// yet) and extra the inherited xml:* attributes.
func (c *canonicalizer) element(el *etree.Element, scope []nsBinding, inherited []nsBinding, extra ...[]etree.Attr) {
	rendered := scope
	scope = scope[:len(scope):len(scope)] // appends below must not clobber the parent's
	attrs := c.attrs[:0]
	declare := func(b nsBinding) {
		cur, _ := lookupNS(rendered, b.prefix)
		if b.prefix == "xml" {
			return
		}
		if b.uri != cur {
			// Replace an inherited declaration of the same prefix.
			attrs = slices.DeleteFunc(attrs, func(a canonAttr) bool { return a.isNS && a.key == b.prefix })
			name := "xmlns"
			if b.prefix != "" {
				name = "xmlns:" + b.prefix
			}
			attrs = append(attrs, canonAttr{isNS: true, key: b.prefix, name: name, value: b.uri})
		} else {
			attrs = slices.DeleteFunc(attrs, func(a canonAttr) bool { return a.isNS && a.key == b.prefix })
		}
		scope = append(scope, b)
	}
	for _, b := range inherited {
		declare(b)
	}
	for _, a := range el.Attr {
		if a.Space == "xmlns" || a.Space == "" && a.Key == "xmlns" {
			declare(declOf(a))
		}
	}
	addAttr := func(a etree.Attr) {
		uri := ""
		switch a.Space {
		case "":
		case "xml":
			uri = nsXML
		default:
			var ok bool
			if uri, ok = lookupNS(scope, a.Space); !ok {
				uri = a.Space // undeclared: keep the order deterministic
			}
		}
		attrs = append(attrs, canonAttr{uri: uri, key: a.Key, name: a.FullKey(), value: a.Value})
	}
	for _, a := range el.Attr {
		if !(a.Space == "xmlns" || a.Space == "" && a.Key == "xmlns") {
			addAttr(a)
		}
	}
	for _, x := range extra {
		for _, a := range x {
			addAttr(a)
		}
	}
	slices.SortFunc(attrs, compareAttr)

	name := el.FullTag()
	c.buf = append(c.buf, '<')
	c.buf = append(c.buf, name...)
	for _, a := range attrs {
		c.buf = append(c.buf, ' ')
		c.buf = append(c.buf, a.name...)
		c.buf = append(c.buf, '=', '"')
		c.buf = appendEscapedAttr(c.buf, a.value)
		c.buf = append(c.buf, '"')
	}
	c.buf = append(c.buf, '>')
	c.attrs = attrs[:0]

	for _, t := range el.Child {
		switch t := t.(type) {
		case *etree.Element:
			if t != c.skip {
				c.element(t, scope, nil)
			}
		case *etree.CharData:
			c.buf = appendEscapedText(c.buf, t.Data)
		case *etree.ProcInst:
			c.buf = append(c.buf, "<?"...)
			c.buf = append(c.buf, t.Target...)
			if t.Inst != "" {
				c.buf = append(c.buf, ' ')
				c.buf = append(c.buf, t.Inst...)
			}
			c.buf = append(c.buf, "?>"...)
		}
	}
	c.buf = append(c.buf, "</"...)
	c.buf = append(c.buf, name...)
	c.buf = append(c.buf, '>')
}

// appendEscapedText appends s escaped as C14N text.
func appendEscapedText(b []byte, s string) []byte {
	last := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch s[i] {
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '\r':
			esc = "&#xD;"
		default:
			continue
		}
		b = append(b, s[last:i]...)
		b = append(b, esc...)
		last = i + 1
	}
	return append(b, s[last:]...)
}

// appendEscapedAttr appends s escaped as a C14N attribute value.
func appendEscapedAttr(b []byte, s string) []byte {
	last := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch s[i] {
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '"':
			esc = "&quot;"
		case '\t':
			esc = "&#x9;"
		case '\n':
			esc = "&#xA;"
		case '\r':
			esc = "&#xD;"
		default:
			continue
		}
		b = append(b, s[last:i]...)
		b = append(b, esc...)
		last = i + 1
	}
	return append(b, s[last:]...)
}
