package tools

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/jstk-dev/jstk/internal/mcp"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// MaxText bounds the text of a tool result under the default budget (the whole result,
// text and structured content together, stays under DefaultMaxResultBytes).
const MaxText = DefaultMaxResultBytes

// DefaultLimit is the number of list items a tool result holds when the call gives no limit.
const DefaultLimit = 100

// Contract is the _meta entry every tool carries: what it may touch.
var Contract = map[string]any{"jstk/contract": map[string]any{"access": "read"}}

// Provider serves descriptors as MCP tools.
type Provider struct {
	env   *Env
	descs []*Descriptor

	once    sync.Once
	tools   []mcp.Tool
	inputs  map[string]*schema.Schema
	initErr error
}

// NewProvider serves ds over MCP with env (whose FS should be a confined workspace).
func NewProvider(env *Env, ds []*Descriptor) *Provider {
	return &Provider{env: env, descs: ds}
}

// init builds the tool list and compiles the input schemas, on first use (start-up stays
// lazy).
func (p *Provider) init() {
	p.inputs = map[string]*schema.Schema{}
	for _, d := range p.descs {
		in, out := d.InputSchema(), d.OutputSchema()
		p.tools = append(p.tools, MCPTool(d, in, out))
		doc, err := source.ParseJSON(d.Name+".input.json", in, nil)
		if err != nil {
			p.initErr = err
			return
		}
		c := schema.NewCompiler(nil)
		uri := "urn:jstk:tool:" + d.Name + ":input"
		if err := c.AddDocument(uri, doc); err != nil {
			p.initErr = err
			return
		}
		s, err := c.Compile(uri)
		if err != nil {
			p.initErr = fmt.Errorf("input schema of %s: %v", d.Name, err)
			return
		}
		p.inputs[d.Name] = s
	}
}

// MCPTool is a descriptor as an MCP tool listing.
func MCPTool(d *Descriptor, in, out json.RawMessage) mcp.Tool {
	return mcp.Tool{
		Name:         d.Name,
		Title:        d.Title,
		Description:  d.Description,
		InputSchema:  in,
		OutputSchema: out,
		Annotations: &mcp.Annotations{ReadOnlyHint: true, DestructiveHint: false,
			IdempotentHint: true, OpenWorldHint: false},
		Meta: Contract,
	}
}

// Tools lists the tools.
func (p *Provider) Tools() []mcp.Tool {
	p.once.Do(p.init)
	return p.tools
}

// Call runs one tool: arguments are checked against the input schema first, then decoded
// and handed to the handler. Findings are a normal result; a call that could not run is
// isError with the reason. A handler's panic goes through: the MCP server (mcp.Server)
// recovers it, answers isError and audits it with the stack; the CLI says it and exits 2.
func (p *Provider) Call(ctx context.Context, req *mcp.CallRequest) *mcp.CallResult {
	p.once.Do(p.init)
	if p.initErr != nil {
		return mcp.ErrorResult("tools unavailable: %v", p.initErr)
	}
	d, ok := Lookup(req.Name)
	if !ok || p.inputs[req.Name] == nil {
		return mcp.ErrorResult("unknown tool %q", req.Name)
	}
	in, err := p.decode(d, req.Arguments)
	if err != nil {
		return mcp.ErrorResult("%v", err)
	}
	env := *p.env
	if req.Progress != nil {
		env.Progress = req.Progress
	}
	// Each call sees the workspace as it is: the $id index is renewed (files that did not
	// change are not read again), and the call's notices go into its result, never to
	// stdout.
	env.Index = env.Index.Renew()
	env.Notes = NewNotes(nil)
	budget := budgetOf(p.env)
	env.MaxResultBytes = budget
	report, err := d.Run(ctx, &env, in)
	if err != nil {
		var res *mcp.CallResult
		switch {
		case errors.Is(err, context.Canceled) && ctx.Err() != nil:
			res = mcp.ErrorResult("%s was cancelled before it was done (the server is shutting down, or the client cancelled the call)", d.Name)
		case schema.IsStopped(err) || errors.Is(err, schema.ErrRegexBudget):
			res = mcp.ErrorResult("%s %s", d.Name, err.Error()) // "lint stopped after 10 s: ..."
		default:
			res = mcp.ErrorResult("%s could not run: %s", d.Name, describeLoadError(err))
		}
		return boundError(withNotes(res, env.Notes), budget)
	}
	return answer(d, report, in, env.Notes, budget)
}

