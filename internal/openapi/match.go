package openapi

import (
	"fmt"
	"strings"
	"sync"
)

// Pair is a schema location both versions hold, to be compared.
type Pair struct {
	// Old and New are the two items; their Schema pointers name the schemas.
	Old, New *Item
	// Direction is the direction of compatibility that breaks clients here: "backward"
	// (a request), "forward" (a response), "full" (a component used by both) or "" (a
	// component nothing uses: compared, never checked).
	Direction string
	// Via names the old response a new status code was compared with when the old version
	// did not list that code ("2XX", "200" or "default": the response clients of the old
	// version read it as).
	Via string
}

// Change is something one version holds and the other lacks, or a parameter, body or
// header that became required or optional.
type Change struct {
	// Kind is a stable id: "operation-removed", "parameter-required", ...
	Kind string
	// Old and New are the item in each version (one is nil for an addition or a removal).
	Old, New *Item
	// Breaks is the direction the change breaks clients in ("backward", "forward"), or "".
	Breaks string
	// Message says what changed, in words.
	Message string
}

// ChangeKinds describes the kinds of Change, for the rule table of the diff package; the
// map is made on the first call (not at every start of jstk) and must not be modified.
var ChangeKinds = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"operation-added":       "an operation (or an AsyncAPI channel operation) was added",
		"operation-removed":     "an operation was removed: requests clients make to it fail (breaks backward)",
		"parameter-added":       "a parameter was added (breaks backward when it is required)",
		"parameter-removed":     "a parameter is no longer described (servers usually ignore parameters they do not describe)",
		"parameter-required":    "a parameter became required (breaks backward)",
		"parameter-optional":    "a parameter became optional",
		"request-body-added":    "a request body was added (breaks backward when it is required)",
		"request-body-removed":  "a request body is no longer described",
		"request-body-required": "a request body became required (breaks backward)",
		"request-body-optional": "a request body became optional",
		"media-type-added":      "a media type was added (breaks forward in a response: clients may receive content they cannot read)",
		"media-type-removed":    "a media type was removed (breaks backward in a request: clients sending it are refused)",
		"response-added":        "a status code was added; it is compared with the response clients read it as (its range, its class's x00 code, default), and breaks forward when it is a success code none covered",
		"response-removed":      "a status code was removed (the API answers with fewer kinds of responses)",
		"header-added":          "a response header was added",
		"header-removed":        "a response header was removed (breaks forward when it was required)",
		"header-required":       "a response header became required",
		"header-optional":       "a response header became optional (breaks forward)",
		"message-added":         "a message was added to an operation (breaks forward when the application sends it)",
		"message-removed":       "a message was removed from an operation (breaks backward when the application received it)",
		"component-added":       "a component schema or message was added",
		"component-removed":     "a component schema or message was removed",
		"schema-added":          "a location that had no schema (anything) got one (breaks backward in a request)",
		"schema-removed":        "a location lost its schema: anything goes (breaks forward in a response)",
		"not-compared":          "a schema whose format is not JSON Schema (Avro, RAML, Protobuf...): not compared",
	}
})

// Match aligns two versions of a document: the schema locations both hold, and what one
// holds and the other lacks.
func Match(old, new *Document) ([]Pair, []Change) {
	m := &matcher{old: old, new: new, oldBy: index(old.items), newBy: index(new.items), alias: map[string]string{}}
	// new status codes the old version did not list are compared with the response the
	// old version's clients read them as
	for _, it := range new.items {
		if it.Kind != StatusCode || m.oldBy[it.Key] != nil || m.oldBy[it.Parent] == nil {
			continue
		}
		via := m.fallback(it)
		ch := Change{Kind: "response-added", New: it}
		switch {
		case via != nil:
			m.alias[it.Key] = via.Key
			ch.Message = fmt.Sprintf("%s was added; clients of the old version read it as response %s, and it is compared with that", it.Name, via.Status)
		case successClass(it.Status):
			ch.Breaks = "forward"
			ch.Message = fmt.Sprintf("%s was added: clients of the old version do not expect a success response with this code", it.Name)
		default:
			ch.Message = fmt.Sprintf("%s was added (clients handle an unknown error status as its class)", it.Name)
		}
		m.changes = append(m.changes, ch)
	}
	for _, it := range new.items {
		ok := m.oldOf(it)
		switch {
		case ok != nil:
			m.both(ok, it)
		case it.Kind == StatusCode:
			// reported above
		case m.parentMissing(it, m.oldOf):
			// reported with its parent
		default:
			m.added(it)
		}
	}
	for _, it := range old.items {
		if m.newBy[it.Key] != nil {
			continue
		}
		if it.Parent != "" && m.newBy[it.Parent] == nil {
			continue // reported with its parent
		}
		m.removed(it)
	}
	return m.pairs, m.changes
}

