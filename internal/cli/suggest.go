package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
)

// closest returns the candidate nearest to word, when one is near enough to be what was
// meant: one that word begins (of three letters or more), else one within an edit distance
// of a third of its length (at least 1, at most 3), else one that word (of four letters or
// more) is part of. "" when none is.
func closest(word string, candidates []string) string {
	w := strings.ToLower(word)
	best, bestScore := "", 0.0
	for _, c := range candidates {
		lc := strings.ToLower(c)
		score := -1.0
		switch {
		case lc == w:
			score = 0
		case len(w) >= 3 && strings.HasPrefix(lc, w):
			score = 1 + float64(len(lc)-len(w))/100
		default:
			if d := editDistance(w, lc); d <= min(max(1, len(lc)/3), 3) {
				score = 1 + float64(d)
			} else if len(w) >= 4 && strings.Contains(lc, w) {
				score = 5
			}
		}
		if score >= 0 && (best == "" || score < bestScore || score == bestScore && c < best) {
			best, bestScore = c, score
		}
	}
	return best
}

// editDistance is the Damerau-Levenshtein distance (optimal string alignment) of a and b,
// in bytes: a swap of two neighbours counts one.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// didYouMean is "; did you mean X?" for the candidate closest to word, or "".
func didYouMean(word string, candidates []string, format string) string {
	if c := closest(word, candidates); c != "" {
		return "; did you mean " + fmt.Sprintf(format, c) + "?"
	}
	return ""
}

// lazyRegexp is a pattern compiled on its first use, not at the start of every command.
type lazyRegexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.expr) })
	return l.re
}

// The errors of the flag package, which name flags with one dash.
var (
	flagUndefined = &lazyRegexp{expr: `^flag provided but not defined: -+(.*)$`}
	flagNoValue   = &lazyRegexp{expr: `^flag needs an argument: -+(.*)$`}
	flagBadBool   = &lazyRegexp{expr: `^invalid boolean value "(.*)" for -+([^:]*): .*$`}
	flagBadValue  = &lazyRegexp{expr: `(?s)^invalid value "(.*)" for flag -+([^:]*): (.*)$`}
	flagBadSyntax = &lazyRegexp{expr: `^bad flag syntax: (.*)$`}
)

// flagError rewrites an error of fs.Parse in the command line's words: flags named with
// two dashes, and the closest flag offered for an unknown one.
// renamedFlags maps the old names of renamed flags to their new ones, so that a script
// written for an older jstk is told what to write.
func renamedFlags() map[string]string {
	return map[string]string{
		"any-of": "alternatives", // infer: an input named like a JSON Schema keyword confuses schema sanitisers
	}
}

func flagError(err error, fs *flag.FlagSet) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	msg := err.Error()
	dashes := func(name string) string {
		if len(name) == 1 {
			return "-" + name
		}
		return "--" + name
	}
	if m := flagUndefined.get().FindStringSubmatch(msg); m != nil {
		var names []string
		fs.VisitAll(func(f *flag.Flag) {
			if len(f.Name) > 1 {
				names = append(names, f.Name)
			}
		})
		sort.Strings(names)
		name, _, _ := strings.Cut(m[1], "=")
		if now, ok := renamedFlags()[name]; ok && slices.Contains(names, now) {
			return fmt.Errorf("unknown flag %s: it was renamed --%s", dashes(name), now)
		}
		return fmt.Errorf("unknown flag %s%s", dashes(name), didYouMean(name, names, "--%s"))
	}
	if m := flagNoValue.get().FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s needs a value", dashes(m[1]))
	}
	if m := flagBadBool.get().FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s takes no value (or true or false), not %q", dashes(m[2]), m[1])
	}
	if m := flagBadValue.get().FindStringSubmatch(msg); m != nil {
		why := m[3]
		if why == "parse error" {
			why = "not a whole number"
		} else if why == "value out of range" {
			why = "out of range"
		}
		return fmt.Errorf("%s %q: %s", dashes(m[2]), m[1], why)
	}
	if m := flagBadSyntax.get().FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("bad flag syntax: %s", m[1])
	}
	return err
}

// flagArgs names the values of flags whose usage does not name them in backquotes.
func flagArgs() map[string]string {
	return map[string]string{
		"max-size": "SIZE", "max-memory": "SIZE", "max-depth": "N", "max-alias-nodes": "N", "max-ref-depth": "N", "timeout": "DURATION",
		"regex-budget": "DURATION", "drain": "DURATION", "page-size": "N", "max-calls": "N", "max-result-bytes": "N", "root": "DIR",
		"expose": "TOOLS", "exclude": "TOOLS",
	}
}

// printFlags prints the flags of fs in the style of every command's help: "--name VALUE",
// then the usage, indented, with the default when it is not zero and the usage does not
// say it. One-letter flags that stand for a longer one are shown beside it.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	short := map[string]string{} // long name -> one-letter alias
	fs.VisitAll(func(f *flag.Flag) {
		if len(f.Name) == 1 {
			fs.VisitAll(func(g *flag.Flag) {
				if len(g.Name) > 1 && g.Usage == f.Usage && reflect.TypeOf(g.Value) == reflect.TypeOf(f.Value) {
					short[g.Name] = f.Name
				}
			})
		}
	})
	args := flagArgs()
	fs.VisitAll(func(f *flag.Flag) {
		if len(f.Name) == 1 && f.Usage != "" {
			for _, s := range short {
				if s == f.Name {
					return
				}
			}
		}
		name, usage := flag.UnquoteUsage(f)
		if a, ok := args[f.Name]; ok {
			name = a
		} else if name != "" {
			name = strings.ToUpper(name)
		}
		if name == "STRING" || name == "VALUE" {
			name = "VALUE"
		}
		names := "--" + f.Name
		if s, ok := short[f.Name]; ok {
			names = "-" + s + ", " + names
		}
		if name != "" {
			names += " " + name
		}
		if d := f.DefValue; !strings.Contains(usage, "(default") && d != "" && d != "0" && d != "false" && d != "[]" {
			usage += fmt.Sprintf(" (default %s)", d)
		}
		fmt.Fprintf(w, "  %s\n      %s\n", names, wrap(usage, 90))
	})
}