// boundError keeps the text of a result without structured content within the budget.
func boundError(res *mcp.CallResult, budget int) *mcp.CallResult {
	if budget <= 0 || resultSize(res)+resultReserve <= budget {
		return res
	}
	per := (budget - resultReserve) / len(res.Content)
	for i := range res.Content {
		res.Content[i].Text = boundEscaped(res.Content[i].Text, per-20, "the rest of the message is left out")
	}
	return res
}

// withNotes adds the notices of a call to its result, as one more text item after the
// report (the report itself stays the CLI's text).
func withNotes(res *mcp.CallResult, notes *Notes) *mcp.CallResult {
	if list := notes.List(); len(list) > 0 {
		res.Content = append(res.Content, mcp.TextContent("note: "+strings.Join(list, "\nnote: ")))
	}
	return res
}

// narrowHint says how to get what a bounded text leaves out, naming only arguments the
// tool has.
func narrowHint(d *Descriptor) string {
	var args []string
	for _, name := range []string{"limit", "offset", "maxText", "count"} {
		for i := 0; i < d.Input.NumField(); i++ {
			if n, _, _ := strings.Cut(d.Input.Field(i).Tag.Get("json"), ","); n == name {
				args = append(args, name)
			}
		}
	}
	whole := "jstk " + d.Name + " on the command line gives all of it"
	switch len(args) {
	case 0:
		return whole
	case 1:
		return "narrow the call with " + args[0] + ", or " + whole
	}
	return "narrow the call with " + strings.Join(args[:len(args)-1], ", ") + " and " + args[len(args)-1] + ", or " + whole
}

// decode checks raw arguments against the tool's input schema and decodes them.
func (p *Provider) decode(d *Descriptor, raw json.RawMessage) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = []byte("{}")
	}
	doc, err := source.ParseJSON("arguments", raw, nil)
	if err != nil {
		return nil, fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	if err := knownArguments(d, doc.Root); err != nil {
		return nil, err
	}
	errs, err := p.inputs[d.Name].Validate(doc.Root)
	if err != nil {
		return nil, fmt.Errorf("checking arguments: %v", err)
	}
	if len(errs) > 0 {
		var msgs []string
		for _, e := range errs {
			loc := e.InstanceLocation
			if loc == "" {
				loc = "arguments"
			} else {
				loc = "argument " + strings.TrimPrefix(loc, "/")
			}
			msgs = append(msgs, loc+": "+e.Message)
		}
		return nil, fmt.Errorf("invalid arguments for %s: %s", d.Name, strings.Join(msgs, "; "))
	}
	raw, err = integersAsWritten(d, raw, doc.Root)
	if err != nil {
		return nil, fmt.Errorf("invalid arguments for %s: %v", d.Name, err)
	}
	in := d.NewInput()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(in); err != nil {
		if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			// the arguments themselves are checked above: this is a member of a document
			return nil, fmt.Errorf("invalid arguments for %s: a document argument has the member %s; a document has path, value or text, and pointer", d.Name, field)
		}
		if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok && te.Field != "" {
			return nil, fmt.Errorf("invalid arguments for %s: argument %s: a %s cannot be read as %s", d.Name, te.Field, te.Value, te.Type)
		}
		return nil, fmt.Errorf("invalid arguments for %s: %v", d.Name, err)
	}
	if err := checkBounds(d, in, doc.Root); err != nil {
		return nil, err
	}
	// Lists are paged by default over MCP.
	if f := reflect.ValueOf(in).Elem().FieldByName("Limit"); f.IsValid() && f.CanSet() && f.Int() == 0 {
		f.SetInt(DefaultLimit)
	}
	return in, nil
}

// knownArguments refuses an argument the tool does not list (its input schema leaves
// additionalProperties out, to keep tools/list lean), naming it and the arguments there
// are; a flag of the command line only (lint's fix, bundle's output) is refused so too.
func knownArguments(d *Descriptor, args source.Value) error {
	if args.Kind() != source.Object {
		return nil // the schema check says what is wrong
	}
	an := inputArgNames(d.Input)
	for i := 0; i < args.Len(); i++ {
		if k := args.Key(i); !an.set[k] {
			return fmt.Errorf("invalid arguments for %s: argument %s: %s has no such argument (its arguments: %s)",
				d.Name, k, d.Name, strings.Join(an.list, ", "))
		}
	}
	return nil
}

