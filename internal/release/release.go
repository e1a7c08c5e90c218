// Package release owns the byte-for-byte reproducible parts of a jstk release: the archive
// names, the linker flags that stamp the version, commit and commit date, tar.gz and zip
// archives whose bytes depend only on their files (fixed order, times, owners and modes),
// the SHA256SUMS file and its verification, and the files of the npm packages. It runs no
// program and touches no file: cmd/release builds the binaries and writes what this package
// returns.
package release

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/jstk-dev/jstk/internal/manifest"
)

// File is one file of an archive or a package.
type File struct {
	Name string      // slash-separated, relative
	Mode fs.FileMode // permission bits: 0o755 for executables, 0o644 otherwise
	Data []byte
}

// ArchiveName is the name of a platform's release archive: a zip for windows, a tar.gz
// elsewhere, e.g. jstk_0.1.0_linux_amd64.tar.gz.
func ArchiveName(version string, p manifest.Platform) string {
	ext := ".tar.gz"
	if p.GOOS == "windows" {
		ext = ".zip"
	}
	return "jstk_" + version + "_" + p.GOOS + "_" + p.GOARCH + ext
}

// stampVar is the package whose variables the linker flags set.
const stampVar = manifest.Module + "/internal/cli."

// LDFlags are the linker flags of a release build: no symbol table or DWARF (smaller; panics
// still print stack traces), an empty build id, and the version, commit and commit date.
func LDFlags(version, commit, date string) string {
	return fmt.Sprintf("-s -w -buildid= -X %sVersion=%s -X %sCommit=%s -X %sDate=%s",
		stampVar, version, stampVar, commit, stampVar, date)
}

// sorted returns the files in name order, refusing empty, absolute or repeated names.
func sorted(files []File) ([]File, error) {
	out := append([]File(nil), files...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	for i, f := range out {
		if f.Name == "" || path.IsAbs(f.Name) || path.Clean(f.Name) != f.Name || strings.HasPrefix(f.Name, "../") {
			return nil, fmt.Errorf("archive member %q: not a clean relative name", f.Name)
		}
		if i > 0 && out[i-1].Name == f.Name {
			return nil, fmt.Errorf("archive member %q given twice", f.Name)
		}
	}
	return out, nil
}

// TarGz writes files as a gzip-compressed tar archive whose bytes depend only on the files
// and mtime: members in name order, every member dated mtime, owned by 0:0 with no owner
// names, in the USTAR format, and a gzip header with no name and no time.
func TarGz(w io.Writer, files []File, mtime time.Time) error {
	files, err := sorted(files)
	if err != nil {
		return err
	}
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	for _, f := range files {
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: f.Name, Mode: int64(f.Mode.Perm()), Size: int64(len(f.Data)),
			ModTime: mtime.UTC().Truncate(time.Second), Format: tar.FormatUSTAR}
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("%s: %v", f.Name, err)
		}
		if _, err := tw.Write(f.Data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// Zip writes files as a zip archive whose bytes depend only on the files and mtime: members
// in name order, deflated, dated mtime (in the MS-DOS field and the extended timestamp), with
// Unix permissions.
func Zip(w io.Writer, files []File, mtime time.Time) error {
	files, err := sorted(files)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestCompression)
	})
	for _, f := range files {
		hdr := &zip.FileHeader{Name: f.Name, Method: zip.Deflate, Modified: mtime.UTC().Truncate(time.Second)}
		hdr.SetMode(f.Mode.Perm())
		fw, err := zw.CreateHeader(hdr)
		if err != nil {
			return fmt.Errorf("%s: %v", f.Name, err)
		}
		if _, err := fw.Write(f.Data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// Checksums is a SHA256SUMS file for the named contents, in name order, in the format
// `sha256sum --check` reads: the hex digest, two spaces, the name.
func Checksums(files map[string][]byte) []byte {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var b bytes.Buffer
	for _, n := range names {
		sum := sha256.Sum256(files[n])
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), n)
	}
	return b.Bytes()
}

var sumLine = regexp.MustCompile(`^([0-9a-f]{64}) [ *]([^/\\]+)$`)

