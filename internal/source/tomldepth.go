package source

// tomlTextDepth finds, before go-toml reads a document, the first place where the document
// nests deeper than maxDepth levels, counting each part of a dotted key or table header as a
// level, as the tables they define are, and each array and inline table. go-toml bounds
// only the nesting of arrays and inline tables: a key of 1,000,000 dotted parts (2 MB) took
// it 40 s and 1 GB. The scan is linear, allocates only a stack of open brackets, and may
// count a level too many (a float's dot reads as a key's), never one too few.
func tomlTextDepth(src []byte, maxDepth int) (off int, tooDeep bool) {
	var (
		stack     []int // the depth outside each open array or inline table
		header    = 1   // the depth of the current table: 1 for the root, 1 + its header's parts
		cur       = 1   // the depth of the table or array a key or value now starts in
		parts     int   // the parts of the key being read, so far
		lineStart = true
	)
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case '\n':
			lineStart = true
			if len(stack) == 0 {
				cur, parts = header, 0
			}
			continue
		case ' ', '\t', '\r':
			continue
		case '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			i--
			continue
		case '"', '\'':
			i = skipTOMLString(src, i) - 1
			if parts == 0 {
				parts = 1
			}
		case '.':
			parts++
			if parts == 1 {
				parts = 2 // ".a" or a float "1.5": counted as two parts, never fewer
			}
		case '[':
			if lineStart && len(stack) == 0 {
				// a table header [a.b] or [[a.b]]: its parts make the table's depth
				j := i + 1
				if j < len(src) && src[j] == '[' {
					j++
				}
				n := 2
				for ; j < len(src) && src[j] != ']' && src[j] != '\n'; j++ {
					switch src[j] {
					case '.':
						n++
						if n > maxDepth {
							return i, true
						}
					case '"', '\'':
						j = skipTOMLString(src, j) - 1
					}
				}
				header, cur, parts = n, n, 0
				i = j
				lineStart = false
				continue
			}
			stack = append(stack, cur)
			cur = cur + max(parts, 1)
			parts = 0
			if cur > maxDepth {
				return i, true
			}
		case '{':
			stack = append(stack, cur)
			cur = cur + max(parts, 1)
			parts = 0
			if cur > maxDepth {
				return i, true
			}
		case ']', '}':
			if n := len(stack); n > 0 {
				cur = stack[n-1]
				stack = stack[:n-1]
			}
			parts = 0
		case '=':
			// the value is nested where the key ends: an array or table opened now goes
			// deeper by the key's parts
			if cur+parts-1 > maxDepth {
				return i, true
			}
		case ',':
			parts = 0
		default:
			if parts == 0 {
				parts = 1
			}
		}
		lineStart = false
		if cur+parts-1 > maxDepth { // a key's last part names a value in the table of the others
			return i, true
		}
	}
	return 0, false
}

// skipTOMLString returns the index just after the string (basic or literal, on one line or
// several) that starts at src[i]; len(src) when it does not end.
func skipTOMLString(src []byte, i int) int {
	q := src[i]
	if i+2 < len(src) && src[i+1] == q && src[i+2] == q {
		for j := i + 3; j+2 < len(src); j++ {
			if q == '"' && src[j] == '\\' {
				j++
				continue
			}
			if src[j] == q && src[j+1] == q && src[j+2] == q {
				j += 3
				for j < len(src) && src[j] == q { // up to two quotes may end the content
					j++
				}
				return j
			}
		}
		return len(src)
	}
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			if q == '"' {
				j++
			}
		case q:
			return j + 1
		case '\n':
			return j
		}
	}
	return len(src)
}