// argNames are the names of a tool's MCP arguments, in the order of its input's fields,
// and as a set.
type argNames struct {
	list []string
	set  map[string]bool
}

// argNamesOf caches inputArgNames by input type: reading the tags at each call was 1-2% of
// a warm call's CPU.
var argNamesOf sync.Map // reflect.Type -> argNames

// inputArgNames reads the argument names from the json tags of an input type, leaving out
// the flags of the command line only.
func inputArgNames(t reflect.Type) argNames {
	if an, ok := argNamesOf.Load(t); ok {
		return an.(argNames)
	}
	an := argNames{set: map[string]bool{}}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || f.Tag.Get("cli") == "only" {
			continue
		}
		an.set[name] = true
		an.list = append(an.list, name)
	}
	argNamesOf.Store(t, an)
	return an
}

// inputField is what checkBounds and integersAsWritten read of a field of an input type:
// its argument name and, for an integer, its kind and the bounds of its min and max tags.
type inputField struct {
	index          int
	name           string
	kind           reflect.Kind
	min, max       int64
	hasMin, hasMax bool
}

// inputFieldsOf caches inputFields by input type: reading the tags at each call (strconv
// and reflect) was 8% of the engine's part of a warm validate call.
var inputFieldsOf sync.Map // reflect.Type -> []inputField

// inputFields reads the fields of an input type, in order.
func inputFields(t reflect.Type) []inputField {
	if fs, ok := inputFieldsOf.Load(t); ok {
		return fs.([]inputField)
	}
	fs := make([]inputField, t.NumField())
	for i := range fs {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		fs[i] = inputField{index: i, name: name, kind: f.Type.Kind()}
		if m, err := strconv.ParseInt(f.Tag.Get("min"), 10, 64); err == nil {
			fs[i].min, fs[i].hasMin = m, true
		}
		if m, err := strconv.ParseInt(f.Tag.Get("max"), 10, 64); err == nil {
			fs[i].max, fs[i].hasMax = m, true
		}
	}
	inputFieldsOf.Store(t, fs)
	return fs
}

// checkBounds refuses an integer argument given outside the bounds of its min and max tags
// (the input schema leaves out minimum 0, which a count goes without saying).
func checkBounds(d *Descriptor, in any, args source.Value) error {
	v := reflect.ValueOf(in).Elem()
	for _, f := range inputFields(d.Input) {
		if _, given := args.Get(f.name); !given || !v.Field(f.index).CanInt() {
			continue
		}
		n := v.Field(f.index).Int()
		if f.hasMin && n < f.min {
			return fmt.Errorf("invalid arguments for %s: argument %s: %d is less than the minimum %d", d.Name, f.name, n, f.min)
		}
		if f.hasMax && n > f.max {
			return fmt.Errorf("invalid arguments for %s: argument %s: %d is greater than the maximum %d", d.Name, f.name, n, f.max)
		}
	}
	return nil
}

// integersAsWritten rewrites the integer arguments that JSON Schema reads as integers but
// Go's decoder does not ("limit": 1.0, 1e2) as integer literals; one too large for the
// argument is refused, naming it.
func integersAsWritten(d *Descriptor, raw json.RawMessage, args source.Value) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	changed := false
	for _, f := range inputFields(d.Input) {
		switch f.kind {
		case reflect.Int, reflect.Int64:
		default:
			continue
		}
		name := f.name
		v, ok := args.Get(name)
		if !ok || v.Kind() != source.Number || !v.Num().IsInteger() {
			continue
		}
		n, fits := v.Num().Int64()
		if !fits || (f.kind == reflect.Int && int64(int(n)) != n) {
			return nil, fmt.Errorf("argument %s: %s is too large", name, v.Num())
		}
		lit := strconv.FormatInt(n, 10)
		if m == nil {
			if err := json.Unmarshal(raw, &m); err != nil {
				return nil, err
			}
		}
		if string(bytes.TrimSpace(m[name])) != lit {
			m[name], changed = json.RawMessage(lit), true
		}
	}
	if !changed {
		return raw, nil
	}
	return json.Marshal(m)
}

// defaultHint is Bound's hint: the arguments of the tools that list.
const defaultHint = "narrow the call with limit and offset"

// Bound cuts text to at most max bytes, keeping its beginning and its last lines (where
// reports put their verdict) and saying how much was left out between them.
func Bound(text string, max int) string { return BoundHint(text, max, defaultHint) }

