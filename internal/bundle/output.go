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
	enc := yaml.NewEncoder(&sb)
	enc.SetIndent(2)
	if err := enc.Encode(yamlNode(r.value)); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return []byte(sb.String()), nil
}

func yamlNode(v source.Value) *yaml.Node {
	switch v.Kind() {
	case source.Object:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for i := 0; i < v.Len(); i++ {
			k, val := v.Member(i)
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k.Str()}, yamlNode(val))
		}
		return n
	case source.Array:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, it := range v.Items() {
			n.Content = append(n.Content, yamlNode(it))
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

// WriteFormat prints the bundled schema in a format of bundle's own: yaml (nothing when
// it goes to an Output file).
func (r *Result) WriteFormat(w io.Writer, format string) error {
	if format != "yaml" {
		return fmt.Errorf("bundle cannot print %q", format)
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
