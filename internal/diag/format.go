package diag

import (
	"slices"
	"strings"
)

// Format is an output format.
type Format string

// The output formats: the first four every command prints (Write), the others a tool's
// reports print themselves (junit for test, lcov for coverage, yaml for bundle).
const (
	Text   Format = "text"
	JSON   Format = "json"
	SARIF  Format = "sarif"
	GitHub Format = "github"
	JUnit  Format = "junit"
	LCOV   Format = "lcov"
	YAML   Format = "yaml"
)

// FormatInfo describes an output format.
type FormatInfo struct {
	// Format is its name, the value of --format.
	Format Format
	// Summary says what it prints, for help.
	Summary string
	// Findings is true for formats that carry only the findings of a report (sarif,
	// github): a command that prints a document (a schema, instances) has none.
	Findings bool
	// Own is true for a format that only some tools print, each report its own way (see
	// tools.Formatter); Write does not know it.
	Own bool
}

// formats is THE list of output formats: help, the checking of --format and the
// descriptors' own formats read it.
var formats = []FormatInfo{
	{Format: Text, Summary: "the human report"},
	{Format: JSON, Summary: "the report as JSON (MCP's structuredContent)"},
	{Format: SARIF, Summary: "the findings as SARIF 2.1.0", Findings: true},
	{Format: GitHub, Summary: "the findings as GitHub workflow annotations", Findings: true},
	{Format: JUnit, Summary: "test results as JUnit XML", Own: true},
	{Format: LCOV, Summary: "coverage as an LCOV tracefile", Own: true},
	{Format: YAML, Summary: "a document as YAML", Own: true},
}

// Formats returns every output format, those of Write first.
func Formats() []FormatInfo { return slices.Clone(formats) }

// LookupFormat returns the description of a format.
func LookupFormat(f Format) (FormatInfo, bool) {
	for _, fi := range formats {
		if fi.Format == f {
			return fi, true
		}
	}
	return FormatInfo{}, false
}

// Common returns the formats every command prints through Write; for a command whose
// output is a document, those that are not findings only.
func Common(document bool) []Format {
	var out []Format
	for _, fi := range formats {
		if !fi.Own && (!document || !fi.Findings) {
			out = append(out, fi.Format)
		}
	}
	return out
}

// Join names formats in a list: "text, json, sarif, github" with sep ", ".
func Join(fs []Format, sep string) string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = string(f)
	}
	return strings.Join(s, sep)
}
