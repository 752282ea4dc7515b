package xmlchar

// NameLen is the length of the name at the start of s, 0 if there is none:
// the ASCII names the one-pass canonicalizer reads (letters, digits, '_',
// '-', '.', not starting with a digit, '-' or '.') with at most one colon,
// between non-empty parts. Anything else makes it fall back to etree.
func NameLen[T ~string | ~[]byte](s T) int {
	if len(s) == 0 || !isNameStart(s[0]) {
		return 0
	}
	colon := false
	i := 1
	for ; i < len(s); i++ {
		c := s[i]
		if c == ':' {
			if colon || i+1 >= len(s) || !isNameStart(s[i+1]) {
				return 0
			}
			colon = true
			continue
		}
		if !isNameByte(c) {
			break
		}
	}
	return i
}

func isNameStart(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_'
}

func isNameByte(c byte) bool {
	return isNameStart(c) || '0' <= c && c <= '9' || c == '-' || c == '.'
}

// SpaceLen is the length of the XML whitespace (space, tab, line feed,
// carriage return) at the start of s.
func SpaceLen(s []byte) int {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}
