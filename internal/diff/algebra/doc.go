// Package algebra owns what diff knows of one schema and of a conjunction of schemas: the
// readers that turn a compiled schema object into facts (one handler per keyword,
// nodeReaders), the bodies shared by the engines of one comparison, the interned
// conjunctions and their merged views (bounds, lengths, required and forbidden names,
// enums, types), the value sets, the bounds and intervals of numbers, and the options of a
// comparison. It proves nothing and searches nothing: package prove answers questions
// over its conjunctions, and the packages above it embed its Engine.
package algebra
