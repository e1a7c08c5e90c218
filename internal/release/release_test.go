package release

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/manifest"
)

var mtime = time.Date(2026, 9, 2, 10, 0, 1, 0, time.FixedZone("CEST", 2*3600))

var files = []File{
	{Name: "jstk", Mode: 0o755, Data: []byte("\x7fELF binary")},
	{Name: "README.md", Mode: 0o644, Data: []byte("# jstk\n")},
	{Name: "LICENSE", Mode: 0o644, Data: []byte("Apache-2.0\n")},
}

func reversed(fs []File) []File {
	out := make([]File, len(fs))
	for i, f := range fs {
		out[len(fs)-1-i] = f
	}
	return out
}

type member struct {
	Name  string
	Mode  fs.FileMode
	Data  string
	MTime time.Time
}

// Two archives of the same files, given in different orders, are the same bytes, and they
// read back as the files, in name order, dated mtime.
func TestTarGz(t *testing.T) {
	var a, b bytes.Buffer
	if err := TarGz(&a, files, mtime); err != nil {
		t.Fatal(err)
	}
	if err := TarGz(&b, reversed(files), mtime); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("the same files in another order give other bytes")
	}
	gz, err := gzip.NewReader(bytes.NewReader(a.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !gz.ModTime.IsZero() || gz.Name != "" {
		t.Errorf("gzip header carries time %v, name %q", gz.ModTime, gz.Name)
	}
	tr := tar.NewReader(gz)
	var got []member
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(tr)
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
			t.Errorf("%s: owner %d:%d %q:%q", h.Name, h.Uid, h.Gid, h.Uname, h.Gname)
		}
		got = append(got, member{h.Name, fs.FileMode(h.Mode), string(data), h.ModTime})
	}
	want := []member{
		{"LICENSE", 0o644, "Apache-2.0\n", mtime.UTC()},
		{"README.md", 0o644, "# jstk\n", mtime.UTC()},
		{"jstk", 0o755, "\x7fELF binary", mtime.UTC()},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("members (-want +got):\n%s", diff)
	}
	var c bytes.Buffer
	if err := TarGz(&c, files, mtime.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a.Bytes(), c.Bytes()) {
		t.Error("another mtime gives the same bytes: the time is not in the archive")
	}
}

func TestZip(t *testing.T) {
	var a, b bytes.Buffer
	if err := Zip(&a, files, mtime); err != nil {
		t.Fatal(err)
	}
	if err := Zip(&b, reversed(files), mtime); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("the same files in another order give other bytes")
	}
	zr, err := zip.NewReader(bytes.NewReader(a.Bytes()), int64(a.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var got []member
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(rc)
		rc.Close()
		got = append(got, member{f.Name, f.Mode().Perm(), string(data), f.Modified.UTC()})
	}
	want := []member{
		{"LICENSE", 0o644, "Apache-2.0\n", mtime.UTC()},
		{"README.md", 0o644, "# jstk\n", mtime.UTC()},
		{"jstk", 0o755, "\x7fELF binary", mtime.UTC()},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("members (-want +got):\n%s", diff)
	}
}

