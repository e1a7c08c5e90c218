package cli

import (
	"runtime/debug"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStamp(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "5ccc08c"}, {Key: "vcs.time", Value: "2026-09-02T10:00:00Z"}}
	for _, tc := range []struct {
		name                  string
		version, commit, date string
		info                  *debug.BuildInfo
		want                  [3]string
	}{
		{"no build information", "", "", "", nil, [3]string{"(devel)", "", ""}},
		{"plain go build without VCS stamp", "", "", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, [3]string{"(devel)", "", ""}},
		{"go build in a clone", "", "", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20260902100000-5ccc08c00000"}, Settings: vcs},
			[3]string{"(devel)", "5ccc08c", "2026-09-02T10:00:00Z"}},
		{"go build in a clone with changes", "", "", "", &debug.BuildInfo{Settings: append(vcs[:1:1], debug.BuildSetting{Key: "vcs.modified", Value: "true"})},
			[3]string{"(devel)", "5ccc08c+modified", ""}},
		{"go install from the proxy", "", "", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.2.0", Sum: "h1:abc="}}, [3]string{"0.2.0", "", ""}},
		{"release build", "0.1.0", "0123abc", "2026-01-01T00:00:00Z", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs},
			[3]string{"0.1.0", "0123abc", "2026-01-01T00:00:00Z"}},
	} {
		v, c, d := stamp(tc.version, tc.commit, tc.date, tc.info)
		if diff := cmp.Diff(tc.want, [3]string{v, c, d}); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tc.name, diff)
		}
	}
}

func TestVersionLine(t *testing.T) {
	stamped() // so that it does not change what the test sets
	defer func(v, c, d string) { Version, Commit, Date = v, c, d }(Version, Commit, Date)
	for _, tc := range []struct{ v, c, d, want string }{
		{"(devel)", "", "", "jstk (devel)"},
		{"0.1.0", "5ccc08c", "2026-09-02T10:00:00Z", "jstk 0.1.0 (commit 5ccc08c, 2026-09-02T10:00:00Z)"},
		{"(devel)", "5ccc08c+modified", "", "jstk (devel) (commit 5ccc08c+modified)"},
	} {
		Version, Commit, Date = tc.v, tc.c, tc.d
		if got := versionLine(); got != tc.want {
			t.Errorf("versionLine() = %q, want %q", got, tc.want)
		}
	}
}
