package schema

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"math"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/source"
)

// Error is one way an instance fails a schema, in the spirit of the specification's
// output units.
type Error struct {
	// InstanceLocation is the JSON Pointer of the failing value in the instance.
	InstanceLocation string `json:"instanceLocation"`
	// KeywordLocation is the path of keywords evaluated to reach the failing keyword,
	// through references.
	KeywordLocation string `json:"keywordLocation"`
	// AbsoluteKeywordLocation is the failing keyword's absolute URI (for a schema read from
	// a file without $id: the file's name, "#", the keyword's JSON Pointer).
	AbsoluteKeywordLocation string `json:"absoluteKeywordLocation"`
	// Keyword is the failing keyword ("" for a false schema).
	Keyword string `json:"keyword"`
	// Message says what is wrong, in words.
	Message string `json:"message"`
	// Line and Column locate InstanceLocation in its document; the schema package leaves
	// them zero, callers who know the document fill them in.
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
	// Causes explain a failed anyOf, oneOf or similar: why each alternative failed.
	Causes []Error `json:"causes,omitempty"`

	schema *Schema
	kwPath string // the keyword's pointer relative to schema, escaped ("required", "dependentRequired/a")
}

// SchemaPosition returns the file, line and column of the failing keyword in its schema
// ("" file for inline or built-in schemas).
func (e *Error) SchemaPosition() (file string, line, col int) {
	if e.schema == nil {
		return "", 0, 0
	}
	ptr := e.schema.at.String()
	if e.kwPath != "" {
		ptr += "/" + e.kwPath
	}
	line, col = e.schema.doc.src.LocateKey(ptr)
	return e.schema.doc.name, line, col
}

// Validate evaluates an instance and returns every error (nil when the instance is valid).
// The error is non-nil only when the evaluation could not be completed: a pattern match
// that exceeded its time limit, or a reference loop that never reaches the instance.
func (s *Schema) Validate(v source.Value) ([]Error, error) {
	return s.ValidateContext(context.Background(), v)
}

// ValidateContext is Validate within a run: the evaluation stops, with the context's
// error, once ctx is cancelled or past its deadline (it checks as it goes, so a long
// evaluation stops promptly), and its pattern matches draw on the run's budget
// (WithRegexBudget), whose end is a *StoppedError.
func (s *Schema) ValidateContext(ctx context.Context, v source.Value) ([]Error, error) {
	errs, _, err := s.ValidateLimitContext(ctx, v, 0)
	return errs, err
}

// ValidateLimit is Validate that stops once max errors (causes included) have been found,
// reporting that it did; max <= 0 means no limit. An instance with a pathological number of
// errors (a large generated document against a schema of many alternatives) is then
// reported in bounded time and memory.
func (s *Schema) ValidateLimit(v source.Value, max int) (errs []Error, truncated bool, err error) {
	return s.ValidateLimitContext(context.Background(), v, max)
}

// ValidateLimitContext is ValidateLimit within a run (see ValidateContext).
//
// A valid instance, the common case, is found valid by a first evaluation that stops at
// the first failure and keeps no locations (jsonschema-rs's and Blaze's valid path); only
// an instance it finds invalid, or that it cannot finish, is evaluated again in full,
// collecting its errors.
func (s *Schema) ValidateLimitContext(ctx context.Context, v source.Value, max int) (errs []Error, truncated bool, err error) {
	if s.verdict(ctx, v) {
		return nil, false, nil
	}
	e := getEvaluator(ctx, true)
	defer putEvaluator(e)
	e.maxErrors = max
	e.eval(s, v, nil)
	if e.fatal != nil {
		return nil, false, e.fatal
	}
	if len(e.errs) == 0 {
		return nil, e.truncated, nil
	}
	out := make([]Error, len(e.errs))
	copy(out, e.errs)
	return out, e.truncated, nil
}

// verdict reports whether v is valid, by an evaluation that keeps no locations; false also
// when the evaluation could not be completed.
func (s *Schema) verdict(ctx context.Context, v source.Value) bool {
	e := getEvaluator(ctx, false)
	e.noPaths = true
	ok := e.eval(s, v, nil) && e.fatal == nil
	putEvaluator(e)
	return ok
}

// Valid reports whether an instance is valid, stopping at the first error.
func (s *Schema) Valid(v source.Value) (bool, error) {
	return s.ValidContext(context.Background(), v)
}

// ValidContext is Valid within a run (see ValidateContext).
func (s *Schema) ValidContext(ctx context.Context, v source.Value) (bool, error) {
	e := getEvaluator(ctx, false)
	defer putEvaluator(e)
	ok := e.eval(s, v, nil)
	if e.fatal != nil {
		return false, e.fatal
	}
	return ok, nil
}

// ---- evaluator state ----

type pathTok struct {
	s string
	i int // >= 0: an array index; s is unused
}

type evaluator struct {
	ctx     context.Context // the run's: cancellation, deadline, pattern budget
	ticks   uint            // evaluations since the context was last checked
	collect bool
	// noPaths: the instance and keyword locations (ipath, kpath) are not kept, in a first
	// evaluation for the verdict alone (see ValidateLimitContext).
	noPaths   bool
	errs      []Error
	ipath     []pathTok
	kpath     []pathTok
	scope     []*resource
	chain     []*Schema // the targets of the references followed in place, outermost first
	chainBase int       // where the chain of the value under evaluation starts
	// onChain maps the targets on chain that may close a loop to their latest place there.
	onChain    map[*Schema]int
	depth      int // nesting of the evaluations under way (see MaxEvalDepth)
	causeDepth int // nesting of the explanations under way (see branchCauses)
	fatal      error
	trace      func(Event)
	quietDepth int // nesting of boolean-mode evaluations (alternatives, not, if, contains)
	memo       map[memoKey]bool
	maxErrors  int  // 0: no limit
	recorded   int  // errors recorded, causes included
	truncated  bool // the limit was reached: evaluation stops

	// annot: annotations are collected into annots (see Annotate); every evaluation then
	// goes through evalAnnotated. verbose, with annot: every schema evaluated is recorded
	// in nodes (see Output).
	annot   bool
	annots  []AnnotationUnit
	verbose bool
	nodes   []evalNode

	// When tracing: the evaluations recorded, their steps, and the nesting of those being
	// recorded (see evalReplayed).
	traced    map[memoKey]traced
	steps     []Event
	recording int
	// replay, when set, takes a replayed evaluation's steps at once (see TraceReplays);
	// recordings counts the evaluations recorded, to number them.
	replay     func(id int, steps []Event)
	recordings int
}

// Event is one step of an evaluation, for coverage: a schema reached (Keyword ""), or a
// keyword applied to a value, with its outcome.
type Event struct {
	Schema  *Schema
	Keyword string
	// Passed is the keyword's outcome on the value (true for a schema reached).
	Passed bool
	// Detail says more for some keywords: the JSON type seen (type), the index of the
	// matching value (enum), the indices of the matching alternatives, comma-separated
	// (anyOf, oneOf), "then" or "else" (if), the property (properties, required,
	// dependentRequired, dependentSchemas: one event per property).
	Detail string
}

// Trace evaluates an instance like Validate and calls fn for each evaluation step.
func (s *Schema) Trace(v source.Value, fn func(Event)) ([]Error, error) {
	return s.TraceReplaysContext(context.Background(), v, fn, nil)
}

// TraceReplays is Trace for a consumer that can take repeated steps at once. Tracing
// evaluates a shared reference's target on one value once and repeats its recorded steps
// wherever it is met again on that value (see evalReplayed). With replay nil, each
// repeated step goes to fn, as in Trace. Otherwise each repetition goes to replay instead:
// id numbers the recorded evaluation within this call (the same id, the same steps), and
// steps are what fn would have received, in order, right after the event of the schema
// reached (Keyword ""). steps is only valid during the call.
func (s *Schema) TraceReplays(v source.Value, fn func(Event), replay func(id int, steps []Event)) ([]Error, error) {
	return s.TraceReplaysContext(context.Background(), v, fn, replay)
}

