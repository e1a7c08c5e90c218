// Command oasdiff-compare runs oasdiff and jstk side by side on the OpenAPI pairs of
// internal/openapi/testdata/pairs and checks the promise of jstk's comparison of documents:
// every request or response schema break oasdiff reports, jstk reports in the same
// direction at the same operation (a request break backward, a response break forward), or
// explained.txt beside this file says, with an instance, why oasdiff is wrong. It prints
// the table of BENCHMARKS.md (both tools' verdicts and median wall times per pair).
//
// It installs oasdiff from the Go module proxy (go install, into a temporary directory;
// nothing is written in the repository). When oasdiff cannot be fetched it says so and
// exits 0, unless -require is given.
//
//	go run ./scripts/oasdiff-compare [-oasdiff v1.37.0] [-runs 5] [-require]
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/jstk-dev/jstk/internal/openapi/fixture"
)

func main() {
	version := flag.String("oasdiff", "v1.37.0", "the oasdiff version to install from the module proxy")
	runs := flag.Int("runs", 5, "runs of each tool per pair; the median wall time is reported")
	require := flag.Bool("require", false, "fail when oasdiff cannot be installed")
	flag.Parse()
	os.Exit(run(*version, *runs, *require))
}

func run(version string, runs int, require bool) int {
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "oasdiff-compare:", err)
		return 2
	}
	tmp, err := os.MkdirTemp("", "oasdiff-compare")
	if err != nil {
		fmt.Fprintln(os.Stderr, "oasdiff-compare:", err)
		return 2
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "bin")
	install := exec.Command("go", "install", "github.com/oasdiff/oasdiff@"+version)
	install.Env = append(os.Environ(), "GOBIN="+bin, "GOFLAGS=-mod=mod")
	install.Dir = tmp
	if out, err := install.CombinedOutput(); err != nil {
		fmt.Printf("oasdiff-compare: skipped: oasdiff %s cannot be installed from the module proxy: %v\n%s", version, err, tail(out))
		if require {
			return 2
		}
		return 0
	}
	jstk := filepath.Join(tmp, "jstk")
	build := exec.Command("go", "build", "-o", jstk, "./cmd/jstk")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "oasdiff-compare: building jstk: %v\n%s", err, out)
		return 2
	}
	pairs, err := fixture.Read(filepath.Join(root, fixture.Dir))
	if err != nil {
		fmt.Fprintln(os.Stderr, "oasdiff-compare:", err)
		return 2
	}
	explained, err := readExplained(filepath.Join(root, "scripts", "oasdiff-compare", "explained.txt"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "oasdiff-compare:", err)
		return 2
	}
	oasdiff := filepath.Join(bin, "oasdiff")
	fmt.Printf("oasdiff %s and jstk on %s (median of %d runs each)\n\n", version, fixture.Dir, runs)
	fmt.Println("| pair | oasdiff: request/response schema breaks | jstk: breaking locations and API changes | agree | oasdiff ms | jstk ms |")
	fmt.Println("|---|---|---|---|---:|---:|")
	failed, compared := 0, 0
	var totalO, totalJ time.Duration
	for _, p := range pairs {
		if !isOpenAPI(p.Files[p.Old]) {
			continue // oasdiff reads OpenAPI only
		}
		dir := filepath.Join(tmp, p.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "oasdiff-compare:", err)
			return 2
		}
		for name, text := range p.Files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				fmt.Fprintln(os.Stderr, "oasdiff-compare:", err)
				return 2
			}
		}
		oOut, oTime, err := timed(runs, dir, oasdiff, "breaking", "--format", "json", p.Old, p.New)
		if err != nil {
			fmt.Fprintf(os.Stderr, "oasdiff-compare: %s: oasdiff: %v\n%s", p.Name, err, oOut)
			return 2
		}
		jOut, jTime, err := timed(runs, dir, jstk, "diff", "--format", "json", p.Old, p.New)
		if err != nil {
			fmt.Fprintf(os.Stderr, "oasdiff-compare: %s: jstk: %v\n%s", p.Name, err, jOut)
			return 2
		}
		compared++
		totalO += oTime
		totalJ += jTime
		obreaks, err := oasdiffBreaks(oOut)
		if err != nil {
			fmt.Fprintf(os.Stderr, "oasdiff-compare: %s: reading oasdiff's output: %v\n", p.Name, err)
			return 2
		}
		jbreaks, err := jstkBreaks(jOut)
		if err != nil {
			fmt.Fprintf(os.Stderr, "oasdiff-compare: %s: reading jstk's output: %v\n", p.Name, err)
			return 2
		}
		agree, misses := "yes", []string{}
		for _, b := range obreaks {
			if b.dir == "" {
				continue // not a schema break (an operation removed, a status code...)
			}
			if jbreaks[b.op+" "+b.dir] {
				continue
			}
			key := p.Name + " " + b.id
			if ex, ok := explained[key]; ok {
				if err := ex.verify(jstk, dir, p.Old, p.New); err != nil {
					agree = "**no**"
					misses = append(misses, b.id+": the explanation does not hold: "+err.Error())
					failed++
					continue
				}
				agree = "explained"
				misses = append(misses, b.id+": "+ex.why)
				continue
			}
			agree = "**no**"
			misses = append(misses, b.id+" at "+b.op+" ("+b.dir+") not reported by jstk")
			failed++
		}
		fmt.Printf("| %s | %s | %s | %s | %.1f | %.1f |\n", p.Name, listO(obreaks), listJ(jbreaks), agree,
			float64(oTime.Microseconds())/1000, float64(jTime.Microseconds())/1000)
		for _, m := range misses {
			fmt.Fprintf(os.Stderr, "%s: %s\n", p.Name, m)
		}
	}
	fmt.Printf("\n%d OpenAPI pairs; total of the medians: oasdiff %.0f ms, jstk %.0f ms\n", compared,
		float64(totalO.Microseconds())/1000, float64(totalJ.Microseconds())/1000)
	if failed > 0 {
		fmt.Printf("%d request/response schema breaks oasdiff reports are neither reported by jstk nor explained\n", failed)
		return 1
	}
	fmt.Println("every request/response schema break oasdiff reports, jstk reports in the same direction (or it is explained)")
	return 0
}

