package diff

import (
	"hash/maphash"
	"slices"

	"github.com/jstk-dev/jstk/internal/source"
)

// valueIndex answers whether a list of values holds one Equal to a given value, by hash
// (source.Hash) for longer lists: enums of thousands of values are compared with each
// other at every location that has them, which a scan of the list made quadratic.
type valueIndex struct {
	vs     []source.Value
	byHash map[uint64][]int // nil for short lists, which are scanned
}

// valueSeed seeds the hashes of valueIndex.
var valueSeed = maphash.MakeSeed()

// indexScanMax is the longest list that is scanned instead of hashed.
const indexScanMax = 8

func newValueIndex(vs []source.Value) *valueIndex {
	x := &valueIndex{}
	for _, v := range vs {
		x.add(v)
	}
	return x
}

// add appends v to the list.
func (x *valueIndex) add(v source.Value) {
	x.vs = append(x.vs, v)
	switch {
	case len(x.vs) <= indexScanMax:
	case x.byHash == nil:
		x.byHash = make(map[uint64][]int, 2*len(x.vs))
		for i, w := range x.vs {
			k := source.Hash(valueSeed, w)
			x.byHash[k] = append(x.byHash[k], i)
		}
	default:
		k := source.Hash(valueSeed, v)
		x.byHash[k] = append(x.byHash[k], len(x.vs)-1)
	}
}

// has reports whether the list holds a value Equal to v.
func (x *valueIndex) has(v source.Value) bool {
	eq := func(w source.Value) bool { return source.Equal(v, w) }
	if x.byHash == nil {
		return slices.ContainsFunc(x.vs, eq)
	}
	for _, i := range x.byHash[source.Hash(valueSeed, v)] {
		if eq(x.vs[i]) {
			return true
		}
	}
	return false
}

// missing returns the values of a with no Equal value in b, in a's order.
func missing(a, b []source.Value) []source.Value {
	var out []source.Value
	if len(a) == 0 {
		return out
	}
	var in *valueIndex
	if len(a) <= indexScanMax {
		in = &valueIndex{vs: b} // a few values: scanning b costs less than hashing it
	} else {
		in = newValueIndex(b)
	}
	for _, v := range a {
		if !in.has(v) {
			out = append(out, v)
		}
	}
	return out
}
