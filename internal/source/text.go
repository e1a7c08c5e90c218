package source

import (
	"strconv"
	"unicode/utf8"
)

// decodeRune decodes the first character of b; an invalid byte counts as one character.
func decodeRune(b []byte) (rune, int) {
	if len(b) > 0 && b[0] < utf8.RuneSelf {
		return rune(b[0]), 1
	}
	return utf8.DecodeRune(b)
}

// checkText finds the first byte of src that is not valid UTF-8 or, for YAML, a character
// that YAML does not allow (C0 control characters other than tab, LF and CR, and U+FFFE,
// U+FFFF). It returns its offset and a message, or "" when the text is fine.
func checkText(src []byte, forYAML bool) (int, string) {
	for i := 0; i < len(src); {
		// Skip plain ASCII eight bytes at a time.
		for i+8 <= len(src) {
			w := uint64(src[i]) | uint64(src[i+1])<<8 | uint64(src[i+2])<<16 | uint64(src[i+3])<<24 |
				uint64(src[i+4])<<32 | uint64(src[i+5])<<40 | uint64(src[i+6])<<48 | uint64(src[i+7])<<56
			// Any byte >= 0x80, or < 0x20 (when YAML is checked)?
			if w&0x8080808080808080 != 0 || forYAML && (w-0x2020202020202020)&^w&0x8080808080808080 != 0 {
				break
			}
			i += 8
		}
		if i >= len(src) {
			break
		}
		c := src[i]
		if c < utf8.RuneSelf {
			if forYAML && c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
				return i, "control character " + strconv.QuoteRune(rune(c)) + " is not allowed in YAML"
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && n == 1 {
			return i, "invalid UTF-8 byte 0x" + strconv.FormatUint(uint64(c), 16)
		}
		if forYAML && (r == 0xFFFE || r == 0xFFFF) {
			return i, "character " + strconv.QuoteRune(r) + " is not allowed in YAML"
		}
		i += n
	}
	return 0, ""
}