// BoundHint is Bound whose note ends with hint, which says how to get the rest.
func BoundHint(text string, max int, hint string) string {
	if len(text) <= max {
		return text
	}
	tail := text
	if i := strings.LastIndexByte(strings.TrimSuffix(text, "\n"), '\n'); i >= 0 {
		tail = text[i+1:]
	}
	if len(tail) > max/4 {
		tail = ""
	}
	headMax := max - len(tail) - 200
	head := text[:headMax]
	if i := strings.LastIndexByte(head, '\n'); i > headMax/2 {
		head = head[:i+1]
	} else { // a long line is cut where the room ends, not left out whole
		for len(head) > 0 && !utf8.RuneStart(text[len(head)]) {
			head = head[:len(head)-1]
		}
	}
	cut := text[len(head) : len(text)-len(tail)]
	return head + fmt.Sprintf("... [%d characters (%d lines) not shown; %s]\n",
		len(cut), strings.Count(cut, "\n"), hint) + tail
}

// schemaArguments are the argument names of the documents that are schemas, in every tool
// that has them.
var schemaArguments = map[string]bool{"schema": true, "schemas": true, "old": true, "new": true, "from": true}

// RedactArguments redacts a call's arguments for the audit log (mcp.ArgumentRedactor):
// the documents that are schemas by shape only (mcp.RedactValues), since a schema's
// property named "password" describes a secret, it is not one; every other argument, and
// the instances and tests above all, by name and by shape (mcp.Redact). A document given
// as text is logged as what it parses to (see parseTexts), redacted the same way; a text
// that does not parse is not logged, only its size and hash.
func (p *Provider) RedactArguments(tool string, args any) any {
	m, ok := args.(map[string]any)
	d, found := Lookup(tool)
	if !ok || !found {
		return mcp.Redact(args)
	}
	docs := map[string]bool{}
	for i := 0; i < d.Input.NumField(); i++ {
		f := d.Input.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if schemaArguments[name] && (f.Type == docType || f.Type == reflect.TypeFor[[]Doc]()) {
			docs[name] = true
		}
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		v = parseTexts(v, "<"+k+">")
		if docs[k] {
			out[k] = mcp.RedactValues(v)
		} else {
			out[k] = mcp.Redact(map[string]any{k: v}).(map[string]any)[k]
		}
	}
	return out
}

// maxLoggedText is the largest text document parsed for the audit log; a larger one is
// logged by its size and hash.
const maxLoggedText = 1 << 20

// parseTexts returns v with the text of every document argument in it (an object with a
// "text" string among path, value, text and pointer, or a list of them) replaced by an
// object that gives the text's size, its SHA-256 and, when it parses (JSON, YAML, TOML, as
// the tools read it; at most maxLoggedText bytes), what it parses to ("parsed": one value,
// or a list for a YAML stream), in place of the text itself, so that redaction sees its
// members as it sees a value's.
func parseTexts(v any, name string) any {
	switch v := v.(type) {
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = parseTexts(e, name)
		}
		return out
	case map[string]any:
		text, ok := v["text"].(string)
		if !ok {
			return v
		}
		for k := range v {
			switch k {
			case "path", "value", "text", "pointer":
			default:
				return v
			}
		}
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = e
		}
		sum := sha256.Sum256([]byte(text))
		logged := map[string]any{"bytes": len(text), "sha256": hex.EncodeToString(sum[:])}
		if parsed, ok := parseLoggedText(text, name); ok {
			logged["parsed"] = parsed
		} else {
			logged["note"] = "the text is not logged: it could not be parsed (or is larger than 1 MiB), so its secrets could not be found"
		}
		out["text"] = logged
		return out
	}
	return v
}

// parseLoggedText parses a text document for the log, within the default limits.
func parseLoggedText(text, name string) (any, bool) {
	if len(text) > maxLoggedText {
		return nil, false
	}
	src := []byte(text)
	docs, err := source.Parse(name, src, source.Sniff(src), &source.Limits{MaxSize: maxLoggedText})
	if err != nil || len(docs) == 0 {
		return nil, false
	}
	if len(docs) == 1 {
		return source.ToAny(docs[0].Root), true
	}
	all := make([]any, len(docs))
	for i, d := range docs {
		all[i] = source.ToAny(d.Root)
	}
	return all, true
}
