package cli

import (
	"runtime/debug"
	"strings"
	"sync"
)

// Commit and Date are stamped by the release command with -ldflags -X, beside Version: the
// commit the release was built from and that commit's date (never the clock, so that two
// builds of one commit are byte-identical).
var (
	Commit string
	Date   string
)

// stamped completes Version, Commit and Date from the build information on first use (not
// in init: reading it allocates at every start, and most runs never print the version).
// Call it before reading them.
func stamped() {
	stampOnce.Do(func() {
		info, _ := debug.ReadBuildInfo()
		Version, Commit, Date = stamp(Version, Commit, Date, info)
	})
}

var stampOnce sync.Once

// stamp fills what -ldflags did not set from the build information Go records: a module
// version only when the main module came from the module proxy (`go install
// github.com/jstk-dev/jstk/cmd/jstk@v1.2.3` records its checksum), since a build in a clone
// carries a version derived from the checkout (or none) that is not a release; and the
// commit and its date, with "+modified" for uncommitted changes, from the VCS stamp of a
// build in a clone. The version is "(devel)" when nothing says otherwise.
func stamp(version, commit, date string, info *debug.BuildInfo) (string, string, string) {
	if info != nil {
		if version == "" && info.Main.Sum != "" && info.Main.Version != "" {
			version = info.Main.Version
		}
		settings := map[string]string{}
		for _, s := range info.Settings {
			settings[s.Key] = s.Value
		}
		if commit == "" && settings["vcs.revision"] != "" {
			commit = settings["vcs.revision"]
			if settings["vcs.modified"] == "true" {
				commit += "+modified"
			}
		}
		if date == "" {
			date = settings["vcs.time"]
		}
	}
	if version == "" {
		version = "(devel)"
	}
	return strings.TrimPrefix(version, "v"), commit, date
}

// versionLine is what `jstk --version` prints: the version, then the commit and the
// commit's date when known, e.g. "jstk 0.1.0 (commit 5ccc08c..., 2026-09-02T10:00:00Z)".
func versionLine() string {
	stamped()
	line := "jstk " + Version
	var more []string
	if Commit != "" {
		more = append(more, "commit "+Commit)
	}
	if Date != "" {
		more = append(more, Date)
	}
	if len(more) > 0 {
		line += " (" + strings.Join(more, ", ") + ")"
	}
	return line
}