// TraceReplaysContext is TraceReplays within a run (see ValidateContext).
func (s *Schema) TraceReplaysContext(ctx context.Context, v source.Value, fn func(Event), replay func(id int, steps []Event)) ([]Error, error) {
	e := getEvaluator(ctx, true)
	defer putEvaluator(e)
	e.trace = fn
	e.replay = replay
	e.eval(s, v, nil)
	if e.fatal != nil {
		return nil, e.fatal
	}
	if len(e.errs) == 0 {
		return nil, nil
	}
	out := make([]Error, len(e.errs))
	copy(out, e.errs)
	return out, nil
}

// emit reports an evaluation step when tracing.
func (e *evaluator) emit(s *Schema, kw string, passed bool, detail string) {
	if e.trace != nil {
		ev := Event{Schema: s, Keyword: kw, Passed: passed, Detail: detail}
		if e.recording > 0 {
			e.steps = append(e.steps, ev)
		}
		e.trace(ev)
	}
}

// traced is an evaluation whose steps were recorded when tracing: its verdict, and its
// steps (after the schema reached) in evaluator.steps.
type traced struct {
	ok         bool
	start, end int32
	id         int32 // the recording's number, for TraceReplays
}

// evalReplayed evaluates, when tracing, a reference's target in boolean mode, where no
// annotation is collected: the same schema on the same value gives the same verdict
// through the same steps (unless dynamic references are about, which the caller
// excludes), so the steps of the first such evaluation are recorded and later ones replay
// them instead of evaluating again. An instance whose alternatives (anyOf, oneOf) refer
// to a shared definition evaluates it once, not once per alternative.
func (e *evaluator) evalReplayed(s *Schema, v source.Value, k memoKey) bool {
	if e.recording == 0 && len(e.steps) >= maxRecordedSteps {
		// no recording is under way: forget them all (memory stays bounded on a large
		// document; replays mostly serve the alternatives at one instance location)
		clear(e.steps)
		e.steps = e.steps[:0]
		clear(e.traced)
	}
	if t, ok := e.traced[k]; ok {
		steps := e.steps[t.start:t.end]
		if e.recording > 0 {
			e.steps = append(e.steps, steps...) // steps keeps the old array if this grows it
		}
		if e.replay != nil {
			e.replay(int(t.id), steps)
		} else {
			for _, ev := range steps {
				e.trace(ev)
			}
		}
		return t.ok
	}
	start := len(e.steps)
	e.recording++
	ok := e.evalScoped(s, v, nil)
	e.recording--
	if !e.stopped() {
		if e.traced == nil {
			e.traced = map[memoKey]traced{}
		}
		e.traced[k] = traced{ok: ok, start: int32(start), end: int32(len(e.steps)), id: int32(e.recordings)}
		e.recordings++
	}
	return ok
}

// maxRecordedSteps bounds the steps kept for replay (see evalReplayed): about 12 MB.
const maxRecordedSteps = 1 << 18

// maxKeptTraced bounds the recordings whose map a pooled evaluator keeps.
const maxKeptTraced = 1 << 9

var evalPool = sync.Pool{New: func() any { return &evaluator{} }}

func getEvaluator(ctx context.Context, collect bool) *evaluator {
	e := evalPool.Get().(*evaluator)
	e.ctx, e.ticks = ctx, 0
	e.collect = collect
	return e
}

// ctxEvery is how many evaluations go between two looks at the run's context: often
// enough that a cancelled run stops within a millisecond or so, rarely enough to cost
// nothing measurable.
const ctxEvery = 1024

// halted reports whether the evaluation must stop: a fatal error so far, or (looked at
// every ctxEvery evaluations) a cancelled or expired context.
func (e *evaluator) halted() bool {
	if e.fatal != nil {
		return true
	}
	e.ticks++
	if e.ticks%ctxEvery == 0 {
		if err := e.ctx.Err(); err != nil {
			e.setFatal(err)
			return true
		}
	}
	return false
}

func putEvaluator(e *evaluator) {
	clear(e.errs)
	e.errs = e.errs[:0]
	e.ipath, e.kpath, e.scope, e.chain = e.ipath[:0], e.kpath[:0], e.scope[:0], e.chain[:0]
	clear(e.onChain)
	e.chainBase, e.depth, e.causeDepth, e.fatal, e.trace, e.replay, e.recordings = 0, 0, 0, nil, nil, nil, 0
	e.noPaths = false
	e.maxErrors, e.recorded, e.truncated = 0, 0, false
	e.quietDepth, e.memo = 0, nil
	if e.annot {
		clear(e.annots)
		e.annot, e.annots = false, e.annots[:0]
		e.verbose, e.nodes = false, nil
	}
	if e.traced != nil || len(e.steps) > 0 {
		clear(e.steps)
		e.steps, e.recording = e.steps[:0], 0
		if len(e.traced) > maxKeptTraced {
			e.traced = nil
		} else {
			clear(e.traced) // kept for the next trace, which need not grow it again
		}
		if cap(e.steps) > 1<<12 {
			e.steps = nil // a pooled evaluator does not keep a large document's steps
		}
	}
	e.ctx = nil
	evalPool.Put(e)
}

func joinPath(toks []pathTok) string {
	if len(toks) == 0 {
		return ""
	}
	var sb strings.Builder
	for _, t := range toks {
		sb.WriteByte('/')
		if t.i >= 0 {
			sb.WriteString(strconv.Itoa(t.i))
		} else {
			sb.WriteString(source.EscapeToken(t.s))
		}
	}
	return sb.String()
}

// The locations under evaluation are kept unless noPaths (see ValidateLimitContext).
func (e *evaluator) pushK(s string) {
	if !e.noPaths {
		e.kpath = append(e.kpath, pathTok{s: s, i: -1})
	}
}
func (e *evaluator) pushKi(i int) {
	if !e.noPaths {
		e.kpath = append(e.kpath, pathTok{i: i})
	}
}
func (e *evaluator) popK(n int) {
	if !e.noPaths {
		e.kpath = e.kpath[:len(e.kpath)-n]
	}
}
func (e *evaluator) pushI(s string) {
	if !e.noPaths {
		e.ipath = append(e.ipath, pathTok{s: s, i: -1})
	}
}
func (e *evaluator) pushIi(i int) {
	if !e.noPaths {
		e.ipath = append(e.ipath, pathTok{i: i})
	}
}
func (e *evaluator) popI() {
	if !e.noPaths {
		e.ipath = e.ipath[:len(e.ipath)-1]
	}
}
func (e *evaluator) stopped() bool { return e.fatal != nil || e.truncated }

// record keeps an error, and stops the evaluation once the error limit is reached (the
// verdict, invalid, is known by then).
func (e *evaluator) record(err Error) {
	e.errs = append(e.errs, err)
	e.recorded++
	if e.maxErrors > 0 && e.recorded >= e.maxErrors {
		e.truncated = true
	}
}
func (e *evaluator) setFatal(err error) {
	if e.fatal == nil {
		e.fatal = err
	}
}

// fail records an error for keyword kw of s (when collecting) and returns false.
func (e *evaluator) fail(s *Schema, kw string, format string, args ...any) bool {
	if !e.collect {
		return false
	}
	e.record(e.newError(s, source.EscapeToken(kw), fmt.Sprintf(format, args...)))
	return false
}

