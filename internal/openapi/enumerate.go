package openapi

import (
	"strconv"
	"strings"

	"github.com/jstk-dev/jstk/internal/source"
)

// methods are the operations of an OpenAPI Path Item ("query" came with 3.2).
var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace", "query"}

// openapi enumerates an OpenAPI 3.x document: its paths, its webhooks (whose requests the
// API sends, so their roles are the other way round) and its component schemas.
func (e *enumerator) openapi() {
	if paths, ok := e.root.Get("paths"); ok {
		members("/paths", paths, func(path, p string, pv source.Value) {
			e.pathItem(path, normPath(path), p, pv, "", false)
		})
	}
	if hooks, ok := e.root.Get("webhooks"); ok {
		members("/webhooks", hooks, func(name, p string, pv source.Value) {
			e.pathItem(name, name, p, pv, "webhook ", true)
		})
	}
	if comps, ok := e.root.At("components", "schemas"); ok {
		e.components("/components/schemas", comps, "component schema")
	}
}

// swagger enumerates the definitions of a Swagger 2.0 document (its paths are not read).
func (e *enumerator) swagger() {
	if defs, ok := e.root.Get("definitions"); ok {
		e.components("/definitions", defs, "definition")
	}
	if _, ok := e.root.Get("paths"); ok {
		e.note("/paths: the operations of a Swagger 2.0 document are not read (convert it to OpenAPI 3 to compare them)")
	}
}

// normPath makes a path template's parameter names irrelevant: /pets/{id} and /pets/{petId}
// are the same path.
func normPath(p string) string {
	var sb strings.Builder
	for {
		i := strings.IndexByte(p, '{')
		j := strings.IndexByte(p[max(i, 0):], '}')
		if i < 0 || j < 0 {
			sb.WriteString(p)
			return sb.String()
		}
		sb.WriteString(p[:i] + "{}")
		p = p[i+j+1:]
	}
}

// pathParams lists the parameter names of a path template in order.
func pathParams(p string) []string {
	var out []string
	for {
		i := strings.IndexByte(p, '{')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(p[i:], '}')
		if j < 0 {
			return out
		}
		out = append(out, p[i+1:i+j])
		p = p[i+j+1:]
	}
}

type param struct {
	ptr string
	v   source.Value
}

func (e *enumerator) pathItem(path, norm, ptr string, v source.Value, prefix string, inverted bool) {
	ptr, v, ok := e.deref(ptr, v)
	if !ok || v.Kind() != source.Object {
		return
	}
	req, resp := Request, Response
	if inverted {
		req, resp = Response, Request
	}
	common := e.params(ptr+"/parameters", v, nil, nil)
	for _, m := range methods {
		ov, ok := v.Get(m)
		if !ok || ov.Kind() != source.Object {
			continue
		}
		op := &Item{Kind: Operation, Key: prefix + strings.ToUpper(m) + " " + norm, Name: prefix + strings.ToUpper(m) + " " + path,
			Pointer: ptr + "/" + m, Role: req}
		e.add(op)
		ps := e.params(op.Pointer+"/parameters", ov, common, nil)
		for _, p := range ps.order {
			e.parameter(op, path, ps.byKey[p], req)
		}
		if bv, ok := ov.Get("requestBody"); ok {
			bp, bv, ok := e.deref(op.Pointer+"/requestBody", bv)
			if ok {
				body := e.add(&Item{Kind: RequestBody, Key: op.Key + " request body", Name: op.Name + " request body", Parent: op.Key,
					Pointer: bp, Role: req, Required: flag(bv, "required")})
				e.content(body, bp, bv, req)
			}
		}
		if rv, ok := ov.Get("responses"); ok {
			members(op.Pointer+"/responses", rv, func(code, rp string, r source.Value) {
				rp, r, ok := e.deref(rp, r)
				if !ok {
					return
				}
				res := e.add(&Item{Kind: StatusCode, Key: op.Key + " response " + strings.ToUpper(code), Name: op.Name + " response " + code,
					Parent: op.Key, Pointer: rp, Role: resp, Status: strings.ToUpper(code)})
				e.content(res, rp, r, resp)
				hv, _ := r.Get("headers")
				members(rp+"/headers", hv, func(name, hp string, h source.Value) {
					if strings.EqualFold(name, "content-type") {
						return // described by the media types, ignored as a header
					}
					hp, h, ok := e.deref(hp, h)
					if !ok {
						return
					}
					hd := &Item{Kind: Header, Key: res.Key + " header " + strings.ToLower(name), Name: res.Name + " header " + name,
						Parent: res.Key, Pointer: hp, Role: resp, Required: flag(h, "required")}
					if _, ok := h.Get("schema"); ok {
						hd.Schema = hp + "/schema"
					}
					e.add(hd)
					e.content(hd, hp, h, resp)
				})
			})
		}
	}
}

