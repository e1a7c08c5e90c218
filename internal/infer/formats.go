package infer

import (
	"fmt"
	"strings"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// inferredFormats are the formats infer recognizes, most specific first: when the strings
// of a location satisfy several, the first is reported.
var inferredFormats = []string{"date-time", "date", "time", "uuid", "ipv4", "ipv6", "email", "uri", "hostname"}

// formatSet checks strings against the formats, with the format semantics of jstk's
// validator (each format is a tiny schema {"format": name} compiled with format assertion),
// behind cheap filters that reject most strings without calling the validator. Some
// filters are stricter than the format itself, so that ordinary words are not taken for
// host names ("pending" is a valid host name) or URIs ("a:b" is a valid URI).
type formatSet struct {
	all    uint16
	checks [16]*schema.Schema
	names  [16]string
}

func newFormatSet(draft *schema.Draft, disabled bool) (*formatSet, error) {
	fs := &formatSet{}
	if disabled {
		return fs, nil
	}
	for i, name := range inferredFormats {
		if !definedIn(name, draft) {
			continue
		}
		s, err := compileFormat(name, draft)
		if err != nil {
			return nil, err
		}
		fs.checks[i], fs.names[i] = s, name
		fs.all |= 1 << i
	}
	return fs, nil
}

// definedIn reports whether a draft defines a format: drafts 4 and 6 know date-time,
// email, hostname, ipv4, ipv6 and uri; draft 7 adds date and time; 2019-09 adds uuid.
func definedIn(name string, d *schema.Draft) bool {
	switch name {
	case "date", "time":
		return d.Version >= 7
	case "uuid":
		return d.Version >= 2019
	}
	return true
}

// compileFormat compiles {"format": name} with format assertion in the given draft.
func compileFormat(name string, draft *schema.Draft) (*schema.Schema, error) {
	uri := "urn:jstk:infer:format:" + name
	text := fmt.Sprintf(`{"format": %q}`, name)
	doc, err := source.ParseJSON(uri, []byte(text), nil)
	if err != nil {
		return nil, err
	}
	c := schema.NewCompiler(&schema.Options{AssertFormat: true, Draft: draft, ForceDraft: true})
	if err := c.AddDocument(uri, doc); err != nil {
		return nil, err
	}
	return c.Compile(uri)
}

// match returns the subset of alive formats that s satisfies.
func (fs *formatSet) match(s string, alive uint16) uint16 {
	for i := 0; alive>>i != 0; i++ {
		bit := uint16(1) << i
		if alive&bit == 0 {
			continue
		}
		if !prefilter(fs.names[i], s) {
			alive &^= bit
			continue
		}
		if ok, err := fs.checks[i].Valid(source.StringValue(s)); err != nil || !ok {
			alive &^= bit
		}
	}
	return alive
}

// best names the most specific format of a set, or "".
func (fs *formatSet) best(set uint16) string {
	for i := 0; set>>i != 0; i++ {
		if set&(1<<i) != 0 {
			return fs.names[i]
		}
	}
	return ""
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// prefilter rejects strings that cannot be (or should not be called) the format.
func prefilter(name, s string) bool {
	switch name {
	case "date-time":
		return len(s) >= 20 && isDigit(s[0]) && s[4] == '-'
	case "date":
		return len(s) == 10 && isDigit(s[0]) && s[4] == '-'
	case "time":
		return len(s) >= 9 && isDigit(s[0]) && s[2] == ':'
	case "uuid":
		return len(s) == 36 && s[8] == '-'
	case "ipv4":
		return len(s) >= 7 && len(s) <= 15 && isDigit(s[0])
	case "ipv6":
		return len(s) >= 2 && strings.IndexByte(s, ':') >= 0
	case "email":
		return strings.IndexByte(s, '@') > 0
	case "uri":
		i := strings.IndexByte(s, ':')
		if i <= 0 {
			return false
		}
		return strings.HasPrefix(s[i:], "://") || strings.HasPrefix(s, "urn:") || strings.HasPrefix(s, "mailto:")
	case "hostname":
		// At least two labels, the last one alphabetic (a top-level domain), so that
		// words and numbers are not host names.
		dot := strings.LastIndexByte(s, '.')
		if dot <= 0 || dot == len(s)-1 || !isAlpha(s[0]) && !isDigit(s[0]) {
			return false
		}
		for i := dot + 1; i < len(s); i++ {
			if !isAlpha(s[i]) {
				return false
			}
		}
		return len(s)-dot-1 >= 2
	}
	return true
}
