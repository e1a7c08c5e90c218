package algebra

import (
	"hash/maphash"
	"slices"

	"github.com/jstk-dev/jstk/internal/source"
)

// valueIndex answers whether a list of values holds one Equal to a given value, by hash
// (source.Hash) for longer lists: enums of thousands of values are compared with each
// other at every location that has them, which a scan of the list made quadratic.
type ValueIndex struct {
	Vs     []source.Value
	byHash map[uint64][]int // nil for short lists, which are scanned
}

// valueSeed seeds the hashes of valueIndex.
var valueSeed = maphash.MakeSeed()

// indexScanMax is the longest list that is scanned instead of hashed.
const indexScanMax = 8

func NewValueIndex(vs []source.Value) *ValueIndex {
	x := &ValueIndex{}
	for _, v := range vs {
		x.Add(v)
	}
	return x
}

// add appends v to the list.
func (x *ValueIndex) Add(v source.Value) {
	x.Vs = append(x.Vs, v)
	switch {
	case len(x.Vs) <= indexScanMax:
	case x.byHash == nil:
		x.byHash = make(map[uint64][]int, 2*len(x.Vs))
		for i, w := range x.Vs {
			k := source.Hash(valueSeed, w)
			x.byHash[k] = append(x.byHash[k], i)
		}
	default:
		k := source.Hash(valueSeed, v)
		x.byHash[k] = append(x.byHash[k], len(x.Vs)-1)
	}
}

// has reports whether the list holds a value Equal to v.
func (x *ValueIndex) Has(v source.Value) bool {
	eq := func(w source.Value) bool { return source.Equal(v, w) }
	if x.byHash == nil {
		return slices.ContainsFunc(x.Vs, eq)
	}
	for _, i := range x.byHash[source.Hash(valueSeed, v)] {
		if eq(x.Vs[i]) {
			return true
		}
	}
	return false
}

// missing returns the values of a with no Equal value in b, in a's order.
func Missing(a, b []source.Value) []source.Value {
	var out []source.Value
	if len(a) == 0 {
		return out
	}
	var in *ValueIndex
	if len(a) <= indexScanMax {
		in = &ValueIndex{Vs: b} // a few values: scanning b costs less than hashing it
	} else {
		in = NewValueIndex(b)
	}
	for _, v := range a {
		if !in.Has(v) {
			out = append(out, v)
		}
	}
	return out
}
