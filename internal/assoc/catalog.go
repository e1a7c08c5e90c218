package assoc

import (
	"fmt"
	"path"
	"sort"
	"strings"
)

// Entry is one schema of a catalog in SchemaStore's format (src/api/json/catalog.json):
// its name, the URL of its schema and the patterns of the files it applies to.
type Entry struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	URL         string   `json:"url"`
	FileMatch   []string `json:"fileMatch,omitempty"`
}

// Catalog is a catalog's entries with ONE compiled matcher over all their patterns: the
// patterns whose last segment is a literal name are indexed by that name, those that end in
// a literal suffix by the suffix's extension, and only the few others are tried on every
// path. Matching a path costs a map look-up and the patterns of its bucket, not a glob call
// per pattern of the catalog.
type Catalog struct {
	// Name names the catalog in messages ("SchemaStore 3b6446a").
	Name    string
	entries []Entry
	byName  map[string][]*compiled
	byExt   map[string][]*compiled
	others  []*compiled
	count   int
}

// compiled is one pattern of one entry.
type compiled struct {
	entry  int
	glob   *Glob
	suffix string // a literal every matching base name ends with ("" when none)
}

// PatternError is a catalog pattern that could not be compiled: the entry keeps its other
// patterns, and the error names the entry and says what is wrong.
type PatternError struct {
	Catalog, Entry, Pattern string
	Err                     error
}

func (e *PatternError) Error() string {
	return fmt.Sprintf("%s: entry %q: fileMatch %q is not a valid glob: %v; the pattern is left out (fix it in the catalog)", e.Catalog, e.Entry, e.Pattern, e.Err)
}

// NewCatalog compiles the patterns of entries. A pattern that is not a valid glob is left
// out and reported; the others still match.
func NewCatalog(name string, entries []Entry) (*Catalog, []error) {
	c := &Catalog{Name: name, entries: entries, byName: map[string][]*compiled{}, byExt: map[string][]*compiled{}}
	var errs []error
	for i, e := range entries {
		for _, p := range e.FileMatch {
			if strings.HasPrefix(p, "!") && !strings.HasPrefix(p, "!(") {
				continue // an exclusion of VS Code's syntax: SchemaStore has none; never a match
			}
			g, err := CompileGlob(p, Anywhere)
			if err != nil {
				errs = append(errs, &PatternError{Catalog: name, Entry: e.Name, Pattern: p, Err: err})
				continue
			}
			c.count++
			for _, segs := range g.alts {
				cp := &compiled{entry: i, glob: g}
				suffix, exact := literalSuffix(segs)
				cp.suffix = suffix
				switch {
				case exact:
					c.byName[suffix] = append(c.byName[suffix], cp)
				case strings.Contains(suffix, "."):
					ext := suffix[strings.LastIndexByte(suffix, '.'):]
					c.byExt[ext] = append(c.byExt[ext], cp)
				default:
					c.others = append(c.others, cp)
				}
			}
		}
	}
	return c, errs
}

// Entries returns the catalog's entries, in its order.
func (c *Catalog) Entries() []Entry { return c.entries }

// Patterns counts the compiled patterns.
func (c *Catalog) Patterns() int { return c.count }

// Hit is a catalog entry that matches a path, by one of its patterns.
type Hit struct {
	Entry   Entry
	Pattern string
}

// Match returns the most specific entries whose patterns match name (a workspace-relative
// slash path): one when it is decided, several when equally specific patterns of entries
// naming different schemas match (a tie, which the caller reports), none when nothing
// matches. A path pattern beats a bare name, then the longer literal text wins.
func (c *Catalog) Match(name string) []Hit {
	if c == nil {
		return nil
	}
	name = path.Clean(name)
	base := path.Base(name)
	var best []*compiled
	consider := func(list []*compiled) {
		for _, cp := range list {
			if cp.suffix != "" && !strings.HasSuffix(base, cp.suffix) {
				continue
			}
			if !cp.glob.Match(name) {
				continue
			}
			if len(best) == 0 {
				best = append(best, cp)
				continue
			}
			switch moreSpecific(cp.glob, best[0].glob) {
			case 1:
				best = append(best[:0], cp)
			case 0:
				best = append(best, cp)
			}
		}
	}
	consider(c.byName[base])
	if i := strings.LastIndexByte(base, '.'); i >= 0 {
		consider(c.byExt[base[i:]])
	}
	consider(c.others)
	var hits []Hit
	seen := map[string]bool{}
	for _, cp := range best {
		e := c.entries[cp.entry]
		if seen[e.URL] {
			continue // two entries (or patterns) naming one schema are no tie
		}
		seen[e.URL] = true
		hits = append(hits, Hit{Entry: e, Pattern: cp.glob.Text})
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Entry.Name < hits[j].Entry.Name })
	return hits
}

// moreSpecific compares two patterns: 1 when a is more specific, -1 when b is, 0 a tie.
func moreSpecific(a, b *Glob) int {
	switch {
	case a.path != b.path:
		if a.path {
			return 1
		}
		return -1
	case a.literal != b.literal:
		if a.literal > b.literal {
			return 1
		}
		return -1
	}
	return 0
}
