package schema

// Hooks for the keyword-model test of the engines (engines_test.go, package schema_test).

// AddKeywords appends entries to the keyword model until the returned function restores
// it. Not safe while other tests read the model: call it from a test that is not parallel
// (parallel tests wait for those to end).
func AddKeywords(ks ...Keyword) (restore func()) {
	keywordIndex()
	saved := keywordTable
	keywordTable = append(keywordTable[:len(keywordTable):len(keywordTable)], ks...)
	indexKeywords()
	return func() {
		keywordTable = saved
		indexKeywords()
	}
}

// LookUps runs fn and returns the names of the keywords the compiler looked up in schema
// objects meanwhile. Not safe with other compilations running: call it from a test that is
// not parallel.
func LookUps(fn func()) map[string]bool {
	seen := map[string]bool{}
	lookedUp = func(kw string) { seen[kw] = true }
	defer func() { lookedUp = nil }()
	fn()
	return seen
}
