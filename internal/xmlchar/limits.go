package xmlchar

import (
	"bytes"
	"fmt"
)

// The limits every reader of a DGII document (e-CF, RFCE, ARECF, ACECF,
// ANECF, the seed) applies first, before anything else reads it. DGII's
// XSDs declare no attribute on any element: what real senders write is a
// few namespace declarations and xsi:* hints on the root, the Signature's
// xmlns, and Algorithm and URI inside the Signature. The limits are far
// above that and keep what a parser does per attribute or per namespace in
// scope (C14N sorts and looks them up) from growing with the input.
const (
	// MaxAttrs is the most attributes one element may carry, namespace
	// declarations included.
	MaxAttrs = 16
	// MaxNamespaces is the most namespace declarations (xmlns,
	// xmlns:prefix) a document may hold, on all its elements together.
	MaxNamespaces = 16
)

// LimitError is a document over MaxAttrs or MaxNamespaces.
type LimitError struct {
	// Element is the name of the element where the limit was passed, as
	// written.
	Element string
	// Namespaces is set when the document passed MaxNamespaces, else the
	// element passed MaxAttrs.
	Namespaces bool
}

func (e *LimitError) Error() string {
	if e.Namespaces {
		return fmt.Sprintf("more than %d namespace declarations (the last on <%s>)", MaxNamespaces, e.Element)
	}
	return fmt.Sprintf("<%s> carries more than %d attributes", e.Element, MaxAttrs)
}

// CheckLimits reads the markup of doc, start tags, end tags, comments,
// CDATA sections and processing instructions, in one pass and returns a
// *LimitError at the first element that takes doc over MaxAttrs or
// MaxNamespaces, without reading further. It returns nil otherwise, also
// when it meets markup it cannot read (a DOCTYPE, an unterminated
// comment, a malformed start tag...): every XML parser refuses that
// document at that point, having read no more attributes than counted.
// Its cost is linear in len(doc).
func CheckLimits(doc []byte) error {
	namespaces := 0
	for i := 0; i < len(doc); {
		j := bytes.IndexByte(doc[i:], '<')
		if j < 0 {
			return nil
		}
		i += j
		rest := doc[i:]
		var end int // of the markup in rest, 0 if unreadable
		switch {
		case bytes.HasPrefix(rest, []byte("<!--")):
			end = after(rest, 4, "-->")
		case bytes.HasPrefix(rest, []byte("<![CDATA[")):
			end = after(rest, 9, "]]>")
		case bytes.HasPrefix(rest, []byte("<?")):
			end = after(rest, 2, "?>")
		case bytes.HasPrefix(rest, []byte("</")):
			end = 2 // the end tag's name and '>' hold no '<'
		case bytes.HasPrefix(rest, []byte("<!")):
			return nil // a DOCTYPE or another declaration: refused by every reader
		default:
			var err error
			if end, err = startTag(rest, &namespaces); err != nil {
				return err
			}
		}
		if end == 0 {
			return nil
		}
		i += end
	}
	return nil
}

// after is the end of rest's markup, which closes with the first close
// after from, or 0 when there is none.
func after(rest []byte, from int, close string) int {
	k := bytes.Index(rest[from:], []byte(close))
	if k < 0 {
		return 0
	}
	return from + k + len(close)
}

// startTag counts the attributes of the start tag at the start of rest,
// adding its namespace declarations to *namespaces, and returns the
// tag's length (0 when it is malformed) or a *LimitError.
func startTag(rest []byte, namespaces *int) (int, error) {
	i := 1
	for i < len(rest) && !isSpace(rest[i]) && rest[i] != '>' && rest[i] != '/' {
		i++
	}
	name := rest[1:i]
	attrs := 0
	for {
		i += SpaceLen(rest[i:])
		switch {
		case i >= len(rest):
			return 0, nil
		case rest[i] == '>':
			return i + 1, nil
		case rest[i] == '/':
			return i + 1, nil // "/>", or malformed: either way no more attributes
		}
		start := i
		for i < len(rest) && !isSpace(rest[i]) && rest[i] != '=' && rest[i] != '>' && rest[i] != '/' {
			i++
		}
		attr := rest[start:i]
		i += SpaceLen(rest[i:])
		if len(attr) == 0 || i >= len(rest) || rest[i] != '=' {
			return 0, nil
		}
		i++
		i += SpaceLen(rest[i:])
		if i >= len(rest) || rest[i] != '"' && rest[i] != '\'' {
			return 0, nil
		}
		k := bytes.IndexByte(rest[i+1:], rest[i])
		if k < 0 {
			return 0, nil
		}
		i += 1 + k + 1
		if string(attr) == "xmlns" || bytes.HasPrefix(attr, []byte("xmlns:")) {
			if *namespaces++; *namespaces > MaxNamespaces {
				return 0, &LimitError{Element: shortName(name), Namespaces: true}
			}
		}
		if attrs++; attrs > MaxAttrs {
			return 0, &LimitError{Element: shortName(name)}
		}
	}
}

// shortName is name for a message, cut after 40 bytes.
func shortName(name []byte) string {
	if len(name) > 40 {
		return string(name[:40]) + "…"
	}
	return string(name)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// bom is the UTF-8 encoding of U+FEFF, the byte order mark .NET writes
// before XML.
var bom = []byte("\xef\xbb\xbf")

// TrimBOM returns doc without the UTF-8 byte order mark it may start
// with: XML allows one (XML 1.0 §4.3.3) and .NET's writers add it, but
// Go's XML readers take it for text before the root.
func TrimBOM(doc []byte) []byte { return bytes.TrimPrefix(doc, bom) }
