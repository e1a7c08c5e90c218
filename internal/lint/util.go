package lint

import (
	"hash/maphash"
	"math/big"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/jstk-dev/jstk/internal/source"
)

// short renders a value for a message, cut to a readable length.
func short(v source.Value) string {
	b := source.AppendJSON(nil, v)
	if utf8.RuneCount(b) > 60 {
		r := []rune(string(b))
		return string(r[:57]) + "..."
	}
	return string(b)
}

// quoted renders a string as JSON.
func quoted(s string) string { return string(source.AppendJSON(nil, source.StringValue(s))) }

// live reports whether the sibling keywords of a schema object are evaluated (drafts 4-7
// ignore every sibling of $ref).
func live(n *node) bool { return n.isObject() && !n.hasRefOld() }

// fix builds a Fix.
func fix(desc string, ops ...PatchOp) *Fix { return &Fix{Description: desc, Patch: ops} }

// rat reads a JSON number exactly. Numbers with an exponent beyond ±400 are refused, so
// that a hostile literal such as 1e999999999 cannot make it allocate without bound.
func rat(v source.Value) (*big.Rat, bool) {
	if v.Kind() != source.Number {
		return nil, false
	}
	lit := v.Str()
	if i := strings.IndexAny(lit, "eE"); i >= 0 {
		exp := strings.TrimLeft(lit[i+1:], "+-")
		if len(exp) > 3 || len(exp) == 3 && exp > "400" {
			return nil, false
		}
	}
	r, ok := new(big.Rat).SetString(lit)
	return r, ok
}

// ratText prints an integral rational as a JSON number.
func ratText(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	return r.FloatString(20)
}

func floorRat(r *big.Rat) *big.Rat {
	q := new(big.Int).Div(r.Num(), r.Denom()) // Euclidean: floor for positive denominators
	return new(big.Rat).SetInt(q)
}

func ceilRat(r *big.Rat) *big.Rat {
	f := floorRat(r)
	if f.Cmp(r) != 0 {
		f.Add(f, big.NewRat(1, 1))
	}
	return f
}

// distance is the Damerau-Levenshtein (optimal string alignment) distance of two strings.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// closest returns the candidate nearest to s within a small edit distance (or equal but
// for case), or "".
func closest(s string, candidates map[string]bool) string {
	best, bestD := "", 100
	keys := make([]string, 0, len(candidates))
	for k := range candidates {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	ls := strings.ToLower(s)
	for _, k := range keys {
		if strings.ToLower(k) == ls {
			return k
		}
		limit := 1
		if len(k) >= 6 {
			limit = 2
		}
		if d := len(s) - len(k); d > limit || -d > limit {
			continue // the distance is at least the difference of the lengths
		}
		if dd := distance(s, k); dd <= limit && dd < bestD {
			best, bestD = k, dd
		}
	}
	return best
}

// duplicates returns the indexes of values equal to an earlier one (numbers compare by
// value: 1 equals 1.0).
func duplicates(items []source.Value) []int {
	var out []int
	seen := map[string]bool{}
	seed := maphash.MakeSeed()
	containers := map[uint64][]int{} // the distinct arrays and objects so far, by hash
	for i, it := range items {
		var key string
		switch it.Kind() {
		case source.String:
			key = "s" + it.Str()
		case source.Number:
			if r, ok := rat(it); ok {
				key = "n" + r.RatString()
			} else {
				key = "n" + it.Str()
			}
		case source.Bool, source.Null:
			key = "b" + string(source.AppendJSON(nil, it))
		default:
			k := source.Hash(seed, it)
			if slices.ContainsFunc(containers[k], func(j int) bool { return source.Equal(it, items[j]) }) {
				out = append(out, i)
			} else {
				containers[k] = append(containers[k], i)
			}
			continue
		}
		if seen[key] {
			out = append(out, i)
		}
		seen[key] = true
	}
	return out
}
