package bundle

import (
	"fmt"
	"io"
	"path"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/source"
)

// JSON returns the bundled schema as indented JSON text, ending with a newline. The
// slice must not be modified.
func (r *Result) JSON() []byte {
	if r.text == nil {
		r.text = append(source.AppendJSONIndent(nil, r.value, "", "  "), '\n')
	}
	return r.text
}

// YAML returns the bundled schema as YAML text. Numbers keep their exact literals, and
// strings that YAML would read as something else are quoted.
func (r *Result) YAML() ([]byte, error) {
	var sb strings.Builder
	// Lines are wrapped at 80 columns, except in a document nested deeper than
	// source.MaxIndentDepth: its deep part is in flow style, and wrapping would indent it.
	width := 80
	if deeperThan(r.value, source.MaxIndentDepth) {
		width = -1
	}
	enc, err := yaml.NewDumper(&sb, yaml.WithV3Defaults(), yaml.WithIndent(2), yaml.WithLineWidth(width))
	if err != nil {
		return nil, err
	}
	if err := enc.Dump(yamlNode(r.value, 0)); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return []byte(sb.String()), nil
}

// deeperThan reports whether v nests arrays and objects deeper than n levels, with a stack
// of its own.
func deeperThan(v source.Value, n int) bool {
	type item struct {
		v     source.Value
		depth int
	}
	stack := []item{{v, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.depth > n {
			return true
		}
		switch it.v.Kind() {
		case source.Array:
			for _, c := range it.v.Items() {
				stack = append(stack, item{c, it.depth + 1})
			}
		case source.Object:
			for i := 0; i < it.v.Len(); i++ {
				_, c := it.v.Member(i)
				stack = append(stack, item{c, it.depth + 1})
			}
		}
	}
	return false
}

// yamlNode converts v, at the given depth, to a YAML node: in block style down to
// source.MaxIndentDepth levels, in flow style below (as the JSON output stops indenting
// there). It recurses once per level of v, which the parsers bound.
func yamlNode(v source.Value, depth int) *yaml.Node {
	var style yaml.Style
	if depth >= source.MaxIndentDepth {
		style = yaml.FlowStyle
	}
	switch v.Kind() {
	case source.Object:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: style}
		for i := 0; i < v.Len(); i++ {
			k, val := v.Member(i)
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k.Str()}, yamlNode(val, depth+1))
		}
		return n
	case source.Array:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: style}
		for _, it := range v.Items() {
			n.Content = append(n.Content, yamlNode(it, depth+1))
		}
		return n
	case source.String:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v.Str()}
	case source.Number:
		tag := "!!int"
		if strings.ContainsAny(v.Str(), ".eE") {
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: v.Str()}
	case source.Bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(v.Bool())}
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
}

// WriteText prints the bundled schema as JSON (the CLI prints this on standard output),
// or nothing when it goes to an Output file.
func (r *Result) WriteText(w io.Writer) error {
	if r.Output != "" {
		return nil
	}
	_, err := w.Write(r.JSON())
	return err
}

// WriteFormat prints the bundled schema in a format of bundle's own: diag.YAML (nothing
// when it goes to an Output file).
func (r *Result) WriteFormat(w io.Writer, format string) error {
	if diag.Format(format) != diag.YAML {
		// The output is a document: the formats of findings only are not offered.
		return fmt.Errorf("bundle reports have no format %q (%s, %s)", format, diag.Join(diag.Common(true), ", "), diag.YAML)
	}
	if r.Output != "" {
		return nil
	}
	data, err := r.YAML()
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// Diagnostics lists the warnings.
func (r *Result) Diagnostics() []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, w := range r.Warnings {
		out = append(out, diag.Diagnostic{Code: "bundle/draft-mix", Severity: diag.Warning, Message: w})
	}
	return out
}

// ExitCode is 0: a bundle that could be made has no findings.
func (r *Result) ExitCode() int { return 0 }

// OutputData returns the bundle as the Output file holds it: YAML for .yaml and .yml
// names, JSON otherwise.
func (r *Result) OutputData() ([]byte, error) {
	switch strings.ToLower(path.Ext(r.Output)) {
	case ".yaml", ".yml":
		return r.YAML()
	}
	return r.JSON(), nil
}
