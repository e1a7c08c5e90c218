// Command jstk-diff-base checks that schema files have no breaking change against a git
// revision: for each file given, it runs `jstk diff --check` with the file as it is in the
// revision as OLD and the file as it is now as NEW. It is the entry of the pre-commit hook
// jstk-diff (.pre-commit-hooks.yaml), and works as well on its own:
//
//	jstk-diff-base [--base REV] [jstk diff flags...] FILE...
//
// REV is --base, else $PRE_COMMIT_FROM_REF (set by `pre-commit run --from-ref`), else HEAD
// (the last commit: in a pre-commit hook, the change being committed). A file that does not
// exist in REV is new and has nothing to break. The revision's versions are read with `git
// archive` of each file's directory into a temporary directory (its JSON and YAML files, and
// those below it), so that relative $refs of the old version reach the old versions of the
// files beside it. Flags other than --base go to
// jstk diff (--direction forward, --required-with-default compatible, ...).
//
// The exit status is jstk diff's worst: 0 no breaking change, 1 a change breaks the asked
// direction (or cannot be proved compatible), 2 could not run.
package main

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/jstk-dev/jstk/internal/cli"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], cli.OSStreams()))
}

// maxFile bounds each file read from the revision, as jstk bounds each document.
const maxFile = 256 << 20

func run(ctx context.Context, args []string, st cli.Streams) int {
	base := os.Getenv("PRE_COMMIT_FROM_REF")
	var flags, files []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--base" || a == "-base":
			if i+1 == len(args) {
				fmt.Fprintln(st.Stderr, "jstk-diff-base: --base needs a revision")
				return cli.ExitError
			}
			i++
			base = args[i]
		case strings.HasPrefix(a, "--base="):
			base = strings.TrimPrefix(a, "--base=")
		case a == "--check":
		case strings.HasPrefix(a, "-"):
			flags = append(flags, a)
			// jstk diff's flags that take a value.
			if (a == "--direction" || a == "--required-with-default" || a == "--format" || a == "--draft" || a == "--resolve") && i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
		default:
			files = append(files, a)
		}
	}
	if base == "" {
		base = "HEAD"
	}
	if len(files) == 0 {
		fmt.Fprintln(st.Stderr, "usage: jstk-diff-base [--base REV] [jstk diff flags] FILE...")
		return cli.ExitError
	}
	top, err := git("rev-parse", "--show-toplevel")
	if err != nil {
		fmt.Fprintf(st.Stderr, "jstk-diff-base: %v\n", err)
		return cli.ExitError
	}
	tmp, err := os.MkdirTemp("", "jstk-diff-base-")
	if err != nil {
		fmt.Fprintf(st.Stderr, "jstk-diff-base: %v\n", err)
		return cli.ExitError
	}
	defer os.RemoveAll(tmp)
	worst := cli.ExitOK
	exported := map[string]bool{}
	for _, f := range files {
		rel, err := repoPath(strings.TrimSpace(top), f)
		if err != nil {
			fmt.Fprintf(st.Stderr, "jstk-diff-base: %s: %v\n", f, err)
			worst = max(worst, cli.ExitError)
			continue
		}
		if _, err := git("cat-file", "-e", base+":"+rel); err != nil {
			fmt.Fprintf(st.Stderr, "jstk-diff-base: %s: new since %s, nothing to compare\n", f, base)
			continue
		}
		if dir := path.Dir(rel); !exported[dir] {
			if err := export(base, dir, tmp); err != nil {
				fmt.Fprintf(st.Stderr, "jstk-diff-base: %s: %v\n", f, err)
				worst = max(worst, cli.ExitError)
				continue
			}
			exported[dir] = true
		}
		old := filepath.Join(tmp, filepath.FromSlash(rel))
		fmt.Fprintf(st.Stdout, "== %s (%s -> now)\n", f, base)
		// The report names the old file as <base>:<path>, not by its temporary copy.
		var out, errOut bytes.Buffer
		code := cli.Main(ctx, append(append([]string{"diff", "--check"}, flags...), old, f),
			cli.Streams{Stdin: st.Stdin, Stdout: &out, Stderr: &errOut})
		name := strings.NewReplacer(tmp+string(filepath.Separator), base+":")
		name.WriteString(st.Stdout, out.String())
		name.WriteString(st.Stderr, errOut.String())
		worst = max(worst, code)
	}
	return worst
}

// repoPath is f's path from the top of the repository, with slashes.
func repoPath(top, f string) (string, error) {
	abs, err := filepath.Abs(f)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(real, filepath.Base(abs))
	}
	if real, err := filepath.EvalSymlinks(top); err == nil {
		top = real
	}
	rel, err := filepath.Rel(top, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", errors.New("not a file of the repository")
	}
	return filepath.ToSlash(rel), nil
}

// export writes the JSON and YAML files of dir (and below) as they are in rev under tmp,
// reading git archive's output as it comes.
func export(rev, dir, tmp string) error {
	var stderr bytes.Buffer
	cmd := exec.Command("git", "archive", "--format=tar", rev, "--", dir)
	cmd.Stderr = &stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	werr := extract(pipe, tmp)
	io.Copy(io.Discard, pipe)
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git archive %s -- %s: %v: %s", rev, dir, err, strings.TrimSpace(stderr.String()))
	}
	return werr
}

func extract(r io.Reader, tmp string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := path.Clean(h.Name)
		switch {
		case h.Typeflag != tar.TypeReg || h.Size > maxFile:
			continue
		case path.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../"):
			continue
		case !strings.HasSuffix(name, ".json") && !strings.HasSuffix(name, ".yaml") && !strings.HasSuffix(name, ".yml"):
			continue
		}
		dst := filepath.Join(tmp, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		data, err := io.ReadAll(io.LimitReader(tr, maxFile))
		if err != nil {
			return err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return err
		}
	}
}

func git(args ...string) (string, error) {
	var buf, stderr bytes.Buffer
	cmd := exec.Command("git", args...)
	cmd.Stdout = &buf
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return buf.String(), nil
}