type matcher struct {
	old, new     *Document
	oldBy, newBy map[string]*Item
	alias        map[string]string // new response key -> the old response key it is compared with
	pairs        []Pair
	changes      []Change
}

func index(items []*Item) map[string]*Item {
	m := make(map[string]*Item, len(items))
	for _, it := range items {
		if _, dup := m[it.Key]; !dup {
			m[it.Key] = it
		}
	}
	return m
}

// oldOf finds the old item matching a new one, through the alias of its response.
func (m *matcher) oldOf(it *Item) *Item {
	if o := m.oldBy[it.Key]; o != nil {
		return o
	}
	for from, to := range m.alias {
		if it.Key == from || strings.HasPrefix(it.Key, from+" ") {
			return m.oldBy[to+strings.TrimPrefix(it.Key, from)]
		}
	}
	return nil
}

// parentMissing reports whether an item's parent is missing on the other side.
func (m *matcher) parentMissing(it *Item, other func(*Item) *Item) bool {
	if it.Parent == "" {
		return false
	}
	p := m.newBy[it.Parent]
	if p == nil {
		return false
	}
	return other(p) == nil
}

// fallback finds the old response a new status code is read as: its range ("2XX"), its
// class's x00 code ("200", RFC 9110 section 15), then "default".
func (m *matcher) fallback(it *Item) *Item {
	s := it.Status
	if len(s) != 3 {
		return nil
	}
	for _, code := range []string{s[:1] + "XX", s[:1] + "00", "DEFAULT"} {
		if code == s {
			continue
		}
		if o := m.oldBy[it.Parent+" response "+code]; o != nil {
			return o
		}
	}
	return nil
}

func successClass(status string) bool {
	return status != "" && status[0] >= '1' && status[0] <= '3'
}

// both compares an item both versions hold.
func (m *matcher) both(o, n *Item) {
	if o.Required != n.Required {
		kind, breaks := "", ""
		switch n.Kind {
		case Parameter:
			kind = "parameter-optional"
			if n.Required {
				kind, breaks = "parameter-required", "backward"
			}
		case RequestBody:
			kind = "request-body-optional"
			if n.Required {
				kind, breaks = "request-body-required", "backward"
			}
		case Header:
			kind = "header-required"
			if !n.Required {
				kind, breaks = "header-optional", "forward"
			}
		}
		if kind != "" {
			word := "optional"
			if n.Required {
				word = "required"
			}
			m.changes = append(m.changes, Change{Kind: kind, Old: o, New: n, Breaks: breaks, Message: n.Name + " became " + word})
		}
	}
	switch {
	case o.Schema == "" && n.Schema == "":
	case (o.Format != "" || n.Format != "") && o.Format == n.Format && m.sameText(o, n):
		// a schema jstk does not read, unchanged
	case o.Format != "" || n.Format != "":
		f := n.Format
		if f == "" {
			f = o.Format
		}
		m.changes = append(m.changes, Change{Kind: "not-compared", Old: o, New: n,
			Message: fmt.Sprintf("%s: the schema format %q is not JSON Schema; not compared", n.Name, f)})
	case o.Schema == "":
		breaks := ""
		if n.Role == Request {
			breaks = "backward"
		}
		m.changes = append(m.changes, Change{Kind: "schema-added", Old: o, New: n, Breaks: breaks, Message: n.Name + " has a schema; it had none (anything)"})
	case n.Schema == "":
		breaks := ""
		if n.Role == Response {
			breaks = "forward"
		}
		m.changes = append(m.changes, Change{Kind: "schema-removed", Old: o, New: n, Breaks: breaks, Message: n.Name + " has no schema any more (anything)"})
	default:
		p := Pair{Old: o, New: n, Direction: n.Direction()}
		if n.Role == Shared {
			p.Direction = sharedDirection(o, n)
		}
		if o.Parent != n.Parent || (o.Kind == StatusCode && o.Key != n.Key) {
			p.Via = viaOf(o)
		}
		m.pairs = append(m.pairs, p)
	}
}