// moduleRoot finds the directory of go.mod from the working directory up.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

func tail(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return strings.Join(lines, "\n") + "\n"
}

// timed runs a command runs times in dir and returns its output and the median wall time.
// Exit status 1 is not an error (a breaking change found).
func timed(runs int, dir, name string, args ...string) ([]byte, time.Duration, error) {
	var times []time.Duration
	var out []byte
	for range max(runs, 1) {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		err := cmd.Run()
		times = append(times, time.Since(start))
		if ee, ok := err.(*exec.ExitError); err != nil && !(ok && ee.ExitCode() == 1) {
			return append(stdout.Bytes(), stderr.Bytes()...), 0, err
		}
		out = stdout.Bytes()
	}
	slices.Sort(times)
	return out, times[len(times)/2], nil
}

// oBreak is a change oasdiff reports at level WARN or ERR.
type oBreak struct {
	id, op, dir string // dir: backward for a request schema, forward for a response schema, "" otherwise
}

func oasdiffBreaks(out []byte) ([]oBreak, error) {
	var changes []struct {
		ID        string `json:"id"`
		Level     int    `json:"level"`
		Operation string `json:"operation"`
		Path      string `json:"path"`
	}
	if len(bytes.TrimSpace(out)) == 0 {
		return nil, nil
	}
	if err := json.Unmarshal(out, &changes); err != nil {
		return nil, err
	}
	var bs []oBreak
	for _, c := range changes {
		if c.Level < 2 {
			continue
		}
		b := oBreak{id: c.ID, op: c.Operation + " " + normPath(c.Path)}
		switch {
		case schemaRule(c.ID, "request"):
			b.dir = "backward"
		case schemaRule(c.ID, "response"):
			b.dir = "forward"
		}
		bs = append(bs, b)
	}
	return bs, nil
}

// schemaRule tells oasdiff's rules about the schemas of requests or responses (their
// bodies, properties, parameters and headers) from the others (paths, operations, status
// codes, media types, security).
func schemaRule(id, side string) bool {
	if !strings.Contains(id, side) {
		return false
	}
	for _, w := range []string{"property", "body", "parameter", "header"} {
		if strings.Contains(id, w) {
			return !strings.Contains(id, "media-type") && !strings.HasSuffix(id, side+"-body-added") && !strings.Contains(id, "status")
		}
	}
	return false
}