// params collects the parameters of a path item or operation by in and name, the
// operation's replacing the path item's.
type paramSet struct {
	order []string
	byKey map[string]param
}

func (e *enumerator) params(ptr string, owner source.Value, base *paramSet, _ any) *paramSet {
	ps := &paramSet{byKey: map[string]param{}}
	if base != nil {
		ps.order = append(ps.order, base.order...)
		for k, v := range base.byKey {
			ps.byKey[k] = v
		}
	}
	list, ok := owner.Get("parameters")
	if !ok || list.Kind() != source.Array {
		return ps
	}
	for i, pv := range list.Items() {
		pp, pv, ok := e.deref(ptr+"/"+strconv.Itoa(i), pv)
		if !ok {
			continue
		}
		k := str(pv, "in") + "\x00" + str(pv, "name")
		if _, dup := ps.byKey[k]; !dup {
			ps.order = append(ps.order, k)
		}
		ps.byKey[k] = param{pp, pv}
	}
	return ps
}

func (e *enumerator) parameter(op *Item, path string, p param, role Role) {
	in, name := str(p.v, "in"), str(p.v, "name")
	id := name
	switch in {
	case "header":
		id = strings.ToLower(name)
	case "path":
		// a path parameter is its place in the path: renaming it changes nothing
		for i, n := range pathParams(path) {
			if n == name {
				id = "{" + strconv.Itoa(i) + "}"
			}
		}
	}
	it := &Item{Kind: Parameter, Key: op.Key + " parameter " + in + " " + id, Name: op.Name + " parameter " + in + " " + name,
		Parent: op.Key, Pointer: p.ptr, Role: role, Required: flag(p.v, "required") || in == "path"}
	if _, ok := p.v.Get("schema"); ok {
		it.Schema = p.ptr + "/schema"
	}
	e.add(it)
	e.content(it, p.ptr, p.v, role)
}

// content records the media types of a body, parameter or header, each with its schema.
func (e *enumerator) content(parent *Item, ptr string, v source.Value, role Role) {
	cv, ok := v.Get("content")
	if !ok {
		return
	}
	members(ptr+"/content", cv, func(media, mp string, m source.Value) {
		it := &Item{Kind: MediaType, Key: parent.Key + " " + strings.ToLower(media), Name: parent.Name + " " + media,
			Parent: parent.Key, Pointer: mp, Role: role}
		if _, ok := m.Get("schema"); ok {
			it.Schema = mp + "/schema"
		}
		e.add(it)
	})
}