// newError builds an error for the keyword at kwPath (escaped, relative to s; "" for s
// itself) at the current instance and keyword locations.
func (e *evaluator) newError(s *Schema, kwPath, msg string) Error {
	kl := joinPath(e.kpath)
	abs := s.Location()
	if kwPath != "" {
		kl += "/" + kwPath
		abs += "/" + kwPath
	}
	kw, _, _ := strings.Cut(kwPath, "/")
	return Error{
		InstanceLocation:        joinPath(e.ipath),
		KeywordLocation:         kl,
		AbsoluteKeywordLocation: abs,
		Keyword:                 tokenUnescaper.Replace(kw),
		Message:                 msg,
		schema:                  s,
		kwPath:                  kwPath,
	}
}

var tokenUnescaper = strings.NewReplacer("~1", "/", "~0", "~")

// failAt records an error for a keyword path below s (already escaped).
func (e *evaluator) failAt(s *Schema, kwPath string, format string, args ...any) bool {
	if !e.collect {
		return false
	}
	e.record(e.newError(s, kwPath, fmt.Sprintf(format, args...)))
	return false
}

// annotations records which members or items of one instance were evaluated, for
// unevaluatedProperties and unevaluatedItems.
type annotations struct {
	props    []bool
	items    []bool
	allItems bool
}

func newAnnotations(v source.Value) *annotations {
	a := &annotations{}
	switch v.Kind() {
	case source.Object:
		a.props = make([]bool, v.Len())
	case source.Array:
		a.items = make([]bool, v.Len())
	}
	return a
}

func (a *annotations) merge(b *annotations) {
	if a == nil || b == nil {
		return
	}
	for i, ok := range b.props {
		if ok && i < len(a.props) {
			a.props[i] = true
		}
	}
	for i, ok := range b.items {
		if ok && i < len(a.items) {
			a.items[i] = true
		}
	}
	a.allItems = a.allItems || b.allItems
}

func (a *annotations) prop(i int) {
	if a != nil && i < len(a.props) {
		a.props[i] = true
	}
}

func (a *annotations) item(i int) {
	if a != nil && i < len(a.items) {
		a.items[i] = true
	}
}

// ---- evaluation ----

// eval evaluates s on v. ann, when non-nil, receives the members and items of v that s
// evaluated.
func (e *evaluator) eval(s *Schema, v source.Value, ann *annotations) bool {
	if e.halted() {
		return false
	}
	if e.annot {
		return e.evalAnnotated(s, v, ann)
	}
	if e.trace != nil {
		e.emit(s, "", s.always != alwaysFalse, "")
		if e.quietDepth > 0 && !e.collect && ann == nil && s.always == alwaysNone && !s.info.dynamic.Load() &&
			len(e.chain) > e.chainBase && e.chain[len(e.chain)-1] == s {
			if id := v.Identity(); id != 0 {
				return e.evalReplayed(s, v, memoKey{s, id})
			}
		}
	}
	switch s.always {
	case alwaysTrue:
		return true
	case alwaysFalse:
		return e.fail(s, "", "no value is allowed here (the schema is false)")
	}
	// Alternatives nested in alternatives can evaluate the same subschema on the same value
	// exponentially often; a verdict found in boolean mode is remembered (when no dynamic
	// reference can make it depend on the path taken).
	if e.quietDepth >= 2 && !e.collect && ann == nil && e.trace == nil && !s.info.dynamic.Load() {
		if id := v.Identity(); id != 0 {
			k := memoKey{s, id}
			if ok, seen := e.memo[k]; seen {
				return ok
			}
			ok := e.evalScoped(s, v, ann)
			if !e.stopped() {
				if e.memo == nil {
					e.memo = map[memoKey]bool{}
				}
				e.memo[k] = ok
			}
			return ok
		}
	}
	return e.evalScoped(s, v, ann)
}

type memoKey struct {
	s  *Schema
	id uintptr
}

// evalScoped evaluates s with its resource on the dynamic scope. Every evaluation of a
// schema object goes through here, which counts their nesting: past MaxEvalDepth the
// evaluation stops with an error.
func (e *evaluator) evalScoped(s *Schema, v source.Value, ann *annotations) bool {
	if e.depth >= evalDepthLimit {
		e.setFatal(e.tooDeep(s))
		return false
	}
	e.depth++
	var ok bool
	if n := len(e.scope); n == 0 || e.scope[n-1] != s.res {
		e.scope = append(e.scope, s.res)
		ok = e.evalIn(s, v, ann)
		e.scope = e.scope[:len(e.scope)-1]
	} else {
		ok = e.evalIn(s, v, ann)
	}
	e.depth--
	return ok
}

// MaxEvalDepth bounds the nesting of an evaluation: the values of the instance, each
// reached through a subschema, and the schemas applied in place to one value ($ref,
// allOf, not, ...). Each level takes up to about 1 KB of the goroutine's stack, so the
// bound keeps an evaluation's stack near 100 MB, a tenth of what the Go runtime allows;
// it is well above what real schemas need: checking a schema nested 10,000 levels deep
// (the parsers' default limit) against the meta-schema of 2019-09 nests 50,000 levels,
// 40,000 with 2020-12's.
const MaxEvalDepth = 100_000

// evalDepthLimit is MaxEvalDepth unless SetMaxEvalDepth changed it; tests lower it to
// reach it with small inputs.
var evalDepthLimit = MaxEvalDepth

// MinEvalDepth is the least SetMaxEvalDepth accepts: checking an ordinary schema against
// its meta-schema nests a few dozen levels.
const MinEvalDepth = 100

// MaxEvalDepthCeiling is the most SetMaxEvalDepth accepts: a million levels may take
// a few GB of stack.
const MaxEvalDepthCeiling = 1_000_000

// evalStackPerLevel is the goroutine stack SetMaxEvalDepth allows per level: about
// 1.5 KB measured on a $ref chain, with room for the applicators that take more.
const evalStackPerLevel = 8 << 10

// SetMaxEvalDepth sets, for the whole process, how deep an evaluation may nest before it
// stops with a "too deep" error (the --max-ref-depth flag: a $ref chain is where real
// input reaches it). Evaluation nests on the goroutine's stack, so a limit whose stack
// could pass the Go runtime's limit raises that limit to match (it never lowers it). Call
// it before any evaluation starts.
func SetMaxEvalDepth(n int) error {
	if n < MinEvalDepth || n > MaxEvalDepthCeiling {
		return fmt.Errorf("the evaluation depth must be between %d and %d, not %d", MinEvalDepth, MaxEvalDepthCeiling, n)
	}
	evalDepthLimit = n
	need := n * evalStackPerLevel
	if prev := debug.SetMaxStack(need); prev > need {
		debug.SetMaxStack(prev) // never lowered
	}
	return nil
}

// tooDeep is the error of an evaluation nested deeper than MaxEvalDepth, reached at s.
func (e *evaluator) tooDeep(s *Schema) error {
	if refs := len(e.chain) - e.chainBase; refs > 0 {
		return fmt.Errorf("$ref chain too deep: evaluation nested deeper than %d levels after following %d references in place, at %s (instance depth %d; raise the limit with --max-ref-depth)",
			evalDepthLimit, refs, diag.Middle(s.Location(), maxLocation), len(e.ipath))
	}
	return fmt.Errorf("nesting too deep: evaluation nested deeper than %d levels, at %s (instance depth %d; raise the limit with --max-ref-depth)",
		evalDepthLimit, diag.Middle(s.Location(), maxLocation), len(e.ipath))
}

// maxLocation bounds a schema's location (a deeply nested schema's) in a message.
const maxLocation = 163

