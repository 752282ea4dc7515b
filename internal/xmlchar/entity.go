// Package xmlchar holds what every reader of DGII's XML documents shares:
// the limits checked before anything else reads a document (CheckLimits),
// the byte order mark they skip (TrimBOM), and the XML names and character
// and entity references the one-pass readers decode (xmldsig's
// canonicalizer, ecf's tokenizer).
package xmlchar

import "strconv"

// Entity decodes the reference at the start of s, which starts with '&':
// one of XML's five predefined entities, or a decimal or hexadecimal
// character reference to a character XML allows. It returns the character
// and the reference's length, or 0, 0 for anything else.
func Entity[T ~string | ~[]byte](s T) (rune, int) {
	end := -1
	for i := range min(len(s), 12) {
		if s[i] == ';' {
			end = i
			break
		}
	}
	if end < 2 {
		return 0, 0
	}
	name := string(s[1:end])
	switch name {
	case "amp":
		return '&', end + 1
	case "lt":
		return '<', end + 1
	case "gt":
		return '>', end + 1
	case "quot":
		return '"', end + 1
	case "apos":
		return '\'', end + 1
	}
	if name[0] != '#' || len(name) < 2 {
		return 0, 0
	}
	base, digits := 10, name[1:]
	if digits[0] == 'x' {
		base, digits = 16, digits[1:]
	}
	if digits == "" || digits[0] == '+' || digits[0] == '-' {
		return 0, 0
	}
	n, err := strconv.ParseUint(digits, base, 32)
	if err != nil {
		return 0, 0
	}
	r := rune(n)
	if !(r == 0x9 || r == 0xA || r == 0xD || 0x20 <= r && r <= 0xD7FF || 0xE000 <= r && r <= 0xFFFD || 0x10000 <= r && r <= 0x10FFFF) {
		return 0, 0
	}
	return r, end + 1
}
