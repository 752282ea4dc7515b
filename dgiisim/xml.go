package dgiisim

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// node is an element of a parsed XML document: its local name, its text
// (trimmed) and its child elements in order.
type node struct {
	name     string
	text     string
	children []*node
}

// maxDepth bounds element nesting; DGII's formats are about 6 deep.
const maxDepth = 64

// parseXML parses a document the way DGII must: well-formed, one root, no
// DOCTYPE or other directives (so no entity tricks), bounded depth, UTF-8
// only.
func parseXML(b []byte) (*node, error) {
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	d.CharsetReader = func(charset string, r io.Reader) (io.Reader, error) {
		if c := strings.ToLower(charset); c != "utf-8" && c != "utf8" {
			return nil, fmt.Errorf("charset %q is not UTF-8", charset)
		}
		return r, nil
	}
	var root *node
	var stack []*node
	var texts []*strings.Builder
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		switch tok := tok.(type) {
		case xml.Directive:
			return nil, errors.New("DOCTYPE and other directives are not accepted")
		case xml.StartElement:
			if len(stack) == 0 && root != nil {
				return nil, errors.New("more than one root element")
			}
			if len(stack) >= maxDepth {
				return nil, errors.New("too deeply nested")
			}
			n := &node{name: tok.Name.Local}
			if len(stack) == 0 {
				root = n
			} else {
				p := stack[len(stack)-1]
				p.children = append(p.children, n)
			}
			stack = append(stack, n)
			texts = append(texts, &strings.Builder{})
		case xml.CharData:
			if len(stack) > 0 {
				texts[len(texts)-1].Write(tok)
			} else if len(bytes.TrimSpace(tok)) > 0 {
				return nil, errors.New("text outside the root element")
			}
		case xml.EndElement:
			stack[len(stack)-1].text = strings.TrimSpace(texts[len(texts)-1].String())
			stack, texts = stack[:len(stack)-1], texts[:len(texts)-1]
		}
	}
	if root == nil {
		return nil, errors.New("no root element")
	}
	return root, nil
}

// child returns the first child named name (case-sensitive, as DGII's
// XSDs), or nil.
func (n *node) child(name string) *node {
	if n == nil {
		return nil
	}
	for _, c := range n.children {
		if c.name == name {
			return c
		}
	}
	return nil
}

// all returns every child named name.
func (n *node) all(name string) []*node {
	if n == nil {
		return nil
	}
	var out []*node
	for _, c := range n.children {
		if c.name == name {
			out = append(out, c)
		}
	}
	return out
}

// get returns the text at the path of child names, "" when absent.
func (n *node) get(path ...string) string {
	for _, p := range path {
		n = n.child(p)
	}
	if n == nil {
		return ""
	}
	return n.text
}
