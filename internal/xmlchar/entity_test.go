package xmlchar

import "testing"

func TestEntity(t *testing.T) {
	for _, tt := range []struct {
		in string
		r  rune
		n  int
	}{
		{"&amp;rest", '&', 5},
		{"&lt;", '<', 4},
		{"&gt;", '>', 4},
		{"&quot;", '"', 6},
		{"&apos;", '\'', 6},
		{"&#241;", 'ñ', 6},
		{"&#xF1;", 'ñ', 6},
		{"&#xD;", '\r', 5},
		{"&#x10FFFF;", 0x10FFFF, 10},
		{"&#0;", 0, 0},       // not an XML character
		{"&#xD800;", 0, 0},   // a surrogate
		{"&#xFFFE;", 0, 0},   // not a character
		{"&#x110000;", 0, 0}, // past Unicode
		{"&#-1;", 0, 0},
		{"&#+1;", 0, 0},
		{"&#x;", 0, 0},
		{"&#;", 0, 0},
		{"&nbsp;", 0, 0}, // not predefined
		{"&amp", 0, 0},   // unterminated
		{"&;", 0, 0},
		{"&#00000000065;", 0, 0}, // ';' beyond the first 12 bytes
	} {
		if r, n := Entity(tt.in); r != tt.r || n != tt.n {
			t.Errorf("Entity(%q) = %q, %d; want %q, %d", tt.in, r, n, tt.r, tt.n)
		}
		if r, n := Entity([]byte(tt.in)); r != tt.r || n != tt.n {
			t.Errorf("Entity([]byte(%q)) = %q, %d; want %q, %d", tt.in, r, n, tt.r, tt.n)
		}
	}
}

func TestNameLen(t *testing.T) {
	for _, tt := range []struct {
		in string
		n  int
	}{
		{"ECF>", 3},
		{"ds:Signature xmlns", 12},
		{"a.b-c_9 ", 7},
		{"_x", 2},
		{"x", 1},
		{"", 0},
		{"9a", 0},
		{"-a", 0},
		{":a", 0},
		{"a:", 0},    // empty local part
		{"a:9", 0},   // local part starting with a digit
		{"a:b:c", 0}, // two colons
		{"Ñandú", 0}, // not ASCII
		{"a=b", 1},
	} {
		if n := NameLen(tt.in); n != tt.n {
			t.Errorf("NameLen(%q) = %d, want %d", tt.in, n, tt.n)
		}
		if n := NameLen([]byte(tt.in)); n != tt.n {
			t.Errorf("NameLen([]byte(%q)) = %d, want %d", tt.in, n, tt.n)
		}
	}
}
