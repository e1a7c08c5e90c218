package e2e

import (
	"bytes"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestExampleClient runs examples/mcp-client (the repository's example of an SDK client)
// against the binary under test, from the repository root as its doc comment says.
func TestExampleClient(t *testing.T) {
	needTool(t, "validate")
	cmd := exec.Command("go", "run", "./examples/mcp-client", "-jstk", jstkBin, "-root", "examples")
	cmd.Dir = "../.."
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go run ./examples/mcp-client: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	// The shipped examples hold invalid orders on purpose; the report and the verdict agree.
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`connected, protocol version ` + modernEra),
		regexp.MustCompile(`(?m)^  validate +Validate`),
		regexp.MustCompile(`(?m)^orders-with-errors\.ndjson:\d+:\d+: /`),
		regexp.MustCompile(`(?m)^(\d+) instances: (\d+) valid, (\d+) invalid, (\d+) unreadable\n\nstructured verdict: valid=false total=(\d+) valid=(\d+) invalid=(\d+) unreadable=(\d+) \(run [A-Z2-7]{26}\)$`),
	} {
		if !want.MatchString(stdout.String()) {
			t.Errorf("the example's output does not match %s:\n%s", want, stdout.String())
		}
	}
	m := regexp.MustCompile(`(\d+) instances: (\d+) valid, (\d+) invalid, (\d+) unreadable\n\nstructured verdict: valid=false total=(\d+) valid=(\d+) invalid=(\d+) unreadable=(\d+)`).FindStringSubmatch(stdout.String())
	if m != nil && strings.Join(m[1:5], ",") != strings.Join(m[5:9], ",") {
		t.Errorf("the text report counts %v, the structured verdict %v", m[1:5], m[5:9])
	}
}