// viaOf names the old response an aliased item belongs to.
func viaOf(o *Item) string {
	if o.Status != "" {
		return o.Status
	}
	i := strings.Index(o.Key, " response ")
	if i < 0 {
		return ""
	}
	rest := o.Key[i+len(" response "):]
	code, _, _ := strings.Cut(rest, " ")
	return code
}

// sharedDirection is the direction a component matters in: the roles that use it in
// either version.
func sharedDirection(o, n *Item) string {
	u := &Item{Role: Shared, Uses: append(append([]Role(nil), o.Uses...), n.Uses...)}
	return u.Direction()
}

func (m *matcher) added(n *Item) {
	ch := Change{New: n, Message: n.Name + " was added"}
	switch n.Kind {
	case Operation:
		ch.Kind = "operation-added"
	case Parameter:
		ch.Kind = "parameter-added"
		if n.Required {
			ch.Breaks, ch.Message = "backward", n.Name+" was added, required: requests of the old version lack it"
		}
	case RequestBody:
		ch.Kind = "request-body-added"
		if n.Required {
			ch.Breaks, ch.Message = "backward", n.Name+" was added, required: requests of the old version lack it"
		}
	case MediaType:
		ch.Kind = "media-type-added"
		if n.Role == Response {
			ch.Breaks, ch.Message = "forward", n.Name+" was added: clients of the old version may receive content they do not read"
		}
	case Header:
		ch.Kind = "header-added"
	case Message:
		ch.Kind = "message-added"
		if n.Role == Response {
			ch.Breaks, ch.Message = "forward", n.Name+" was added: the application may send a message clients of the old version do not read"
		}
	case Payload, Headers:
		ch.Kind = "schema-added"
		if n.Role == Request {
			ch.Breaks = "backward"
		}
	case Component, ComponentMsg:
		ch.Kind = "component-added"
	default:
		return
	}
	m.changes = append(m.changes, ch)
}

func (m *matcher) removed(o *Item) {
	ch := Change{Old: o, Message: o.Name + " was removed"}
	switch o.Kind {
	case Operation:
		ch.Kind, ch.Breaks = "operation-removed", "backward"
		ch.Message = o.Name + " was removed: clients of the old version use it"
	case Parameter:
		ch.Kind = "parameter-removed"
	case RequestBody:
		ch.Kind = "request-body-removed"
	case MediaType:
		ch.Kind = "media-type-removed"
		if o.Role == Request {
			ch.Breaks, ch.Message = "backward", o.Name+" was removed: clients of the old version send it"
		}
	case StatusCode:
		ch.Kind = "response-removed"
	case Header:
		ch.Kind = "header-removed"
		if o.Required {
			ch.Breaks, ch.Message = "forward", o.Name+" was removed: it was required, and clients of the old version may rely on it"
		}
	case Message:
		ch.Kind = "message-removed"
		if o.Role == Request {
			ch.Breaks, ch.Message = "backward", o.Name+" was removed: clients of the old version send it"
		}
	case Payload, Headers:
		ch.Kind = "schema-removed"
		if o.Role == Response {
			ch.Breaks = "forward"
		}
	case Component, ComponentMsg:
		ch.Kind = "component-removed"
	default:
		return
	}
	m.changes = append(m.changes, ch)
}

// sameText reports whether two items' schemas are the same text.
func (m *matcher) sameText(o, n *Item) bool {
	a, ok1 := m.old.Src.Root.Pointer(o.Schema)
	b, ok2 := m.new.Src.Root.Pointer(n.Schema)
	return ok1 && ok2 && sameValue(a, b)
}
