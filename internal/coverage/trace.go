package coverage

import (
	"context"
	"strconv"
	"strings"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// tracer turns the evaluator's events into hits. One tracer serves one worker.
//
// The evaluator reports, for each schema it reaches, an event with an empty keyword, then
// the keywords it applies with their outcome. Events of one schema that follow each other
// form a run: a run is one application of that schema's keywords to one value, so a
// keyword that reports one event per property (required, properties, dependentRequired)
// is aggregated over its run.
type tracer struct {
	m    *model
	v    *view
	hits []uint32
	// ctx is the run's; halt records an evaluation error that ends the run.
	ctx  context.Context
	halt *schema.Halt

	run run
	// onValid are hits that count only if the test turns out valid as expected (a branch
	// selected by a valid instance); onExpected are hits that count only if the test has
	// its expected outcome (an assertion failing, a required property omitted).
	onValid    []int
	onExpected []int
	objects    []uint32 // per schema (sinfo.id): object evaluations seen

	// effects are what the replayed evaluations of the current trace did (see replay),
	// found by recording id through effectOf; effectHits counts their hits. capture,
	// while one is worked out, receives its hits.
	effects    []effect
	effectOf   map[int]int
	effectHits int
	maxEffects int // bound of effectHits (maxEffectHits; tests lower it)
	capture    *effect
}

// maxEffectHits and maxEffectCount bound the effects kept (about 1 MB of hits): past
// them, the effects found so far are forgotten.
const (
	maxEffectHits  = 1 << 18
	maxEffectCount = 1 << 12
)

// effect is what a replayed evaluation's steps do to the tracer: the hits and object
// evaluations they count, what they add to onValid and onExpected, and the run they leave
// open.
type effect struct {
	hits, objects       []int32
	onValid, onExpected []int
	run                 run
}

// run is what one run has shown.
type run struct {
	s              *schema.Schema
	info           *sinfo
	startedReached bool
	seen           uint32 // kwIDs seen in this run (maxKwID bits)
	typeFailed     bool
	object         bool
	reqAll         bool
	depPos         int
}

func newTracer(ctx context.Context, halt *schema.Halt, m *model) *tracer {
	return &tracer{ctx: ctx, halt: halt, m: m, hits: make([]uint32, len(m.items)), objects: make([]uint32, len(m.infos)),
		maxEffects: maxEffectHits}
}

func (t *tracer) hit(i int) {
	if i >= 0 {
		t.hits[i]++
		if t.capture != nil {
			t.capture.hits = append(t.capture.hits, int32(i))
		}
	}
}

// trace evaluates v against s, counting its steps.
func (t *tracer) trace(s *schema.Schema, v source.Value) ([]schema.Error, error) {
	t.forgetEffects()
	errs, err := s.TraceReplaysContext(t.ctx, v, t.on, t.replay)
	if err != nil {
		t.halt.Note(err)
	}
	return errs, err
}

// forgetEffects drops the effects kept, as a new trace must: recording ids start again.
func (t *tracer) forgetEffects() {
	if len(t.effects) > 0 {
		clear(t.effectOf)
		t.effects, t.effectHits = t.effects[:0], 0
	}
}

// replay receives the steps of an evaluation that the trace repeats (see
// schema.TraceReplays). They follow the event of their schema reached, so they start from
// the same fresh run and do the same each time: the first time they are counted one by
// one and what they did is kept, later times it is applied again at once.
func (t *tracer) replay(id int, steps []schema.Event) {
	if i, ok := t.effectOf[id]; ok {
		ef := &t.effects[i]
		for _, i := range ef.hits {
			t.hits[i]++
		}
		for _, i := range ef.objects {
			t.objects[i]++
		}
		t.onValid = append(t.onValid, ef.onValid...)
		t.onExpected = append(t.onExpected, ef.onExpected...)
		t.run = ef.run
		return
	}
	if t.effectHits >= t.maxEffects || len(t.effects) >= maxEffectCount {
		// memory stays bounded on a large document: start again (replays mostly serve
		// the alternatives at one instance location, as in schema.evalReplayed)
		t.forgetEffects()
	}
	if n := len(t.effects); n < cap(t.effects) {
		t.effects = t.effects[:n+1] // reuse the slices of an earlier trace's effect
	} else {
		t.effects = append(t.effects, effect{})
	}
	ef := &t.effects[len(t.effects)-1]
	ef.hits, ef.objects = ef.hits[:0], ef.objects[:0]
	nValid, nExpected := len(t.onValid), len(t.onExpected)
	t.capture = ef
	for _, ev := range steps {
		t.on(ev)
	}
	t.capture = nil
	ef.onValid = append(ef.onValid[:0], t.onValid[nValid:]...)
	ef.onExpected = append(ef.onExpected[:0], t.onExpected[nExpected:]...)
	ef.run = t.run
	t.effectHits += len(ef.hits) + len(ef.objects)
	if t.effectOf == nil {
		t.effectOf = map[int]int{}
	}
	t.effectOf[id] = len(t.effects) - 1
}

// on receives one event.
func (t *tracer) on(ev schema.Event) {
	if ev.Keyword == "" || ev.Schema != t.run.s {
		prev, prevInfo, prevStarted := t.run.s, t.run.info, t.run.startedReached
		t.endRun()
		n := t.v.lookup(ev.Schema)
		t.run = run{s: ev.Schema, startedReached: ev.Keyword == "", reqAll: true}
		if n != nil {
			t.run.info = n.info
		}
		if ev.Keyword == "" {
			t.reached(n, ev.Schema, prev, prevInfo, prevStarted)
			return
		}
	}
	si := t.run.info
	if si == nil {
		return
	}
	id := kwIDOf(ev.Keyword)
	if id == kwNone {
		return
	}
	ki := &si.kw[id]
	if t.run.seen&(1<<id) == 0 {
		t.run.seen |= 1 << id
		t.hit(ki.applied)
	}
	if !ev.Passed && ki.fail >= 0 {
		t.onExpected = append(t.onExpected, ki.fail)
	}
	switch ev.Keyword {
	case "type":
		t.onType(si, ki, ev)
	case "enum":
		if ev.Passed {
			t.hit(ki.pass)
			if i, err := strconv.Atoi(ev.Detail); err == nil && i >= 0 && i < len(si.enumItems) {
				t.hit(si.enumItems[i])
			}
		}
	case "const":
		if ev.Passed {
			t.hit(ki.pass)
			t.hit(si.constItem)
		}
	case "required":
		t.run.object = true
		if !ev.Passed {
			t.run.reqAll = false
			if i := si.reqNames.index(ev.Detail); i >= 0 {
				t.onExpected = append(t.onExpected, si.reqOmit[i])
			}
		}
	case "minProperties", "maxProperties":
		t.run.object = true
		if ev.Passed {
			t.hit(ki.pass)
		}
	case "dependentRequired", "dependencies":
		t.onDependency(si, ev)
	case "properties":
		t.run.object = true
		if i := si.optional.index(ev.Detail); i >= 0 {
			t.hit(si.optPresent[i])
		}
	case "if":
		if ev.Detail == "then" {
			t.hit(si.ifThen)
		} else {
			t.hit(si.ifElse)
		}
	case "anyOf", "oneOf":
		t.onChoice(si, ev)
	case "dependentSchemas":
	default:
		if ev.Passed {
			t.hit(ki.pass)
		}
	}
}

// onType counts an event of type.
func (t *tracer) onType(si *sinfo, ki *kwItems, ev schema.Event) {
	if !ev.Passed {
		t.run.typeFailed = true
		return
	}
	t.hit(ki.pass)
	if ev.Detail == "object" {
		t.run.object = true
	}
	for i, m := range si.typeMembers {
		if ev.Detail == m || (m == "number" && ev.Detail == "integer") {
			t.hit(si.typeItems[i])
		}
	}
}

// onDependency counts an event of dependentRequired or of dependencies.
func (t *tracer) onDependency(si *sinfo, ev schema.Event) {
	t.run.object = true
	if ev.Detail == "" {
		// An entry whose property is absent: the evaluator names none, but reports the
		// entries in order.
		if t.run.depPos < len(si.deps) {
			t.hit(si.deps[t.run.depPos].notTrg)
		}
		t.run.depPos++
	} else if i, ok := si.depIndex[ev.Keyword+"\x00"+ev.Detail]; ok {
		t.hit(si.deps[i].trig)
		t.run.depPos++
	}
}

// onChoice counts a passing event of anyOf or oneOf: the branches that matched count when
// the instance is valid.
func (t *tracer) onChoice(si *sinfo, ev schema.Event) {
	if !ev.Passed {
		return
	}
	if ev.Keyword == "oneOf" {
		if i, err := strconv.Atoi(ev.Detail); err == nil && i < len(si.oneOfItems) {
			t.onValid = append(t.onValid, si.oneOfItems[i])
		}
		return
	}
	for _, d := range strings.Split(ev.Detail, ",") {
		if i, err := strconv.Atoi(d); err == nil && i < len(si.anyOfItems) {
			t.onValid = append(t.onValid, si.anyOfItems[i])
		}
	}
}

// reached counts a schema reached: the subschema, the keyword that applied it, and the
// $ref that led to it when the previous run was its referrer's first.
func (t *tracer) reached(n *node, s, prev *schema.Schema, prevInfo *sinfo, prevStarted bool) {
	if prevStarted && prevInfo != nil && prevInfo.refApplied >= 0 && prev.Ref() == s {
		t.hit(prevInfo.refApplied)
	}
	if n == nil {
		return
	}
	if n.info != nil {
		t.hit(n.info.reached)
	}
	if n.parent != nil {
		t.hit(*n.parent)
	}
}

// endRun counts what only a whole run shows.
func (t *tracer) endRun() {
	si := t.run.info
	if si == nil {
		return
	}
	if t.run.seen&(1<<kwRequired) != 0 && t.run.reqAll {
		t.hit(si.kw[kwRequired].pass)
	}
	if t.run.object {
		// An optional property is absent as often as objects were evaluated without it:
		// Measure works it out from this count and the property's presence count.
		t.objects[si.id]++
		if t.capture != nil {
			t.capture.objects = append(t.capture.objects, int32(si.id))
		}
		for _, it := range si.closedApplied {
			t.hit(it)
		}
	}
	// $dynamicRef and $recursiveRef act whenever the schema's keywords are evaluated past
	// its type.
	if t.run.startedReached && !t.run.typeFailed {
		for _, it := range si.bodyItems {
			t.hit(it)
		}
	}
}

// finishTest closes one test (or plain instance): the hits that depend on its outcome
// count now. expectValid is the expected outcome; for a plain instance, the actual one.
//
// A failing outcome counts only in a test that has its expected outcome: then a failure
// at the top level is what makes an expected-invalid instance invalid, and a failure
// inside a condition (if, not, contains, an anyOf/oneOf alternative) is what decides it.
// A failure in a test that does not hold tells nothing about what the tests check.
func (t *tracer) finishTest(valid, expectValid bool, errs []schema.Error) {
	t.endRun()
	t.run = run{}
	if valid && expectValid {
		for _, it := range t.onValid {
			t.hit(it)
		}
	}
	if valid == expectValid {
		for _, it := range t.onExpected {
			t.hit(it)
		}
	}
	for i := range errs {
		t.closedObject(&errs[i], !valid && !expectValid)
	}
	t.onValid, t.onExpected = t.onValid[:0], t.onExpected[:0]
}

// abandon drops what an evaluation that could not be completed left behind.
func (t *tracer) abandon() {
	t.endRun()
	t.run = run{}
	t.onValid, t.onExpected = t.onValid[:0], t.onExpected[:0]
}

// closedObject counts what the evaluator reports only by an error: a false
// additionalProperties or unevaluatedProperties rejecting a property (its application, its
// false subschema reached, and its failing outcome in an expected-invalid test). The
// errors' causes (why each alternative of an anyOf or oneOf failed) count too.
func (t *tracer) closedObject(e *schema.Error, expectedInvalid bool) {
	for i := range e.Causes {
		t.closedObject(&e.Causes[i], expectedInvalid)
	}
	if e.Keyword != "additionalProperties" && e.Keyword != "unevaluatedProperties" {
		return
	}
	si := t.m.schemaOf(e)
	if si == nil || si.s == nil {
		return
	}
	it, ok := si.closedFail[e.Keyword]
	if !ok {
		return
	}
	t.hit(si.other[e.Keyword])
	if child := t.m.byLoc[si.s.Location()+"/"+e.Keyword]; child != nil {
		t.hit(child.reached)
	}
	if expectedInvalid {
		t.hit(it)
	}
}

// schemaOf finds the schema of an error's keyword from its absolute keyword location
// (the schema's location, then the keyword's path below it).
func (m *model) schemaOf(e *schema.Error) *sinfo {
	abs := e.AbsoluteKeywordLocation
	if e.Keyword == "" {
		return m.byLoc[abs]
	}
	tok := "/" + source.EscapeToken(e.Keyword)
	if strings.HasSuffix(abs, tok) {
		if si := m.byLoc[strings.TrimSuffix(abs, tok)]; si != nil {
			return si
		}
	}
	if i := strings.LastIndex(abs, tok+"/"); i >= 0 {
		return m.byLoc[abs[:i]]
	}
	return nil
}
