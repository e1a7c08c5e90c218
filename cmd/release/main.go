// Command release builds a jstk release from the commit checked out, reproducibly: the same
// commit gives the same bytes, whoever builds it and whenever.
//
//	go run ./cmd/release [-o dist] [-targets linux/amd64,...] [-allow-dirty]
//	go run ./cmd/release -verify dist
//	go run ./cmd/release -action-digests dist
//
// It cross-compiles jstk for every target of manifest.Platforms (linux, darwin and windows on
// amd64 and arm64) with CGO_ENABLED=0, -trimpath, no build id, and the version
// (manifest.Version), commit and commit date stamped with -ldflags: nothing comes from the
// clock or the machine. It writes into the output directory, which must not exist or be
// empty:
//
//	jstk_<version>_<os>_<arch>.tar.gz (.zip for windows)  the binary, LICENSE, README.md
//	SHA256SUMS                                          the archives' digests
//	server.json                                         the MCP Registry entry
//	npm/json-schema-toolkit/                            the npm launcher package
//	npm/json-schema-toolkit-<os>-<cpu>/                 one package per platform's binary
//
// Archive members are in name order, dated with the commit's date and owned by nobody, so two
// runs on one commit give byte-identical archives (.ci/run builds twice and compares). A tree
// with uncommitted changes is refused (-allow-dirty builds it anyway, stamped
// "<commit>+modified"), and so is a commit tagged v<X> when X is not manifest.Version.
//
// -action-digests writes the release's SHA256SUMS, checked against its archives, to
// action/digests/<version>.sha256, the digests the GitHub Action carries and checks the
// archive it downloads against (a replaced release is refused, not only a corrupt one). The
// binaries name the commit they were built from, so the file is committed after the build:
// the tag v<version> goes on that commit, which differs from the built one by that file only.
//
// A small program rather than GoReleaser: it needs nothing beyond the Go toolchain, works
// offline, and the npm packages and server.json come from the same code (internal/manifest)
// that the tests check.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/jstk-dev/jstk/internal/manifest"
	"github.com/jstk-dev/jstk/internal/release"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "release: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	out := fs.String("o", "dist", "write the release into this directory (it must not exist, or be empty)")
	targets := fs.String("targets", "", "build only these targets, as os/arch,... (default: all six)")
	allowDirty := fs.Bool("allow-dirty", false, "build a tree with uncommitted changes (stamped <commit>+modified)")
	verify := fs.String("verify", "", "check the archives of the release in this directory against its SHA256SUMS, and build nothing")
	actionDigests := fs.String("action-digests", "", "check the archives of the release in this directory against its SHA256SUMS and write those digests where the GitHub Action reads them (action/digests/<version>.sha256), and build nothing")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *actionDigests != "" {
		return writeActionDigests(*actionDigests)
	}
	if *verify != "" {
		sums, err := os.ReadFile(filepath.Join(*verify, "SHA256SUMS"))
		if err != nil {
			return err
		}
		names, err := release.VerifyChecksums(sums, func(name string) ([]byte, error) {
			return os.ReadFile(filepath.Join(*verify, name))
		})
		if err != nil {
			return err
		}
		fmt.Printf("%d archives match SHA256SUMS\n", len(names))
		return nil
	}
	platforms, err := selectPlatforms(*targets)
	if err != nil {
		return err
	}
	root, err := git("rev-parse", "--show-toplevel")
	if err != nil {
		return err
	}
	if err := os.Chdir(root); err != nil {
		return err
	}
	st, err := stamp(*allowDirty)
	if err != nil {
		return err
	}
	if err := emptyDir(*out); err != nil {
		return err
	}
	src, err := sources()
	if err != nil {
		return err
	}
	fmt.Printf("jstk %s, commit %s of %s\n", st.version, st.commit, st.date.Format(time.RFC3339))

	archives := map[string][]byte{}
	for _, p := range platforms {
		bin, err := build(p, st)
		if err != nil {
			return err
		}
		name := release.ArchiveName(st.version, p)
		var buf bytes.Buffer
		files := release.ArchiveFiles(p, bin, src)
		if p.GOOS == "windows" {
			err = release.Zip(&buf, files, st.date)
		} else {
			err = release.TarGz(&buf, files, st.date)
		}
		if err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		archives[name] = buf.Bytes()
		if err := writeFile(filepath.Join(*out, name), 0o644, buf.Bytes()); err != nil {
			return err
		}
		if err := writeFiles(filepath.Join(*out, "npm", release.NPMDir(p.NPMName())), release.PlatformFiles(p, bin, src)); err != nil {
			return err
		}
		fmt.Printf("  %-34s %6.1f MB (binary %.1f MB)\n", name, float64(buf.Len())/1e6, float64(len(bin))/1e6)
	}
	if err := writeFiles(filepath.Join(*out, "npm", release.NPMDir(manifest.NPMPackage)), release.LauncherFiles(src)); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(*out, "SHA256SUMS"), 0o644, release.Checksums(archives)); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(*out, "server.json"), 0o644, manifest.Encode(manifest.ServerJSON())); err != nil {
		return err
	}
	fmt.Printf("wrote %s: %d archives, SHA256SUMS, server.json, npm/ (%d packages)\n", *out, len(archives), len(platforms)+1)
	return nil
}