// VerifyChecksums checks every line of a SHA256SUMS file against the file it names, read
// with read, and returns the names checked. A malformed line, a repeated name, a file that
// cannot be read or a digest that differs is an error.
func VerifyChecksums(sums []byte, read func(name string) ([]byte, error)) ([]string, error) {
	var names []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(sums))
	for n := 1; sc.Scan(); n++ {
		m := sumLine.FindStringSubmatch(sc.Text())
		if m == nil {
			return nil, fmt.Errorf("SHA256SUMS line %d: not \"<sha256>  <name>\": %q", n, sc.Text())
		}
		if seen[m[2]] {
			return nil, fmt.Errorf("SHA256SUMS line %d: %s is listed twice", n, m[2])
		}
		seen[m[2]] = true
		data, err := read(m[2])
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != m[1] {
			return nil, fmt.Errorf("%s: SHA-256 %s, SHA256SUMS says %s", m[2], got, m[1])
		}
		names = append(names, m[2])
	}
	if len(names) == 0 {
		return nil, errors.New("SHA256SUMS lists no file")
	}
	return names, sc.Err()
}

// ActionDigestsPath is where the GitHub Action (action/install.sh) finds the digests of the
// release of the given version: a SHA256SUMS file of the repository, written by
// `release -action-digests DIR` and committed, so that the Action checks an archive against
// digests it carries rather than against a file downloaded from the same place.
func ActionDigestsPath(version string) string {
	return "action/digests/" + version + ".sha256"
}

// ActionDigests is the file at ActionDigestsPath for a release's SHA256SUMS: a comment line
// saying what it is, then the SHA256SUMS lines, each checked against the archive it names
// (read with read, as VerifyChecksums does).
func ActionDigests(version string, sums []byte, read func(name string) ([]byte, error)) ([]byte, error) {
	if _, err := VerifyChecksums(sums, read); err != nil {
		return nil, err
	}
	head := "# The SHA-256 digests of the jstk " + version + " release archives, which action/install.sh\n" +
		"# checks a downloaded archive against. Written by go run ./cmd/release -action-digests DIR.\n"
	return append([]byte(head), sums...), nil
}

// Sources are the files of the repository that the release ships besides the binaries.
type Sources struct {
	License   []byte // LICENSE
	Readme    []byte // README.md
	Launcher  []byte // npm/json-schema-toolkit/bin/jstk.js
	NPMReadme []byte // npm/json-schema-toolkit/README.md
}

// ArchiveFiles are the members of a platform's archive: the binary, the licence and the
// README.
func ArchiveFiles(p manifest.Platform, binary []byte, src Sources) []File {
	return []File{
		{Name: p.Binary(), Mode: 0o755, Data: binary},
		{Name: "LICENSE", Mode: 0o644, Data: src.License},
		{Name: "README.md", Mode: 0o644, Data: src.Readme},
	}
}

// LauncherFiles are the files of the npm launcher package, json-schema-toolkit.
func LauncherFiles(src Sources) []File {
	return []File{
		{Name: "package.json", Mode: 0o644, Data: manifest.Encode(manifest.LauncherPackage())},
		{Name: manifest.LauncherBin, Mode: 0o755, Data: src.Launcher},
		{Name: "README.md", Mode: 0o644, Data: src.NPMReadme},
		{Name: "LICENSE", Mode: 0o644, Data: src.License},
	}
}

// PlatformFiles are the files of a platform's npm package: its package.json, the binary, a
// README that points to the launcher, and the licence.
func PlatformFiles(p manifest.Platform, binary []byte, src Sources) []File {
	readme := fmt.Sprintf("# %s\n\nThe %s %s binary of [`%s`](https://www.npmjs.com/package/%s) (jstk, %s).\n"+
		"Install `%s`, not this package: npm picks the package of your platform itself.\n",
		p.NPMName(), p.NodeOS(), p.NodeCPU(), manifest.NPMPackage, manifest.NPMPackage, manifest.Repository, manifest.NPMPackage)
	return []File{
		{Name: "package.json", Mode: 0o644, Data: manifest.Encode(manifest.PlatformPackage(p))},
		{Name: p.PlatformBinary(), Mode: 0o755, Data: binary},
		{Name: "README.md", Mode: 0o644, Data: []byte(readme)},
		{Name: "LICENSE", Mode: 0o644, Data: src.License},
	}
}

// NPMDir is the directory under the release's npm/ folder that holds a package.
func NPMDir(npmName string) string {
	return strings.ReplaceAll(strings.TrimPrefix(npmName, "@"), "/", "-")
}