// jstkBreaks lists "OPERATION DIRECTION" for every request or response location jstk finds
// not compatible in its direction (components are judged where they are used), and every
// change of the API that breaks clients.
func jstkBreaks(out []byte) (map[string]bool, error) {
	var r struct {
		Changes []struct {
			Kind      string   `json:"kind"`
			Location  string   `json:"location"`
			Breaks    []string `json:"breaks"`
			Direction string   `json:"direction"`
		} `json:"changes"`
		Document *struct {
			Locations []struct {
				Location  string `json:"location"`
				Direction string `json:"direction"`
				Verdict   string `json:"verdict"`
				Checked   bool   `json:"checked"`
			} `json:"locations"`
		} `json:"document"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return nil, err
	}
	bs := map[string]bool{}
	if r.Document == nil {
		return bs, nil
	}
	for _, l := range r.Document.Locations {
		if l.Verdict != "compatible" && l.Checked {
			for _, d := range strings.Split(strings.ReplaceAll(l.Direction, "full", "backward forward"), " ") {
				bs[operation(l.Location)+" "+d] = true
			}
		}
	}
	for _, c := range r.Changes {
		if strings.HasPrefix(c.Location, "component ") {
			continue
		}
		for _, d := range c.Breaks {
			if d == c.Direction || c.Direction == "full" {
				bs[operation(c.Location)+" "+d] = true
			}
		}
	}
	return bs, nil
}

// operation is the "METHOD /path" a jstk location begins with, its path template's
// parameter names left out.
func operation(loc string) string {
	f := strings.Fields(loc)
	if len(f) < 2 {
		return loc
	}
	if f[0] == "webhook" && len(f) > 2 {
		return f[1] + " " + f[2]
	}
	return f[0] + " " + normPath(f[1])
}

func normPath(p string) string {
	var sb strings.Builder
	depth := 0
	for _, r := range p {
		switch {
		case r == '{':
			depth++
			sb.WriteString("{")
		case r == '}':
			depth--
			sb.WriteString("}")
		case depth == 0:
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

func listO(bs []oBreak) string {
	var out []string
	for _, b := range bs {
		s := b.id
		if b.dir != "" {
			s += " (" + b.dir + ")"
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

func listJ(bs map[string]bool) string {
	var out []string
	for k := range bs {
		out = append(out, k)
	}
	sort.Strings(out)
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

func isOpenAPI(text string) bool {
	t := strings.TrimSpace(text)
	return strings.HasPrefix(t, "openapi:") || strings.HasPrefix(strings.ReplaceAll(t, " ", ""), `{"openapi"`)
}

// explanation says why a break oasdiff reports does not happen: an instance it claims the
// new version refuses (or the old one never sent) that both versions' schemas at a
// pointer accept.
type explanation struct {
	instance, pointer, why string
}

// verify checks the instance against the schema at the pointer in both documents with
// jstk validate: both must accept it.
func (e explanation) verify(jstk, dir, old, new string) error {
	if err := os.WriteFile(filepath.Join(dir, "instance.json"), []byte(e.instance), 0o644); err != nil {
		return err
	}
	for _, doc := range []string{old, new} {
		cmd := exec.Command(jstk, "validate", "--schema", doc+"#"+e.pointer, "instance.json")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s is not valid under %s#%s: %s", e.instance, doc, e.pointer, strings.TrimSpace(string(out)))
		}
	}
	return nil
}

// readExplained reads "PAIR RULE-ID: INSTANCE @ POINTER: why oasdiff is wrong" lines: the
// instance (JSON, on one line) is valid under the schema at POINTER in both documents.
func readExplained(path string) (map[string]explanation, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return map[string]explanation{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]explanation{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, rest, ok1 := strings.Cut(line, ": ")
		inst, rest, ok2 := strings.Cut(rest, " @ ")
		ptr, why, ok3 := strings.Cut(rest, ": ")
		if !ok1 || !ok2 || !ok3 || !json.Valid([]byte(inst)) {
			return nil, fmt.Errorf("%s: %q: expected PAIR RULE-ID: INSTANCE @ POINTER: WHY", path, line)
		}
		out[key] = explanation{instance: inst, pointer: ptr, why: why}
	}
	return out, sc.Err()
}
