package lint

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/jstk-dev/jstk/internal/diag"
)

// Category groups rules by the kind of problem they find.
type Category string

// The categories, from the most to the least consequential.
const (
	// Correctness: the schema does not mean what its author surely meant (something is
	// ignored, unsatisfiable, unresolvable or invalid).
	Correctness Category = "correctness"
	// Redundancy: something has no effect and can go.
	Redundancy Category = "redundancy"
	// Portability: other validators or other drafts may read it differently.
	Portability Category = "portability"
	// Documentation: titles, descriptions, examples and comments.
	Documentation Category = "documentation"
	// Style: a simpler or more idiomatic way to say the same thing.
	Style Category = "style"
)

// Categories lists the categories in order.
var Categories = []Category{Correctness, Redundancy, Portability, Documentation, Style}

// Rule is one entry of the rule table: what it finds, why it matters, an example of each
// side, and the check itself.
type Rule struct {
	// ID is the stable kebab-case identifier; diagnostics carry "lint/<ID>".
	ID string
	// Category is the kind of problem.
	Category Category
	// Severity is the default severity.
	Severity diag.Severity
	// OptIn rules are off unless enabled in the configuration.
	OptIn bool
	// Summary is one line saying what the rule finds.
	Summary string
	// Explanation is a paragraph saying why it matters and what to do.
	Explanation string
	// Bad is a schema (JSON) the rule reports; Good is the same intent written so that it
	// does not.
	Bad, Good string
	// Fixable rules propose edits that provably keep the set of valid instances.
	Fixable bool
	// Peer lists the rules of the sourcemeta JSON Schema CLI (v16) whose problem class this
	// rule covers.
	Peer []string

	node  func(c *checker, n *node) // runs on every schema of a document
	file  func(c *checker)          // runs once per document
	cross bool                      // reported across documents (by Run)
}

// Code is the diagnostic code of the rule.
func (r *Rule) Code() string { return "lint/" + r.ID }

// The rule table, built on first use (loadRules) rather than at package initialisation:
// most commands never lint, and every run of jstk would pay for it.
var (
	rulesOnce sync.Once
	rules     []*Rule
	byID      map[string]*Rule
	peerOf    map[string]string
)

// loadRules builds the rule table once; everything that reads rules, byID or peerOf
// outside a lint run calls it first.
func loadRules() {
	rulesOnce.Do(func() {
		byID, peerOf = map[string]*Rule{}, map[string]string{}
		correctnessRules()
		documentationRules()
		keywordRules()
		redundancyRules()
	})
}

// addRules registers rules; each rules_*.go file adds its own.
func addRules(rs ...*Rule) {
	for _, r := range rs {
		if _, dup := byID[r.ID]; dup {
			panic("lint: duplicate rule " + r.ID)
		}
		byID[r.ID] = r
		rules = append(rules, r)
		for _, p := range r.Peer {
			peerOf[p] = r.ID
		}
	}
	sort.Slice(rules, func(i, j int) bool {
		if ci, cj := catIndex(rules[i].Category), catIndex(rules[j].Category); ci != cj {
			return ci < cj
		}
		return rules[i].ID < rules[j].ID
	})
}

func catIndex(c Category) int {
	for i, x := range Categories {
		if x == c {
			return i
		}
	}
	return len(Categories)
}

// Rules returns the rule table, ordered by category and id. The slice must not be
// modified.
func Rules() []*Rule {
	loadRules()
	return rules
}

// Lookup finds a rule by id.
func Lookup(id string) (*Rule, bool) {
	loadRules()
	r, ok := byID[id]
	return r, ok
}

// DiagRules describes the rules for SARIF output.
func DiagRules() []diag.Rule {
	loadRules()
	out := make([]diag.Rule, 0, len(rules))
	for _, r := range rules {
		out = append(out, diag.Rule{Code: r.Code(), Description: r.Summary, Severity: r.Severity})
	}
	return out
}

// Setting is how a configuration sets a rule: "off", "on" (its default severity), or a
// severity ("error", "warning", "info").
type Setting = string

// resolveSettings computes the severity of every enabled rule from settings keyed by rule
// id, category or "all". More specific keys win: a rule id over its category over "all".
func resolveSettings(settings map[string]Setting) (map[string]diag.Severity, error) {
	loadRules()
	out := map[string]diag.Severity{}
	for _, r := range rules {
		if !r.OptIn {
			out[r.ID] = r.Severity
		}
	}
	apply := func(r *Rule, s Setting) error {
		switch strings.ToLower(s) {
		case "off":
			delete(out, r.ID)
		case "on":
			out[r.ID] = r.Severity
		default:
			sev, ok := diag.ParseSeverity(s)
			if !ok {
				return fmt.Errorf("rule setting %q: use off, on, error, warning or info", s)
			}
			out[r.ID] = sev
		}
		return nil
	}
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, level := range []int{0, 1, 2} {
		for _, k := range keys {
			var targets []*Rule
			switch {
			case level == 0 && k == "all":
				targets = rules
			case level == 1 && catIndex(Category(k)) < len(Categories):
				for _, r := range rules {
					if string(r.Category) == k {
						targets = append(targets, r)
					}
				}
			case level == 2:
				if r, ok := byID[k]; ok {
					targets = []*Rule{r}
				} else if id, ok := peerOf[strings.ReplaceAll(k, "-", "_")]; ok {
					targets = []*Rule{byID[id]}
				} else if k != "all" && catIndex(Category(k)) == len(Categories) {
					return nil, fmt.Errorf("unknown lint rule %q (run 'jstk lint --list' for the rules)", k)
				}
			}
			for _, r := range targets {
				if err := apply(r, settings[k]); err != nil {
					return nil, fmt.Errorf("%s: %v", k, err)
				}
			}
		}
	}
	return out, nil
}
