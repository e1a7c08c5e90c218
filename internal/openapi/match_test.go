package openapi

import (
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// matchLines renders what Match found: "pair NAME DIRECTION [via]" and "KIND NAME [breaks]".
func matchLines(pairs []Pair, changes []Change) []string {
	var out []string
	for _, p := range pairs {
		s := "pair " + p.New.Name + " " + p.Direction
		if p.Via != "" {
			s += " via " + p.Via
		}
		out = append(out, s)
	}
	for _, c := range changes {
		it := c.New
		if it == nil {
			it = c.Old
		}
		s := c.Kind + " " + it.Name
		if c.Breaks != "" {
			s += " breaks " + c.Breaks
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func TestMatch(t *testing.T) {
	old := open(t, "old.yaml", `openapi: 3.0.3
paths:
  /a:
    get:
      parameters:
        - {name: q, in: query, schema: {type: string}}
        - {name: r, in: query, required: true, schema: {type: string}}
        - {name: gone, in: query, schema: {type: string}}
      requestBody:
        content:
          application/json: {schema: {type: object}}
          text/plain: {}
      responses:
        "200":
          description: ok
          headers:
            X-A: {required: true, schema: {type: string}}
            X-B: {schema: {type: string}}
            X-C: {schema: {type: string}}
          content:
            application/json: {schema: {type: object}}
            application/xml: {schema: {type: object}}
        "2XX": {description: ok, content: {application/json: {schema: {type: string}}}}
        "400": {description: bad}
  /b:
    post:
      requestBody:
        required: true
        content: {application/json: {schema: {type: object}}}
      responses:
        "200": {description: ok, content: {application/json: {schema: {type: integer}}}}
        default: {description: error, content: {application/json: {schema: {type: object}}}}
  /c:
    delete:
      parameters:
        - {name: id, in: query, schema: {type: string}}
      responses: {}
components:
  schemas:
    Old: {type: string}
    Kept: {type: string}
`)
	new := open(t, "new.yaml", `openapi: 3.0.3
paths:
  /a:
    get:
      parameters:
        - {name: q, in: query, required: true, schema: {type: string}}
        - {name: r, in: query, schema: {type: string}}
        - {name: s, in: query, required: true, schema: {type: string}}
        - {name: t, in: query, schema: {type: string}}
      requestBody:
        required: true
        content:
          application/json: {}
          text/plain: {schema: {type: string}}
          application/xml: {schema: {type: object}}
      responses:
        "200":
          description: ok
          headers:
            X-B: {required: true, schema: {type: string}}
            X-C: {schema: {type: string}}
            X-D: {schema: {type: string}}
          content:
            application/json: {schema: {type: object}}
        "201": {description: ok, content: {application/json: {schema: {type: string}}}}
        "404": {description: missing}
        "2XX": {description: ok, content: {application/json: {schema: {type: string}}}}
  /b:
    post:
      requestBody:
        content: {application/json: {schema: {type: object}}}
      responses:
        "200": {description: ok, content: {application/json: {schema: {type: integer}}}}
        "201": {description: ok, content: {application/json: {schema: {type: integer}}}}
        "503": {description: later, content: {application/json: {schema: {type: object}}}}
        default: {description: error, content: {application/json: {schema: {type: object}}}}
  /d:
    put:
      requestBody:
        required: true
        content: {application/json: {schema: {type: object}}}
      responses:
        "204": {description: ok}
  /e:
    put:
      requestBody:
        content: {application/json: {schema: {type: object}}}
      responses:
        "303": {description: see other}
components:
  schemas:
    Kept: {type: string}
    New: {type: string}
`)
	e := open(t, "e.yaml", "openapi: 3.0.3\npaths:\n  /e:\n    put:\n      responses: {}\n")
	want := []string{
		"component-added component schema New",
		"component-removed component schema Old",
		"header-added GET /a response 200 header X-D",
		"header-removed GET /a response 200 header X-A breaks forward",
		"header-required GET /a response 200 header X-B",
		"media-type-added GET /a request body application/xml",
		"media-type-removed GET /a response 200 application/xml",
		"operation-added PUT /d",
		"operation-added PUT /e",
		"operation-removed DELETE /c breaks backward",
		"pair GET /a parameter query q backward",
		"pair GET /a parameter query r backward",
		"pair GET /a request body text/plain backward",
		"pair GET /a response 200 application/json forward",
		"pair GET /a response 200 header X-B forward",
		"pair GET /a response 200 header X-C forward",
		"pair GET /a response 201 application/json forward via 2XX",
		"pair GET /a response 2XX application/json forward",
		"pair POST /b request body application/json backward",
		"pair POST /b response 200 application/json forward",
		"pair POST /b response 201 application/json forward via 200",
		"pair POST /b response 503 application/json forward via DEFAULT",
		"pair POST /b response default application/json forward",
		"pair component schema Kept ", // used by nothing: no direction
		"parameter-added GET /a parameter query s breaks backward",
		"parameter-added GET /a parameter query t",
		"parameter-optional GET /a parameter query r",
		"parameter-removed GET /a parameter query gone",
		"parameter-required GET /a parameter query q breaks backward",
		"request-body-optional POST /b request body",
		"request-body-required GET /a request body breaks backward",
		"response-added GET /a response 201",
		"response-added GET /a response 404",
		"response-added POST /b response 201",
		"response-added POST /b response 503",
		"response-removed GET /a response 400",
		"schema-added GET /a request body text/plain breaks backward",
		"schema-removed GET /a request body application/json",
	}
	// text/plain had no schema and got one: schema-added, not a pair; application/json lost
	// its schema: schema-removed
	want = without(want, "pair GET /a request body text/plain backward")
	if diff := cmp.Diff(want, matchLines(Match(old, new))); diff != "" {
		t.Errorf("old -> new (-want +got):\n%s", diff)
	}
	// success statuses nothing covers break forward; errors do not
	got := matchLines(Match(e, new))
	for _, w := range []string{"request-body-added PUT /e request body", "response-added PUT /e response 303 breaks forward"} {
		if !contains(got, w) {
			t.Errorf("e -> new lacks %q:\n%s", w, strings.Join(got, "\n"))
		}
	}
	got = matchLines(Match(new, e))
	for _, w := range []string{"request-body-removed PUT /e request body", "response-removed PUT /e response 303", "operation-removed PUT /d breaks backward"} {
		if !contains(got, w) {
			t.Errorf("new -> e lacks %q:\n%s", w, strings.Join(got, "\n"))
		}
	}
	d := open(t, "d.yaml", "openapi: 3.0.3\npaths:\n  /d:\n    put:\n      requestBody:\n        required: true\n        content: {application/json: {schema: {}}}\n      responses: {}\n")
	if got := matchLines(Match(e, d)); !contains(got, "operation-added PUT /d") {
		t.Errorf("e -> d: %v", got)
	}
	dr := open(t, "dr.yaml", "openapi: 3.0.3\npaths:\n  /e:\n    put:\n      requestBody:\n        required: true\n        content: {application/json: {schema: {}}}\n      responses: {}\n")
	if got := matchLines(Match(e, dr)); !contains(got, "request-body-added PUT /e request body breaks backward") {
		t.Errorf("e -> dr: %v", got)
	}
}

func TestMatchAsyncAPI(t *testing.T) {
	old := open(t, "old.yaml", `asyncapi: 3.0.0
channels:
  ch:
    messages:
      a: {payload: {type: string}, headers: {type: object}}
      b: {payload: {type: string}}
      c: {payload: {schemaFormat: application/vnd.apache.avro;version=1.9.0, schema: {type: record}}}
operations:
  in: {action: receive, channel: {$ref: '#/channels/ch'}}
  out: {action: send, channel: {$ref: '#/channels/ch'}}
components:
  messages:
    M: {payload: {type: string}}
`)
	new := open(t, "new.yaml", `asyncapi: 3.0.0
channels:
  ch:
    messages:
      a: {payload: {type: string}}
      c: {payload: {schemaFormat: application/vnd.apache.avro;version=1.9.0, schema: {type: record, name: C}}}
      d: {payload: {type: string}, headers: {type: object}}
operations:
  in: {action: receive, channel: {$ref: '#/channels/ch'}}
  out: {action: send, channel: {$ref: '#/channels/ch'}}
`)
	want := []string{
		"component-removed component message M",
		"message-added operation in (receive on channel ch) message d",
		"message-added operation out (send on channel ch) message d breaks forward",
		"message-removed operation in (receive on channel ch) message b breaks backward",
		"message-removed operation out (send on channel ch) message b",
		"not-compared operation in (receive on channel ch) message c payload",
		"not-compared operation out (send on channel ch) message c payload",
		"pair operation in (receive on channel ch) message a payload backward",
		"pair operation out (send on channel ch) message a payload forward",
		"schema-removed operation in (receive on channel ch) message a headers",
		"schema-removed operation out (send on channel ch) message a headers breaks forward",
	}
	if diff := cmp.Diff(want, matchLines(Match(old, new))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// a schema in a format jstk does not read, unchanged, is not reported
	if got := matchLines(Match(old, old)); len(got) != 6 {
		t.Errorf("old against itself: %v", got)
	}
	got := matchLines(Match(new, old))
	for _, w := range []string{"schema-added operation in (receive on channel ch) message a headers breaks backward",
		"schema-added operation out (send on channel ch) message a headers"} {
		if !contains(got, w) {
			t.Errorf("new -> old lacks %q:\n%s", w, strings.Join(got, "\n"))
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func without(list []string, s string) []string {
	var out []string
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}