// evalIn evaluates s with its resource already on the dynamic scope.
func (e *evaluator) evalIn(s *Schema, v source.Value, ann *annotations) bool {
	if s.hasRef {
		return e.evalRef(s, "$ref", s.ref, v, ann)
	}
	sink := ann
	if s.needAnn {
		sink = newAnnotations(v)
	}
	if e.trace != nil && s.types != 0 {
		e.emit(s, "type", typeMatches(s.types, v), typeName(v, s.Draft))
	}
	// numDone: the type check and the number keywords passed (see numQuick)
	numDone := s.numQuick != nil && v.Kind() == source.Number && e.trace == nil && s.numQuick.pass(v.Str())
	if s.types != 0 && !numDone && !typeMatches(s.types, v) {
		if e.collect {
			e.fail(s, "type", "value must be %s, not %s", orList(s.typeList), typeName(v, s.Draft))
		}
		return false
	}
	if e.trace != nil {
		e.traceValues(s, v)
	}
	valid := true
	g := s.groups
	if g&groupValue != 0 {
		var goOn bool
		if valid, goOn = e.evalValueKeywords(s, v); !goOn {
			return false
		}
	}
	if g&groupRefs != 0 {
		if !e.evalRefs(s, v, sink) {
			if !e.collect || e.stopped() {
				return false
			}
			valid = false
		}
	}

	switch v.Kind() {
	case source.Number:
		if g&groupNumber != 0 && !numDone {
			valid = e.evalNumber(s, v) && valid
		}
	case source.String:
		if g&groupString != 0 {
			valid = e.evalString(s, v) && valid
		}
	case source.Array:
		if g&groupArray != 0 {
			valid = e.evalArray(s, v, sink) && valid
		}
	case source.Object:
		if g&groupObject != 0 {
			valid = e.evalObject(s, v, sink) && valid
		}
	}
	if (!valid && !e.collect) || e.stopped() {
		return false
	}
	if g&groupApplicators != 0 {
		valid = e.evalApplicators(s, v, sink) && valid
		if (!valid && !e.collect) || e.stopped() {
			return false
		}
	}
	if s.needAnn {
		valid = e.evalUnevaluated(s, v, sink) && valid
		if valid && ann != nil {
			ann.merge(sink)
		}
	}
	return valid
}

// evalValueKeywords checks the keywords of s besides type that test the value as a whole:
// const, enum and format. goOn is false when evalIn must stop, invalid (at any failure
// when not collecting).
func (e *evaluator) evalValueKeywords(s *Schema, v source.Value) (valid, goOn bool) {
	valid = true
	if s.constV != nil && !source.Equal(v, *s.constV) {
		if !e.collect {
			return false, false
		}
		valid = e.fail(s, "const", "value must be %s", short(*s.constV))
	}
	if s.enum != nil && !enumContains(s, v) {
		if !e.collect {
			return false, false
		}
		valid = e.fail(s, "enum", "value must be one of %s", enumList(s.enum))
	}
	if s.format != nil && s.assertFmt && (v.Kind() == source.String || s.format.value != nil) {
		err := s.format.check1(v, s.Draft.Version)
		e.emit(s, "format", err == nil, "")
		if err != nil {
			if !e.collect {
				return false, false
			}
			valid = e.fail(s, "format", "%s is not a valid %s: %v", short(v), s.formatName, err)
		}
	}
	return valid, true
}

// evalRefs follows the references of s that sit beside other keywords: $ref (before
// 2019-09 a $ref replaces its siblings, see evalIn), $dynamicRef and $recursiveRef. It
// stops at the first failure unless collecting.
func (e *evaluator) evalRefs(s *Schema, v source.Value, sink *annotations) bool {
	valid := true
	if s.ref != nil {
		if !e.evalRef(s, "$ref", s.ref, v, sink) {
			if !e.collect || e.stopped() {
				return false
			}
			valid = false
		}
	}
	if s.dynRef != nil {
		if !e.evalRef(s, "$dynamicRef", e.dynamicTarget(s), v, sink) {
			if !e.collect || e.stopped() {
				return false
			}
			valid = false
		}
	}
	if s.recursiveRef != nil {
		if !e.evalRef(s, "$recursiveRef", e.recursiveTarget(s), v, sink) {
			valid = false
		}
	}
	return valid
}

func typeMatches(t TypeSet, v source.Value) bool {
	switch v.Kind() {
	case source.Null:
		return t&TypeNull != 0
	case source.Bool:
		return t&TypeBoolean != 0
	case source.String:
		return t&TypeString != 0
	case source.Array:
		return t&TypeArray != 0
	case source.Object:
		return t&TypeObject != 0
	case source.Number:
		switch t & TypeNumber {
		case 0:
			return false
		case TypeNumber:
			return true
		}
		return t&numberClass(v) != 0
	}
	return false
}

// isInteger: draft 4 counts 1.0 as a number but not an integer; later drafts count any
// number with a zero fractional part.
func isInteger(v source.Value, d *Draft) bool {
	lit := v.Str()
	plain := true
	for i := 0; i < len(lit); i++ {
		if c := lit[i]; c == '.' || c == 'e' || c == 'E' {
			plain = false
			break
		}
	}
	if plain {
		return true
	}
	if d.Version == 4 && strings.Contains(lit, ".") && !strings.ContainsAny(lit, "eE") {
		return false
	}
	return v.Num().IsInteger()
}

func typeName(v source.Value, d *Draft) string {
	if v.Kind() == source.Number && isInteger(v, d) {
		return "integer"
	}
	return v.Kind().String()
}