// writeActionDigests writes the digests of the release in dir, checked against its
// archives, to the file of the GitHub Action for manifest.Version.
func writeActionDigests(dir string) error {
	sums, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		return err
	}
	data, err := release.ActionDigests(manifest.Version, sums, func(name string) ([]byte, error) {
		return os.ReadFile(filepath.Join(dir, name))
	})
	if err != nil {
		return err
	}
	path := release.ActionDigestsPath(manifest.Version)
	if err := writeFile(filepath.FromSlash(path), 0o644, data); err != nil {
		return err
	}
	fmt.Printf("wrote %s: the digests of %s; commit it, and tag that commit v%s\n", path, dir, manifest.Version)
	return nil
}

func selectPlatforms(targets string) ([]manifest.Platform, error) {
	if targets == "" {
		return manifest.Platforms, nil
	}
	var out []manifest.Platform
	for _, t := range strings.Split(targets, ",") {
		goos, goarch, _ := strings.Cut(strings.TrimSpace(t), "/")
		found := false
		for _, p := range manifest.Platforms {
			if p.GOOS == goos && p.GOARCH == goarch {
				out, found = append(out, p), true
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown target %q: the targets are %v", t, manifest.Platforms)
		}
	}
	return out, nil
}

// buildStamp is what a release build records about itself.
type buildStamp struct {
	version, commit string
	date            time.Time // the commit's date: the archives' times and the stamped date
}

func stamp(allowDirty bool) (buildStamp, error) {
	var st buildStamp
	var err error
	if st.commit, err = git("rev-parse", "HEAD"); err != nil {
		return st, err
	}
	unix, err := git("log", "-1", "--format=%ct", "HEAD")
	if err != nil {
		return st, err
	}
	var secs int64
	if _, err := fmt.Sscan(unix, &secs); err != nil {
		return st, fmt.Errorf("commit time %q: %v", unix, err)
	}
	st.date = time.Unix(secs, 0).UTC()
	status, err := git("status", "--porcelain", "--untracked-files=normal")
	if err != nil {
		return st, err
	}
	if status != "" {
		if !allowDirty {
			return st, fmt.Errorf("the tree has uncommitted changes, so the release would not be the commit's:\n%s\n(commit them, or build anyway with -allow-dirty)", status)
		}
		st.commit += "+modified"
	}
	st.version = manifest.Version
	tags, err := git("tag", "--points-at", "HEAD")
	if err != nil {
		return st, err
	}
	for _, tag := range strings.Fields(tags) {
		if strings.HasPrefix(tag, "v") && tag != "v"+manifest.Version {
			return st, fmt.Errorf("HEAD is tagged %s but manifest.Version is %s: change internal/manifest and regenerate (JSTK_UPDATE=1 go test ./internal/cli)", tag, manifest.Version)
		}
	}
	return st, nil
}

// build cross-compiles jstk for p. Everything that could differ between machines is fixed:
// no cgo, -trimpath, no VCS stamp, no build id, the architecture levels, GOFLAGS.
func build(p manifest.Platform, st buildStamp) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "jstk-release-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, p.Binary())
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false",
		"-ldflags", release.LDFlags(st.version, st.commit, st.date.Format(time.RFC3339)),
		"-o", bin, "./cmd/jstk")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.GOOS, "GOARCH="+p.GOARCH,
		"GOAMD64=v1", "GOARM64=v8.0", "GOFLAGS=-mod=readonly", "GOEXPERIMENT=")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go build for %s/%s: %v", p.GOOS, p.GOARCH, err)
	}
	return os.ReadFile(bin)
}

func git(args ...string) (string, error) {
	var stderr bytes.Buffer
	cmd := exec.Command("git", args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

func sources() (release.Sources, error) {
	var src release.Sources
	for _, f := range []struct {
		path string
		dst  *[]byte
	}{
		{"LICENSE", &src.License},
		{"README.md", &src.Readme},
		{"npm/" + manifest.NPMPackage + "/" + manifest.LauncherBin, &src.Launcher},
		{"npm/" + manifest.NPMPackage + "/README.md", &src.NPMReadme},
	} {
		data, err := os.ReadFile(f.path)
		if err != nil {
			return src, err
		}
		*f.dst = data
	}
	return src, nil
}

func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		return fmt.Errorf("%s is not empty: remove it first (the release never overwrites files)", dir)
	}
	return nil
}

func writeFiles(dir string, files []release.File) error {
	for _, f := range files {
		if err := writeFile(filepath.Join(dir, filepath.FromSlash(f.Name)), f.Mode, f.Data); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(name string, mode os.FileMode, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	return os.WriteFile(name, data, mode)
}