func TestBadMembers(t *testing.T) {
	for _, name := range []string{"", "/etc/passwd", "../x", "a/../b", "a//b"} {
		for what, write := range map[string]func(io.Writer, []File, time.Time) error{"tar.gz": TarGz, "zip": Zip} {
			if err := write(io.Discard, []File{{Name: name}}, mtime); err == nil {
				t.Errorf("%s member %q accepted", what, name)
			}
		}
	}
	dup := []File{{Name: "a"}, {Name: "a"}}
	if err := TarGz(io.Discard, dup, mtime); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a repeated member: %v", err)
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n -= len(p); w.n < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestWriteErrors(t *testing.T) {
	big := []File{{Name: "big", Mode: 0o644, Data: bytes.Repeat([]byte("x"), 1<<20)}}
	for _, n := range []int{0, 10, 600} {
		if err := TarGz(&failWriter{n}, big, mtime); err == nil {
			t.Errorf("tar.gz: a writer that fails after %d bytes gives no error", n)
		}
		if err := Zip(&failWriter{n}, big, mtime); err == nil {
			t.Errorf("zip: a writer that fails after %d bytes gives no error", n)
		}
	}
}

func TestChecksums(t *testing.T) {
	contents := map[string][]byte{"b.zip": []byte("b"), "a.tar.gz": []byte("a")}
	sums := Checksums(contents)
	want := "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb  a.tar.gz\n" +
		"3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d  b.zip\n"
	if string(sums) != want {
		t.Errorf("Checksums = %q, want %q", sums, want)
	}
	read := func(m map[string][]byte) func(string) ([]byte, error) {
		return func(name string) ([]byte, error) {
			if d, ok := m[name]; ok {
				return d, nil
			}
			return nil, fmt.Errorf("%s: no such file", name)
		}
	}
	names, err := VerifyChecksums(sums, read(contents))
	if err != nil || fmt.Sprint(names) != "[a.tar.gz b.zip]" {
		t.Errorf("VerifyChecksums = %v, %v", names, err)
	}
	for _, tc := range []struct {
		name  string
		sums  string
		files map[string][]byte
		want  string
	}{
		{"tampered", want, map[string][]byte{"a.tar.gz": []byte("A"), "b.zip": []byte("b")}, "a.tar.gz: SHA-256 "},
		{"missing", want, map[string][]byte{"a.tar.gz": []byte("a")}, "b.zip: no such file"},
		{"malformed", "abc  a.tar.gz\n", contents, "line 1: not"},
		{"a path", strings.Replace(want, "  a.tar.gz", "  ../a.tar.gz", 1), contents, "line 1: not"},
		{"twice", want + want, contents, "line 3: a.tar.gz is listed twice"},
		{"empty", "", contents, "lists no file"},
	} {
		if _, err := VerifyChecksums([]byte(tc.sums), read(tc.files)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// TestActionDigests: the Action's digests are the release's SHA256SUMS lines, checked
// against the archives first, under a comment, at a path named by the version.
func TestActionDigests(t *testing.T) {
	files := map[string][]byte{"jstk_1.2.3_linux_amd64.tar.gz": []byte("a")}
	read := func(name string) ([]byte, error) {
		if d, ok := files[name]; ok {
			return d, nil
		}
		return nil, fmt.Errorf("%s: no such file", name)
	}
	sums := Checksums(files)
	got, err := ActionDigests("1.2.3", sums, read)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(got), "# The SHA-256 digests of the jstk 1.2.3 release archives") || !strings.HasSuffix(string(got), "\n"+string(sums)) {
		t.Errorf("ActionDigests = %q", got)
	}
	files["jstk_1.2.3_linux_amd64.tar.gz"] = []byte("replaced")
	if _, err := ActionDigests("1.2.3", sums, read); err == nil || !strings.Contains(err.Error(), "SHA-256") {
		t.Errorf("a release whose archive differs from its SHA256SUMS: %v", err)
	}
	if p := ActionDigestsPath("1.2.3"); p != "action/digests/1.2.3.sha256" {
		t.Errorf("ActionDigestsPath = %q", p)
	}
}

func TestNames(t *testing.T) {
	var got []string
	for _, p := range manifest.Platforms {
		got = append(got, ArchiveName("0.1.0", p))
	}
	want := []string{"jstk_0.1.0_darwin_amd64.tar.gz", "jstk_0.1.0_darwin_arm64.tar.gz", "jstk_0.1.0_linux_amd64.tar.gz",
		"jstk_0.1.0_linux_arm64.tar.gz", "jstk_0.1.0_windows_amd64.zip", "jstk_0.1.0_windows_arm64.zip"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("archive names (-want +got):\n%s", diff)
	}
	if got := LDFlags("0.1.0", "abc", "2026-09-02T10:00:00Z"); got != "-s -w -buildid= "+
		"-X github.com/jstk-dev/jstk/internal/cli.Version=0.1.0 -X github.com/jstk-dev/jstk/internal/cli.Commit=abc "+
		"-X github.com/jstk-dev/jstk/internal/cli.Date=2026-09-02T10:00:00Z" {
		t.Errorf("LDFlags = %q", got)
	}
	if got := NPMDir("@json-schema-toolkit/linux-x64"); got != "json-schema-toolkit-linux-x64" {
		t.Errorf("NPMDir = %q", got)
	}
	if got := NPMDir("json-schema-toolkit"); got != "json-schema-toolkit" {
		t.Errorf("NPMDir = %q", got)
	}
}

func TestPackageFiles(t *testing.T) {
	src := Sources{License: []byte("L"), Readme: []byte("R"), Launcher: []byte("#!/usr/bin/env node"), NPMReadme: []byte("N")}
	names := func(fs []File) string {
		var s []string
		for _, f := range fs {
			s = append(s, fmt.Sprintf("%s:%o", f.Name, f.Mode))
		}
		return strings.Join(s, " ")
	}
	win := manifest.Platform{GOOS: "windows", GOARCH: "amd64"}
	for _, tc := range []struct {
		files []File
		want  string
	}{
		{ArchiveFiles(win, []byte("MZ"), src), "jstk.exe:755 LICENSE:644 README.md:644"},
		{LauncherFiles(src), "package.json:644 bin/jstk.js:755 README.md:644 LICENSE:644"},
		{PlatformFiles(win, []byte("MZ"), src), "package.json:644 bin/jstk.exe:755 README.md:644 LICENSE:644"},
	} {
		if got := names(tc.files); got != tc.want {
			t.Errorf("files %q, want %q", got, tc.want)
		}
	}
	pf := PlatformFiles(win, []byte("MZ"), src)
	if !bytes.Contains(pf[0].Data, []byte(`"name": "@json-schema-toolkit/win32-x64"`)) || !bytes.Contains(pf[2].Data, []byte("Install `json-schema-toolkit`")) {
		t.Errorf("platform package:\n%s\n%s", pf[0].Data, pf[2].Data)
	}
}