func orList(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

func enumContains(s *Schema, v source.Value) bool {
	if s.enumStr != nil {
		return v.Kind() == source.String && s.enumStr[v.Str()]
	}
	if s.enumHash != nil {
		for _, i := range s.enumHash[source.Hash(enumSeed, v)] {
			if source.Equal(v, s.enum[i]) {
				return true
			}
		}
		return false
	}
	for _, e := range s.enum {
		if source.Equal(v, e) {
			return true
		}
	}
	return false
}

// enumScanMax is the longest enum of values other than strings that is scanned: a longer
// one is looked up by hash (a diff checks each value of one long enum against another,
// which scanning made quadratic: 20k integers took minutes).
const enumScanMax = 16

// enumSeed seeds the hashes of enum values.
var enumSeed = maphash.MakeSeed()

func enumList(vals []source.Value) string {
	var parts []string
	for i, v := range vals {
		if i == 8 {
			parts = append(parts, fmt.Sprintf("... (%d more)", len(vals)-8))
			break
		}
		parts = append(parts, short(v))
	}
	return strings.Join(parts, ", ")
}

// short renders a value for a message, cut to a readable length.
func short(v source.Value) string {
	b := source.AppendJSON(nil, v)
	if utf8.RuneCount(b) > 60 {
		r := []rune(string(b))
		return string(r[:57]) + "..."
	}
	return string(b)
}

// evalRef evaluates a reference's target in place.
func (e *evaluator) evalRef(s *Schema, kw string, target *Schema, v source.Value, ann *annotations) bool {
	if target == nil {
		return true
	}
	// Only a target on a cycle of in-place applicators can come back before the instance
	// is reached into, unless dynamic references change the targets; those are looked up
	// in onChain, in constant time, however long the chain.
	loopy := target.onLoop || target.info.dynamic.Load()
	prev, had := 0, false
	if loopy {
		prev, had = e.onChain[target]
		if had && prev >= e.chainBase {
			e.setFatal(fmt.Errorf("reference loop: %s at %s leads back to %s without reaching into the instance",
				kw, diag.Middle(s.Location(), maxLocation), diag.Middle(target.Location(), maxLocation)))
			return false
		}
		if e.onChain == nil {
			e.onChain = map[*Schema]int{}
		}
		e.onChain[target] = len(e.chain)
	}
	if !loopy && e.noPaths {
		// for the verdict alone, the chain need only hold the targets that may loop: a
		// loop is found by the places on it of those (see onChain)
		return e.eval(target, v, ann)
	}
	e.chain = append(e.chain, target)
	e.pushK(kw)
	ok := e.eval(target, v, ann)
	e.popK(1)
	e.chain = e.chain[:len(e.chain)-1]
	if loopy {
		if had {
			e.onChain[target] = prev
		} else {
			delete(e.onChain, target)
		}
	}
	return ok
}

// dynamicTarget resolves a $dynamicRef through the dynamic scope: the outermost resource
// in scope that declares the same $dynamicAnchor wins.
func (e *evaluator) dynamicTarget(s *Schema) *Schema {
	if s.dynAnchor == "" {
		return s.dynRef
	}
	for _, r := range e.scope {
		if r.dynamic[s.dynAnchor] {
			if t, ok := r.dynSchemas[s.dynAnchor]; ok {
				return t
			}
		}
	}
	return s.dynRef
}

// recursiveTarget resolves a $recursiveRef: when its target's resource sets
// $recursiveAnchor, the outermost resource in scope that also sets it wins.
func (e *evaluator) recursiveTarget(s *Schema) *Schema {
	t := s.recursiveRef
	if !t.res.recursive {
		return t
	}
	for _, r := range e.scope {
		if r.recursive && r.root != nil {
			return r.root
		}
	}
	return t
}

// child evaluates a subschema on a member or item of v: the in-place chain restarts.
func (e *evaluator) child(s *Schema, v source.Value) bool {
	if s.pureRef && e.noPaths && !e.annot && e.trace == nil {
		return e.childThroughRefs(s, v)
	}
	if s.leaf && !e.annot && e.trace == nil && e.depth < evalDepthLimit {
		// no reference, applicator or subschema: nothing to scope, nest or remember
		if e.halted() {
			return false
		}
		return e.evalIn(s, v, nil)
	}
	base := e.chainBase
	e.chainBase = len(e.chain)
	ok := e.eval(s, v, nil)
	e.chainBase = base
	return ok
}

// childThroughRefs is child for a schema that is only a $ref, evaluated for the verdict
// alone: its targets are followed without evaluating the schemas that only refer, while
// the targets cannot loop (the nesting is counted as if they were evaluated).
func (e *evaluator) childThroughRefs(s *Schema, v source.Value) bool {
	skipped := 0
	for s.pureRef && e.depth < evalDepthLimit {
		t := s.ref
		if t.onLoop || t.info.dynamic.Load() {
			break
		}
		e.depth++
		skipped++
		s = t
	}
	var ok bool
	if s.leaf && e.depth < evalDepthLimit {
		ok = !e.halted() && e.evalIn(s, v, nil)
	} else {
		base := e.chainBase
		e.chainBase = len(e.chain)
		ok = e.eval(s, v, nil)
		e.chainBase = base
	}
	e.depth -= skipped
	return ok
}

// quietly evaluates without recording errors, for applicators that only need a verdict.
func (e *evaluator) quietly(fn func() bool) bool {
	saved, n := e.collect, len(e.errs)
	e.collect = false
	e.quietDepth++
	ok := fn()
	e.quietDepth--
	e.collect = saved
	e.errs = e.errs[:n]
	return ok
}

// collectInto evaluates fn collecting its errors separately and returns them.
func (e *evaluator) collectInto(fn func() bool) (bool, []Error) {
	saved, n := e.collect, len(e.errs)
	e.collect = true
	ok := fn()
	e.collect = saved
	errs := append([]Error(nil), e.errs[n:]...)
	e.errs = e.errs[:n]
	return ok, errs
}

func (e *evaluator) evalNumber(s *Schema, v source.Value) bool {
	if s.multipleOf == nil && s.minimum == nil && s.maximum == nil && s.exclMin == nil && s.exclMax == nil {
		return true
	}
	n, err := source.ParseDecimal(v.Str())
	if err != nil {
		e.setFatal(fmt.Errorf("number %s: %v", v.Str(), err))
		return false
	}
	valid := true
	check := func(ok bool, kw, format string, bound *source.Decimal) bool {
		e.emit(s, kw, ok, "")
		if ok {
			return true
		}
		valid = false
		if !e.collect {
			return false // before the message's text is built
		}
		e.fail(s, kw, format, v.Str(), bound.String())
		return true // collecting: the other bounds are checked too
	}
	if s.minimum != nil && !check(n.Cmp(*s.minimum) >= 0, "minimum", "%s is less than the minimum %s", s.minimum) {
		return false
	}
	if s.maximum != nil && !check(n.Cmp(*s.maximum) <= 0, "maximum", "%s is greater than the maximum %s", s.maximum) {
		return false
	}
	if s.exclMin != nil {
		kw := "exclusiveMinimum"
		if s.Draft.Version == 4 {
			kw = "minimum"
		}
		if !check(n.Cmp(*s.exclMin) > 0, kw, "%s must be greater than %s", s.exclMin) {
			return false
		}
	}
	if s.exclMax != nil {
		kw := "exclusiveMaximum"
		if s.Draft.Version == 4 {
			kw = "maximum"
		}
		if !check(n.Cmp(*s.exclMax) < 0, kw, "%s must be less than %s", s.exclMax) {
			return false
		}
	}
	if s.multipleOf != nil && !check(n.MultipleOf(*s.multipleOf), "multipleOf", "%s is not a multiple of %s", s.multipleOf) {
		return false
	}
	return valid
}

// moreRunes reports whether str has more than n characters (code points; an invalid byte
// counts as one, as in utf8.RuneCountInString), counting only when its byte length does
// not settle it.
// countText renders a count keyword (minLength, maxItems, ...) for a message as the schema
// writes it: the compiled count is clamped to 2^31-1, which "1e18" is not.
func countText(s *Schema, kw string, n int) string {
	if n == math.MaxInt32 {
		if v, ok := s.Value().Get(kw); ok && v.Kind() == source.Number {
			return v.Num().String()
		}
	}
	return strconv.Itoa(n)
}

func moreRunes(str string, n int) bool {
	switch {
	case len(str) <= n:
		return false
	case (len(str)+3)/4 > n:
		return true
	}
	return utf8.RuneCountInString(str) > n
}

func (e *evaluator) evalString(s *Schema, v source.Value) bool {
	str := v.Str()
	valid := true
	if s.minLength >= 0 || s.maxLength >= 0 {
		// a string's length in characters lies between len/4 and len bytes: most strings
		// are settled without counting
		okMin := s.minLength <= 0 || moreRunes(str, s.minLength-1)
		okMax := s.maxLength < 0 || !moreRunes(str, s.maxLength)
		if e.trace != nil {
			if s.minLength >= 0 {
				e.emit(s, "minLength", okMin, "")
			}
			if s.maxLength >= 0 {
				e.emit(s, "maxLength", okMax, "")
			}
		}
		if !okMax {
			valid = e.fail(s, "maxLength", "string is %d characters long, more than the maximum of %s", utf8.RuneCountInString(str), countText(s, "maxLength", s.maxLength))
			if !e.collect {
				return false
			}
		}
		if !okMin {
			valid = e.fail(s, "minLength", "string is %d characters long, less than the minimum of %s", utf8.RuneCountInString(str), countText(s, "minLength", s.minLength))
			if !e.collect {
				return false
			}
		}
	}
	if s.pattern != nil {
		ok, err := s.pattern.MatchContext(e.ctx, str)
		if err != nil {
			e.setFatal(err)
			return false
		}
		e.emit(s, "pattern", ok, "")
		if !ok {
			if !e.collect {
				return false
			}
			valid = e.fail(s, "pattern", "%s does not match the pattern %s", short(v), strconv.Quote(s.patternSrc))
		}
	}
	if s.assertContent {
		valid = e.evalContent(s, v) && valid
	}
	return valid
}

// evalContent checks contentEncoding base64 and contentMediaType application/json (draft 7).
func (e *evaluator) evalContent(s *Schema, v source.Value) bool {
	data := []byte(v.Str())
	if s.contentEncoding == "base64" {
		dec, err := base64.StdEncoding.DecodeString(v.Str())
		if err != nil {
			return e.fail(s, "contentEncoding", "string is not valid base64")
		}
		data = dec
	}
	if s.contentMediaType == "application/json" && !json.Valid(data) {
		return e.fail(s, "contentMediaType", "string is not valid JSON")
	}
	return true
}

func (e *evaluator) evalArray(s *Schema, v source.Value, ann *annotations) bool {
	items := v.Items()
	valid := true
	if e.trace != nil {
		if s.minItems >= 0 {
			e.emit(s, "minItems", len(items) >= s.minItems, "")
		}
		if s.maxItems >= 0 {
			e.emit(s, "maxItems", len(items) <= s.maxItems, "")
		}
		if s.uniqueItems {
			_, _, dup := duplicateItems(items)
			e.emit(s, "uniqueItems", !dup, "")
		}
	}
	if s.minItems >= 0 && len(items) < s.minItems {
		valid = e.fail(s, "minItems", "array has %d items, fewer than the minimum of %s", len(items), countText(s, "minItems", s.minItems))
		if !e.collect {
			return false
		}
	}
	if s.maxItems >= 0 && len(items) > s.maxItems {
		valid = e.fail(s, "maxItems", "array has %d items, more than the maximum of %s", len(items), countText(s, "maxItems", s.maxItems))
		if !e.collect {
			return false
		}
	}
	if s.uniqueItems {
		if i, j, dup := duplicateItems(items); dup {
			valid = e.fail(s, "uniqueItems", "items %d and %d are equal; items must be unique", i, j)
			if !e.collect {
				return false
			}
		}
	}
	for i, sub := range s.prefixItems {
		if i >= len(items) {
			break
		}
		e.pushK(s.prefixKw)
		e.pushKi(i)
		e.pushIi(i)
		ok := e.child(sub, items[i])
		e.popI()
		e.popK(2)
		ann.item(i)
		if !ok {
			valid = false
			if !e.collect || e.stopped() {
				return false
			}
		}
	}
	if s.items != nil && len(items) > len(s.prefixItems) {
		e.pushK(s.itemsKw)
		for i := len(s.prefixItems); i < len(items); i++ {
			e.pushIi(i)
			ok := e.child(s.items, items[i])
			e.popI()
			if !ok {
				valid = false
				if !e.collect || e.stopped() {
					e.popK(1)
					return false
				}
			}
		}
		e.popK(1)
		if ann != nil {
			ann.allItems = true
		}
	}
	if s.contains != nil && !e.evalContains(s, items, ann) {
		return false
	}
	return valid
}

// evalContains checks contains, minContains and maxContains on an array's items.
func (e *evaluator) evalContains(s *Schema, items []source.Value, ann *annotations) bool {
	valid := true
	matched := 0
	for i, item := range items {
		e.pushK("contains")
		e.pushIi(i)
		ok := e.quietly(func() bool { return e.child(s.contains, item) })
		e.popI()
		e.popK(1)
		if ok {
			matched++
			if s.Draft.Version >= 2020 {
				ann.item(i)
			}
		}
		if e.stopped() {
			return false
		}
	}
	minC := 1
	if s.minContains >= 0 {
		minC = s.minContains
	}
	if e.trace != nil {
		e.emit(s, "contains", matched > 0, strconv.Itoa(matched))
		if s.minContains >= 0 {
			e.emit(s, "minContains", matched >= s.minContains, "")
		}
		if s.maxContains >= 0 {
			e.emit(s, "maxContains", matched <= s.maxContains, "")
		}
	}
	if matched < minC {
		kw := "contains"
		msg := "no item matches the \"contains\" schema"
		if s.minContains >= 0 {
			kw = "minContains"
			msg = fmt.Sprintf("%d item(s) match the \"contains\" schema, fewer than minContains %s", matched, countText(s, "minContains", s.minContains))
		}
		valid = e.fail(s, kw, "%s", msg)
		if !e.collect {
			return false
		}
	}
	if s.maxContains >= 0 && matched > s.maxContains {
		valid = e.fail(s, "maxContains", "%d items match the \"contains\" schema, more than maxContains %s", matched, countText(s, "maxContains", s.maxContains))
	}
	return valid
}

// duplicateItems finds the first pair of equal items.
func duplicateItems(items []source.Value) (int, int, bool) {
	if len(items) < 2 {
		return 0, 0, false
	}
	if len(items) <= 16 {
		for i := range items {
			for j := i + 1; j < len(items); j++ {
				if source.Equal(items[i], items[j]) {
					return i, j, true
				}
			}
		}
		return 0, 0, false
	}
	seed := maphash.MakeSeed()
	seen := make(map[uint64][]int, len(items))
	for j, it := range items {
		k := source.Hash(seed, it)
		for _, i := range seen[k] {
			if source.Equal(items[i], it) {
				return i, j, true
			}
		}
		seen[k] = append(seen[k], j)
	}
	return 0, 0, false
}

// memberNames tells whether an object has a member of a given name: by scanning it, or,
// once indexed, by a set of its names. required and dependentRequired look up names one
// by one, which on an object of thousands of members against thousands of names was
// quadratic (a diff's examples of such schemas took minutes to validate).
type memberNames struct {
	v   source.Value
	set map[string]struct{}
}

// memberScanMax is the largest object whose names are scanned for required and
// dependentRequired however many they are, and the most names looked up by scanning.
const memberScanMax = 32

// memberNames returns the lookup of v's n member names for s's required and
// dependentRequired: indexed when both the object and the lookups are many.
func (s *Schema) memberNames(v source.Value, n int) memberNames {
	m := memberNames{v: v}
	if n > memberScanMax && (len(s.required) > memberScanMax || len(s.depRequired) > 0) {
		m.set = make(map[string]struct{}, n)
		for i := 0; i < n; i++ {
			m.set[v.Key(i)] = struct{}{}
		}
	}
	return m
}

func (m *memberNames) has(name string) bool {
	if m.set != nil {
		_, ok := m.set[name]
		return ok
	}
	return m.v.Has(name)
}

// evalRequired checks required, name by name (the index found a name missing, or s has
// none).
func (e *evaluator) evalRequired(s *Schema, names *memberNames) bool {
	valid := true
	for _, r := range s.required {
		if !names.has(r) {
			if !e.collect {
				return false // before the message's arguments are boxed: an allocation
			}
			valid = e.fail(s, "required", "missing required property %q", r)
		}
	}
	return valid
}

func (e *evaluator) evalObject(s *Schema, v source.Value, ann *annotations) bool {
	n := v.Len()
	if e.trace != nil {
		e.traceObject(s, v)
	}
	valid := true
	if s.minProps >= 0 && n < s.minProps {
		valid = e.fail(s, "minProperties", "object has %d properties, fewer than the minimum of %s", n, countText(s, "minProperties", s.minProps))
		if !e.collect {
			return false
		}
	}
	if s.maxProps >= 0 && n > s.maxProps {
		valid = e.fail(s, "maxProperties", "object has %d properties, more than the maximum of %s", n, countText(s, "maxProperties", s.maxProps))
		if !e.collect {
			return false
		}
	}
	names := s.memberNames(v, n)
	x := s.propIdx
	loop := s.properties != nil || s.patternProps != nil || s.additionalProps != nil || s.propertyNames != nil
	// fused: for the verdict alone (no error is recorded, so their order does not matter)
	// the members' names found by the member loop settle required too
	fused := e.noPaths && x != nil && loop
	if len(s.required) > 0 && !fused && !(x != nil && x.hasRequired(v, n)) {
		valid = e.evalRequired(s, &names) && valid
		if !valid && !e.collect {
			return false
		}
	}
	for _, dr := range s.depRequired {
		if !names.has(dr.prop) {
			continue
		}
		kw := dr.kw
		for _, r := range dr.required {
			if !names.has(r) {
				if !e.collect {
					return false
				}
				valid = e.failAt(s, kw+"/"+source.EscapeToken(dr.prop), "property %q requires property %q", dr.prop, r)
				if !e.collect {
					return false
				}
			}
		}
	}
	if loop {
		ok, seen := e.evalMembers(s, v, n, ann)
		if !ok {
			valid = false
			if !e.collect || e.stopped() {
				return false
			}
		}
		if fused && seen != x.all {
			return false // required, checked after the members
		}
	}
	for _, ds := range s.depSchemas {
		if !v.Has(ds.prop) {
			continue
		}
		e.emit(s, ds.kw, true, ds.prop)
		e.pushK(ds.kw)
		e.pushK(ds.prop)
		ok := e.evalInPlace(ds.schema, v, ann)
		e.popK(2)
		if !ok {
			valid = false
			if !e.collect || e.stopped() {
				return false
			}
		}
	}
	return valid
}

// evalMembers evaluates each member of the object v (of n members) against properties and
// the keywords of evalMemberRest, and returns the required names found among them (as
// bits, see propIndex) when s has an index. It stops at the first failure unless
// collecting.
func (e *evaluator) evalMembers(s *Schema, v source.Value, n int, ann *annotations) (valid bool, seen uint64) {
	valid = true
	x := s.propIdx
	if x != nil && e.noPaths && !e.collect && ann == nil && !e.annot && e.trace == nil {
		return e.verdictMembers(s, v, n)
	}
	rest := s.patternProps != nil || s.additionalProps != nil || s.propertyNames != nil
	for i := 0; i < n; i++ {
		k, val := v.Member(i)
		key := k.Str()
		var sub *Schema
		var matched bool
		if x != nil {
			if sl := x.slot(key); sl != nil {
				seen |= sl.req
				sub, matched = sl.sub, sl.prop
			}
		} else {
			sub, matched = s.properties[key]
		}
		if matched {
			e.pushK("properties")
			e.pushK(key)
			e.pushI(key)
			ok := e.child(sub, val)
			e.popI()
			e.popK(2)
			ann.prop(i)
			if !ok {
				valid = false
				if !e.collect || e.stopped() {
					return false, seen
				}
			}
		}
		if rest && !e.evalMemberRest(s, i, k, val, matched, ann) {
			valid = false
			if !e.collect || e.stopped() {
				return false, seen
			}
		}
	}
	return valid, seen
}

// verdictMembers is evalMembers for the verdict alone (no locations, errors or annotations)
// when s has a property index: it stops at the first failure, and calls evalMemberRest only
// for the members that it has work for.
func (e *evaluator) verdictMembers(s *Schema, v source.Value, n int) (valid bool, seen uint64) {
	x := s.propIdx
	restAll := s.patternProps != nil || s.propertyNames != nil
	restUnnamed := s.additionalProps != nil
	for i := 0; i < n; i++ {
		k, val := v.Member(i)
		matched := false
		if sl := x.slot(k.Str()); sl != nil {
			seen |= sl.req
			if sl.prop {
				matched = true
				if !e.child(sl.sub, val) {
					return false, seen
				}
			}
		}
		if (restAll || (restUnnamed && !matched)) && !e.evalMemberRest(s, i, k, val, matched, nil) {
			return false, seen
		}
	}
	return true, seen
}

// evalMemberRest evaluates member i (name k, value val) of an object against
// patternProperties, additionalProperties (when neither properties, matched, nor a
// pattern names it) and propertyNames. It stops at the first failure unless collecting.
func (e *evaluator) evalMemberRest(s *Schema, i int, k, val source.Value, matched bool, ann *annotations) bool {
	key := k.Str()
	valid := true
	if s.patternProps != nil {
		m, ok := e.evalPatternProps(s, i, key, val, ann)
		matched = matched || m
		if !ok {
			valid = false
			if !e.collect || e.stopped() {
				return false
			}
		}
	}
	if !matched && s.additionalProps != nil {
		e.pushI(key)
		var ok bool
		if s.additionalProps.always == alwaysFalse {
			ok = e.collect && e.fail(s, "additionalProperties", "property %q is not allowed (additionalProperties is false)", key)
		} else {
			e.pushK("additionalProperties")
			ok = e.child(s.additionalProps, val)
			e.popK(1)
		}
		e.popI()
		ann.prop(i)
		if !ok {
			valid = false
			if !e.collect || e.stopped() {
				return false
			}
		}
	}
	if s.propertyNames != nil {
		e.pushK("propertyNames")
		e.pushI(key)
		mark := len(e.annots)
		ok := e.child(s.propertyNames, k)
		if e.annot {
			e.dropAnnotations(mark) // a name's annotations are not its value's
		}
		e.popI()
		e.popK(1)
		if !ok {
			valid = false
		}
	}
	return valid
}

// evalPatternProps evaluates member i (named key, value val) against each pattern of
// patternProperties that matches its name; matched says whether one did.
func (e *evaluator) evalPatternProps(s *Schema, i int, key string, val source.Value, ann *annotations) (matched, valid bool) {
	valid = true
	for _, pp := range s.patternProps {
		m, err := pp.re.MatchContext(e.ctx, key)
		if err != nil {
			e.setFatal(err)
			return matched, false
		}
		if !m {
			continue
		}
		matched = true
		e.pushK("patternProperties")
		e.pushK(pp.src)
		e.pushI(key)
		ok := e.child(pp.schema, val)
		e.popI()
		e.popK(2)
		ann.prop(i)
		if !ok {
			valid = false
			if !e.collect || e.stopped() {
				return matched, false
			}
		}
	}
	return matched, valid
}

// evalInPlace evaluates a subschema on the same instance (allOf, then, dependentSchemas).
func (e *evaluator) evalInPlace(s *Schema, v source.Value, ann *annotations) bool {
	return e.eval(s, v, ann)
}

func (e *evaluator) evalApplicators(s *Schema, v source.Value, ann *annotations) bool {
	valid := true
	for i, sub := range s.allOf {
		if sub.cond != nil && e.trace == nil && sub.cond.fails(v) {
			continue // see condTest
		}
		e.pushK("allOf")
		e.pushKi(i)
		ok := e.evalInPlace(sub, v, ann)
		e.popK(2)
		if !ok {
			valid = false
			if !e.collect || e.stopped() {
				return false
			}
		}
	}
	if s.anyOf != nil {
		if !e.evalAnyOf(s, v, ann) {
			valid = false
			if !e.collect || e.stopped() {
				return false
			}
		}
	}
	if s.oneOf != nil {
		if !e.evalOneOf(s, v, ann) {
			valid = false
			if !e.collect || e.stopped() {
				return false
			}
		}
	}
	if s.not != nil {
		e.pushK("not")
		ok := e.quietly(func() bool { return e.eval(s.not, v, nil) })
		e.popK(1)
		if e.stopped() {
			return false
		}
		e.emit(s, "not", !ok, "")
		if ok {
			valid = e.fail(s, "not", "value must not match the schema in \"not\"")
			if !e.collect {
				return false
			}
		}
	}
	if s.ifS != nil {
		var branchAnn *annotations
		if ann != nil {
			branchAnn = newAnnotations(v)
		}
		e.pushK("if")
		cond := e.quietly(func() bool { return e.eval(s.ifS, v, branchAnn) })
		e.popK(1)
		if e.stopped() {
			return false
		}
		if cond {
			ann.merge(branchAnn)
		}
		branch, kw := s.thenS, "then"
		if !cond {
			branch, kw = s.elseS, "else"
		}
		e.emit(s, "if", true, kw)
		if branch != nil {
			e.pushK(kw)
			ok := e.eval(branch, v, ann)
			e.popK(1)
			if !ok {
				valid = false
				if !e.collect || e.stopped() {
					return false
				}
			}
		}
	}
	return valid
}

func (e *evaluator) evalAnyOf(s *Schema, v source.Value, ann *annotations) bool {
	matched := false
	var which []string // matching alternatives, when tracing
	for i, sub := range s.anyOf {
		var branchAnn *annotations
		if ann != nil {
			branchAnn = newAnnotations(v)
		}
		e.pushK("anyOf")
		e.pushKi(i)
		ok := e.quietly(func() bool { return e.eval(sub, v, branchAnn) })
		e.popK(2)
		if e.stopped() {
			return false
		}
		if ok {
			matched = true
			if e.trace != nil {
				which = append(which, strconv.Itoa(i))
			} else if ann == nil && !e.annot {
				return true
			}
			ann.merge(branchAnn)
		}
	}
	e.emit(s, "anyOf", matched, strings.Join(which, ","))
	if matched {
		return true
	}
	if !e.collect {
		return false
	}
	causes := e.branchCauses(s, "anyOf", s.anyOf, v)
	err := e.newError(s, "anyOf", fmt.Sprintf("value does not match any of the %d alternatives of anyOf", len(s.anyOf)))
	err.Causes = causes
	e.record(err)
	return false
}

// branchCauses re-evaluates failed alternatives to explain each failure, down to
// maxCauseDepth nested explanations: below, an alternative that fails is not explained.
func (e *evaluator) branchCauses(s *Schema, kw string, subs []*Schema, v source.Value) []Error {
	if e.causeDepth >= maxCauseDepth {
		return nil
	}
	trace := e.trace
	e.trace = nil // the alternatives were traced already
	e.causeDepth++
	defer func() { e.trace = trace; e.causeDepth-- }()
	var causes []Error
	for i, sub := range subs {
		e.pushK(kw)
		e.pushKi(i)
		_, errs := e.collectInto(func() bool { return e.eval(sub, v, nil) })
		e.popK(2)
		causes = append(causes, errs...)
	}
	return causes
}

// maxCauseDepth bounds the nesting of the causes explaining a failed anyOf or oneOf.
// Explaining re-evaluates the alternatives, whose own failures are explained in turn: 4,900
// nested anyOf (a 58 KB schema) took 9 s and 800 MB to explain, in 48 MB of text.
const maxCauseDepth = 32

func (e *evaluator) evalOneOf(s *Schema, v source.Value, ann *annotations) bool {
	var matches []int
	var matchAnn *annotations
	for i, sub := range s.oneOf {
		var branchAnn *annotations
		if ann != nil {
			branchAnn = newAnnotations(v)
		}
		e.pushK("oneOf")
		e.pushKi(i)
		ok := e.quietly(func() bool { return e.eval(sub, v, branchAnn) })
		e.popK(2)
		if e.stopped() {
			return false
		}
		if ok {
			matches = append(matches, i)
			matchAnn = branchAnn
			if len(matches) > 1 && !e.collect && e.trace == nil {
				return false
			}
		}
	}
	if e.trace != nil {
		idx := make([]string, len(matches))
		for k, m := range matches {
			idx[k] = strconv.Itoa(m)
		}
		e.emit(s, "oneOf", len(matches) == 1, strings.Join(idx, ","))
	}
	switch len(matches) {
	case 1:
		ann.merge(matchAnn)
		return true
	case 0:
		if !e.collect {
			return false
		}
		err := e.newError(s, "oneOf", fmt.Sprintf("value does not match any of the %d alternatives of oneOf", len(s.oneOf)))
		err.Causes = e.branchCauses(s, "oneOf", s.oneOf, v)
		e.record(err)
		return false
	}
	idx := make([]string, len(matches))
	for i, m := range matches {
		idx[i] = strconv.Itoa(m)
	}
	return e.fail(s, "oneOf", "value matches %d alternatives of oneOf (%s); it must match exactly one", len(matches), strings.Join(idx, ", "))
}

func (e *evaluator) evalUnevaluated(s *Schema, v source.Value, ann *annotations) bool {
	valid := true
	if s.unevalProps != nil && v.Kind() == source.Object {
		var names []string // when collecting annotations
		for i := 0; i < v.Len(); i++ {
			if ann.props[i] {
				continue
			}
			k, val := v.Member(i)
			if e.annot {
				names = append(names, k.Str())
			}
			e.pushI(k.Str())
			var ok bool
			if s.unevalProps.always == alwaysFalse {
				ok = e.collect && e.fail(s, "unevaluatedProperties", "property %q is not allowed (unevaluatedProperties is false)", k.Str())
			} else {
				e.pushK("unevaluatedProperties")
				ok = e.child(s.unevalProps, val)
				e.popK(1)
			}
			e.popI()
			if !ok {
				valid = false
				if !e.collect || e.stopped() {
					return false
				}
			}
			ann.props[i] = true
		}
		if len(names) > 0 && valid {
			e.annotateUnevaluated(s, "unevaluatedProperties", names)
		}
	}
	if s.unevalItems != nil && v.Kind() == source.Array && !ann.allItems {
		applied := false
		for i, item := range v.Items() {
			if ann.items[i] {
				continue
			}
			applied = true
			e.pushK("unevaluatedItems")
			e.pushIi(i)
			ok := e.child(s.unevalItems, item)
			e.popI()
			e.popK(1)
			if !ok {
				valid = false
				if !e.collect || e.stopped() {
					return false
				}
			}
		}
		ann.allItems = true
		if applied && valid && e.annot {
			e.annotateUnevaluated(s, "unevaluatedItems", nil)
		}
	}
	return valid
}

// traceValues reports const and enum, with the index of the enum value matched.
func (e *evaluator) traceValues(s *Schema, v source.Value) {
	if s.constV != nil {
		e.emit(s, "const", source.Equal(v, *s.constV), "")
	}
	if s.enum != nil {
		idx := -1
		for i, ev := range s.enum {
			if source.Equal(v, ev) {
				idx = i
				break
			}
		}
		detail := "-1" // strconv.Itoa allocates it each time
		if idx >= 0 {
			detail = strconv.Itoa(idx)
		}
		e.emit(s, "enum", idx >= 0, detail)
	}
}

// traceObject reports the object keywords that need no subschema.
func (e *evaluator) traceObject(s *Schema, v source.Value) {
	n := v.Len()
	if s.minProps >= 0 {
		e.emit(s, "minProperties", n >= s.minProps, "")
	}
	if s.maxProps >= 0 {
		e.emit(s, "maxProperties", n <= s.maxProps, "")
	}
	names := s.memberNames(v, n)
	for _, r := range s.required {
		e.emit(s, "required", names.has(r), r)
	}
	for _, dr := range s.depRequired {
		if !names.has(dr.prop) {
			e.emit(s, dr.kw, true, "")
			continue
		}
		ok := true
		for _, r := range dr.required {
			ok = ok && names.has(r)
		}
		e.emit(s, dr.kw, ok, dr.prop)
	}
	for i := 0; i < n; i++ {
		k := v.Key(i)
		if _, ok := s.properties[k]; ok {
			e.emit(s, "properties", true, k)
		}
	}
}