// asyncapi enumerates an AsyncAPI document: 2.x channels with their publish and subscribe
// operations, 3.x operations with their channels' messages, and the components.
func (e *enumerator) asyncapi() {
	if strings.HasPrefix(e.d.Kind.Version, "2") {
		chans, _ := e.root.Get("channels")
		members("/channels", chans, func(name, cp string, cv source.Value) {
			cp, cv, ok := e.deref(cp, cv)
			if !ok {
				return
			}
			// publish: the application receives what clients publish; subscribe: it sends.
			for _, action := range []string{"publish", "subscribe"} {
				ov, ok := cv.Get(action)
				if !ok || ov.Kind() != source.Object {
					continue
				}
				role := Request
				if action == "subscribe" {
					role = Response
				}
				op := e.add(&Item{Kind: Operation, Key: "channel " + name + " " + action, Name: "channel " + name + " " + action,
					Pointer: cp + "/" + action, Role: role})
				raw, ok := ov.Get("message")
				if !ok {
					continue
				}
				mp, mv, ok := e.deref(op.Pointer+"/message", raw)
				if !ok {
					continue
				}
				if alts, ok := mv.Get("oneOf"); ok && alts.Kind() == source.Array {
					for i, av := range alts.Items() {
						ap := mp + "/oneOf/" + strconv.Itoa(i)
						e.message(op, ap, av, "#"+strconv.Itoa(i))
					}
					continue
				}
				e.message(op, op.Pointer+"/message", raw, "")
			}
		})
	} else {
		ops, _ := e.root.Get("operations")
		members("/operations", ops, func(id, opp string, ov source.Value) {
			opp, ov, ok := e.deref(opp, ov)
			if !ok || ov.Kind() != source.Object {
				return
			}
			action := str(ov, "action")
			role := Request // receive: clients send, the application receives
			if action == "send" {
				role = Response
			}
			chv, _ := ov.Get("channel")
			chp, chv, ok := e.deref(opp+"/channel", chv)
			chName := lastToken(chp, "/channels/")
			name := "operation " + id + " (" + action
			if chName != "" {
				name += " on channel " + chName
			}
			name += ")"
			op := e.add(&Item{Kind: Operation, Key: "operation " + id, Name: name, Pointer: opp, Role: role})
			if list, has := ov.Get("messages"); has && list.Kind() == source.Array {
				for i, mv := range list.Items() {
					target := ""
					if rv, ok := mv.Get("$ref"); ok && rv.Kind() == source.String {
						target = unescapeFragment(strings.TrimPrefix(rv.Str(), "#"))
					}
					e.message(op, opp+"/messages/"+strconv.Itoa(i), mv, lastToken(target, "/messages/"))
				}
				return
			}
			if !ok {
				return
			}
			msgs, _ := chv.Get("messages")
			members(chp+"/messages", msgs, func(mname, mp string, mv source.Value) {
				e.message(op, mp, mv, mname)
			})
		})
	}
	if comps, ok := e.root.At("components", "schemas"); ok {
		e.components("/components/schemas", comps, "component schema")
	}
	if msgs, ok := e.root.At("components", "messages"); ok {
		members("/components/messages", msgs, func(name, p string, _ source.Value) {
			e.add(&Item{Kind: ComponentMsg, Key: "component message " + name, Name: "component message " + name, Pointer: p, Role: Shared})
		})
	}
}

// lastToken returns the token after prefix in ptr when ptr is prefix + one token.
func lastToken(ptr, prefix string) string {
	i := strings.LastIndex(ptr, prefix)
	if i < 0 {
		return ""
	}
	rest := ptr[i+len(prefix):]
	if rest == "" || strings.Contains(rest, "/") {
		return ""
	}
	toks, _ := source.SplitPointer("/" + rest)
	return toks[0]
}

// message records a message of an operation with its payload and headers. id names it when
// the message itself does not (messageId, name): its key in a channel, its place in a oneOf.
func (e *enumerator) message(op *Item, ptr string, v source.Value, id string) {
	target := ""
	if rv, ok := v.Get("$ref"); ok && rv.Kind() == source.String {
		target = unescapeFragment(strings.TrimPrefix(rv.Str(), "#"))
	}
	ptr, v, ok := e.deref(ptr, v)
	if !ok || v.Kind() != source.Object {
		return
	}
	// AsyncAPI 2: messageId, else name, else the component's key, else the place in a oneOf.
	// AsyncAPI 3: the message's key in its channel (given), else its name.
	v2 := strings.HasPrefix(e.d.Kind.Version, "2")
	switch mid, n, t := str(v, "messageId"), str(v, "name"), lastToken(target, "/messages/"); {
	case v2 && mid != "":
		id = mid
	case (v2 || id == "") && n != "":
		id = n
	case (v2 || id == "") && t != "":
		id = t
	}
	key, name := op.Key+" message", op.Name+" message"
	if id != "" {
		key, name = key+" "+id, name+" "+id
	}
	msg := e.add(&Item{Kind: Message, Key: key, Name: name, Parent: op.Key, Pointer: ptr, Role: op.Role})
	format := ""
	if strings.HasPrefix(e.d.Kind.Version, "2") {
		format = str(v, "schemaFormat")
	}
	if pv, ok := v.Get("payload"); ok {
		it := &Item{Kind: Payload, Key: msg.Key + " payload", Name: msg.Name + " payload", Parent: msg.Key, Pointer: ptr + "/payload",
			Schema: ptr + "/payload", Role: op.Role}
		e.multiFormat(it, ptr+"/payload", pv, format)
		e.add(it)
	}
	if hv, ok := v.Get("headers"); ok {
		it := &Item{Kind: Headers, Key: msg.Key + " headers", Name: msg.Name + " headers", Parent: msg.Key, Pointer: ptr + "/headers",
			Schema: ptr + "/headers", Role: op.Role}
		e.multiFormat(it, ptr+"/headers", hv, "")
		e.add(it)
	}
}
