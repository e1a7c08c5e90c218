//go:build ignore

// v6.go is santhosh-tekuri/jsonschema v6 (the strongest Go validator, and a test dependency
// of jstk) as a command line for run.py: it compiles the schema and validates each line of
// an NDJSON file, as `jstk validate --schema` does, and exits 1 when a line is invalid or
// unreadable. Formats are not asserted (v6's default, and jstk's for 2019-09 and 2020-12).
//
//	go build -o /tmp/v6 scripts/smallbench/v6.go
//	python3 scripts/smallbench/run.py --dir /tmp/sb29 --rounds 7 jstk=./jstk v6=/tmp/v6
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: v6 schema.json data.jsonl")
		os.Exit(2)
	}
	abs, err := filepath.Abs(os.Args[1])
	if err != nil {
		fail(err)
	}
	c := jsonschema.NewCompiler()
	sch, err := c.Compile(abs)
	if err != nil {
		fail(err)
	}
	f, err := os.Open(os.Args[2])
	if err != nil {
		fail(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	bad := 0
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
		if err == nil {
			err = sch.Validate(inst)
		}
		if err != nil {
			bad++
		}
	}
	if err := sc.Err(); err != nil {
		fail(err)
	}
	if bad > 0 {
		fmt.Fprintf(os.Stderr, "%d invalid lines\n", bad)
		os.Exit(1)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(2)
}
