package diag

import (
	"io"
	"net/url"
	"path/filepath"
)

// SARIF 2.1.0, the subset code-scanning services read.

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules,omitempty"`
}

type sarifRule struct {
	ID                   string       `json:"id"`
	ShortDescription     sarifMessage `json:"shortDescription"`
	DefaultConfiguration sarifConfig  `json:"defaultConfiguration"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID           string          `json:"ruleId,omitempty"`
	Level            string          `json:"level"`
	Message          sarifMessage    `json:"message"`
	Locations        []sarifLocation `json:"locations,omitempty"`
	RelatedLocations []sarifLocation `json:"relatedLocations,omitempty"`
}

type sarifLocation struct {
	ID               int            `json:"id,omitempty"`
	PhysicalLocation *sarifPhysical `json:"physicalLocation,omitempty"`
	LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
	Message          *sarifMessage  `json:"message,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

type sarifLogical struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
}

func sarifLevel(s Severity) string {
	switch s {
	case Warning:
		return "warning"
	case Info:
		return "note"
	}
	return "error"
}

func sarifURI(file string) string {
	return (&url.URL{Path: filepath.ToSlash(file)}).String()
}

func sarifLoc(file string, line, col int, ptr string) sarifLocation {
	var loc sarifLocation
	if file != "" {
		loc.PhysicalLocation = &sarifPhysical{ArtifactLocation: sarifArtifact{URI: sarifURI(file)}}
		if line > 0 {
			loc.PhysicalLocation.Region = &sarifRegion{StartLine: line, StartColumn: col}
		}
	}
	if ptr != "" {
		loc.LogicalLocations = []sarifLogical{{FullyQualifiedName: ptr}}
	}
	return loc
}

// WriteSARIF prints diagnostics as a SARIF 2.1.0 log with one run.
func WriteSARIF(w io.Writer, tool Tool, ds []Diagnostic) error {
	run := sarifRun{Tool: sarifTool{Driver: sarifDriver{Name: tool.Name, Version: tool.Version, InformationURI: tool.URI}}}
	for _, r := range tool.Rules {
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{
			ID: r.Code, ShortDescription: sarifMessage{r.Description}, DefaultConfiguration: sarifConfig{sarifLevel(r.Severity)},
		})
	}
	run.Results = []sarifResult{}
	for _, d := range ds {
		res := sarifResult{RuleID: d.Code, Level: sarifLevel(d.Severity), Message: sarifMessage{d.Message}}
		if d.File != "" || d.Pointer != "" {
			res.Locations = []sarifLocation{sarifLoc(d.File, d.Line, d.Column, d.Pointer)}
		}
		for i, rel := range d.Related {
			loc := sarifLoc(rel.File, rel.Line, rel.Column, rel.Pointer)
			loc.ID = i + 1
			loc.Message = &sarifMessage{rel.Message}
			res.RelatedLocations = append(res.RelatedLocations, loc)
		}
		run.Results = append(run.Results, res)
	}
	return WriteJSON(w, sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs:    []sarifRun{run},
	})
}
