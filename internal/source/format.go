package source

import (
	"bytes"
	"fmt"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
)

// FormatOf returns the format that a file name's extension stands for: .json (so also
// .schema.json), .jsonc, .yaml and .yml, .toml, and .ndjson, .jsonl and .ldjson. Case is
// ignored. The JSON files that their tools read as JSONC are JSONC: tsconfig*.json,
// jsconfig*.json, devcontainer.json and .devcontainer.json, and every .json file of a
// .vscode or .devcontainer directory. It reports false for any other name, such as "-"
// for stdin.
func FormatOf(name string) (Format, bool) {
	cut := strings.LastIndexAny(name, `/\`)
	base := name[cut+1:]
	dot := strings.LastIndexByte(base, '.')
	if dot < 0 {
		return 0, false
	}
	switch strings.ToLower(base[dot+1:]) {
	case "jsonc":
		return JSONC, true
	case "json":
		if isJSONCName(name[:max(cut, 0)], strings.ToLower(base)) {
			return JSONC, true
		}
		return JSON, true
	case "yaml", "yml":
		return YAML, true
	case "toml":
		return TOML, true
	case "ndjson", "jsonl", "ldjson":
		return NDJSON, true
	}
	return 0, false
}

// isJSONCName reports the .json files that their tools read as JSONC, by their directory
// and lower-cased base name.
func isJSONCName(dir, base string) bool {
	switch {
	case strings.HasPrefix(base, "tsconfig") || strings.HasPrefix(base, "jsconfig"),
		base == "devcontainer.json" || base == ".devcontainer.json":
		return true
	}
	parent := dir[strings.LastIndexAny(dir, `/\`)+1:]
	return parent == ".vscode" || parent == ".devcontainer"
}

// Sniff guesses the format of a document from its content, for stdin and for names without
// a known extension:
//   - JSON when the text (after a byte order mark and white space) starts like a JSON value
//     and is one; also when it is empty, so that the error says a JSON value was expected;
//   - NDJSON when its first two non-blank lines are JSON values each;
//   - JSONC when it starts like a JSON value or a comment ("//", "/*") and is JSONC;
//   - TOML when it starts (after blank lines and comments) with a "key = value" line, or
//     with a table header ("[name]", "[[name]]") followed by another header or key/value
//     line, and the whole text is TOML;
//   - YAML otherwise. Text that starts with "{" or "[" but is neither JSON, NDJSON nor YAML
//     (nor small enough, 1 MiB, to be worth trying as YAML) is called JSON, so that its
//     errors are JSON's.
func Sniff(src []byte) Format {
	text := string(src)
	s := strings.TrimLeft(text[skipBOM(text):], " \t\r\n")
	if s == "" {
		return JSON
	}
	if startsLikeJSON(s[0]) {
		if _, err := parseJSONText(text, DefaultMaxDepth); err == nil {
			return JSON
		}
		if looksLikeNDJSON(s) {
			return NDJSON
		}
	}
	if startsLikeJSON(s[0]) || strings.HasPrefix(s, "//") || strings.HasPrefix(s, "/*") {
		if blanked, changed, err := blankJSONC(text); err == nil && changed {
			if _, err := parseJSONText(blanked, DefaultMaxDepth); err == nil {
				return JSONC
			}
		}
	}
	if looksLikeTOML(s) {
		var m map[string]any
		if toml.Unmarshal(src, &m) == nil {
			return TOML
		}
	}
	if s[0] == '{' || s[0] == '[' {
		// Broken JSON is far more likely than flow-style YAML; large input is not given to
		// the (slower) YAML parser just to find out.
		if len(src) > sniffYAMLLimit {
			return JSON
		}
		if _, err := ParseYAML("", src, nil); err != nil {
			return JSON
		}
	}
	return YAML
}

// sniffYAMLLimit is the size up to which Sniff tries text that starts like JSON but is not
// JSON as YAML.
const sniffYAMLLimit = 1 << 20

func startsLikeJSON(c byte) bool {
	switch c {
	case '{', '[', '"', '-', 't', 'f', 'n':
		return true
	}
	return c >= '0' && c <= '9'
}

// looksLikeNDJSON reports whether the first two non-blank lines of s are JSON values each.
func looksLikeNDJSON(s string) bool {
	n := 0
	for s != "" && n < 2 {
		line, rest, _ := strings.Cut(s, "\n")
		s = rest
		if strings.TrimSpace(line) == "" {
			continue
		}
		if _, err := parseJSONText(line, DefaultMaxDepth); err != nil {
			return false
		}
		n++
	}
	return n == 2
}

// looksLikeTOML reports whether s starts like TOML: with a "key = value" line, or with a
// table header followed by another header or a key/value line (a lone "[x]" is YAML too).
func looksLikeTOML(s string) bool {
	header := false
	for s != "" {
		line, rest, _ := strings.Cut(s, "\n")
		s = rest
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		if line[0] == '[' {
			name := strings.TrimLeft(line, "[")
			end := strings.IndexByte(name, ']')
			if end <= 0 || !tomlKeyLike(name[:end]) {
				return false
			}
			if header {
				return true
			}
			header = true
			continue
		}
		key, _, ok := strings.Cut(line, "=")
		return ok && tomlKeyLike(key)
	}
	return false
}

// tomlKeyLike reports whether s looks like a TOML key: bare or quoted parts joined by dots.
func tomlKeyLike(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" {
		return false
	}
	for s != "" {
		s = strings.TrimLeft(s, " \t")
		switch {
		case s == "":
			return false
		case s[0] == '"' || s[0] == '\'':
			end := strings.IndexByte(s[1:], s[0])
			if end < 0 {
				return false
			}
			s = s[end+2:]
		default:
			i := 0
			for i < len(s) && isBareKeyChar(s[i]) {
				i++
			}
			if i == 0 {
				return false
			}
			s = s[i:]
		}
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return true
		}
		if s[0] != '.' {
			return false
		}
		s = s[1:]
	}
	return false
}

// Parse parses src, the content of the file name, in format f. JSON and TOML give one
// document, YAML one per document of the stream, NDJSON one per non-blank line. For NDJSON,
// the documents of all valid lines are returned even when some lines are invalid; the error
// then joins one *Error per invalid line. Any other error is an *Error with the position of
// the problem. Invalid UTF-8 is an error in every format.
func Parse(name string, src []byte, f Format, lim *Limits) ([]*Document, error) {
	return parse(name, src, f, lim, false)
}

// ParseShared is Parse for a src that is never modified afterwards, such as a file's
// content read into a buffer of its own: a JSON document shares src's memory instead of
// keeping a copy of it (see ParseJSONShared). The other formats are parsed as Parse does.
func ParseShared(name string, src []byte, f Format, lim *Limits) ([]*Document, error) {
	return parse(name, src, f, lim, true)
}

func parse(name string, src []byte, f Format, lim *Limits, share bool) ([]*Document, error) {
	switch f {
	case JSON:
		parseJSON := ParseJSON
		if share {
			parseJSON = ParseJSONShared
		}
		doc, err := parseJSON(name, src, lim)
		if err != nil {
			return nil, err
		}
		return []*Document{doc}, nil
	case YAML:
		return ParseYAML(name, src, lim)
	case TOML:
		doc, err := ParseTOML(name, src, lim)
		if err != nil {
			return nil, err
		}
		return []*Document{doc}, nil
	case NDJSON:
		return parseNDJSON(name, src, lim)
	case JSONC:
		doc, err := ParseJSONC(name, src, lim)
		if err != nil {
			return nil, err
		}
		return []*Document{doc}, nil
	}
	return nil, fmt.Errorf("source.Parse: unknown format %v", f)
}

// ParseFile parses src by the extension of name, or by its content (see Sniff) when the
// extension is not known.
func ParseFile(name string, src []byte, lim *Limits) ([]*Document, error) {
	f, ok := FormatOf(name)
	if !ok {
		if doc := ParseIfJSON(name, src, lim, false); doc != nil {
			return []*Document{doc}, nil
		}
		f = Sniff(src)
	}
	return Parse(name, src, f, lim)
}

// ParseIfJSON parses src, whose format its name does not tell, when it is one JSON value
// within lim, and returns nil otherwise (then Sniff tells the format). Most such input is
// JSON: trying that first parses a large document once, where Sniff and then the parse
// proper parse it twice. share is ParseJSONShared's contract (src is the caller's to give).
func ParseIfJSON(name string, src []byte, lim *Limits, share bool) *Document {
	text := src[skipBOM(bytesString(src)):]
	text = bytes.TrimLeft(text, " \t\r\n")
	if len(text) == 0 || !startsLikeJSON(text[0]) {
		return nil
	}
	parseJSON := ParseJSON
	if share {
		parseJSON = ParseJSONShared
	}
	doc, err := parseJSON(name, src, lim)
	if err != nil {
		return nil
	}
	return doc
}
