package main

import (
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/cite-rag/cite/internal/textdist"
)

// version describes this build of cite: the module's version (a tag for
// go install cite@vX, "(devel)" for a build from a clone), the commit it
// was built from and its time when the build recorded them ("+dirty" for
// changes not committed), the Go release and the platform.
func version() string {
	return versionOf(debug.ReadBuildInfo())
}

func versionOf(bi *debug.BuildInfo, ok bool) string {
	v := []string{"cite"}
	if !ok {
		return strings.Join(append(v, "(unknown)", runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH), " ")
	}
	v = append(v, bi.Main.Version)
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	// A pseudo-version (v0.0.0-20261127063655-c7c00a399b29) names the
	// commit already.
	if rev := settings["vcs.revision"]; rev != "" && !strings.Contains(bi.Main.Version, rev[:min(len(rev), 12)]) {
		rev = rev[:min(len(rev), 12)]
		if settings["vcs.modified"] == "true" {
			rev += "+dirty"
		}
		v = append(v, rev)
		if t := settings["vcs.time"]; t != "" {
			v = append(v, t)
		}
	}
	return strings.Join(append(v, bi.GoVersion, settings["GOOS"]+"/"+settings["GOARCH"]), " ")
}

// closest returns the command whose name is name mistyped (at most two
// letters off, or name a prefix of it long enough to be one command's), or
// "" if there is none or more than one.
func closest(name string) string {
	name = strings.ToLower(strings.TrimLeft(name, "-"))
	best, bestD, ties := "", 3, 0
	names := []string{"version", "help"}
	for _, c := range commands {
		names = append(names, c.name)
	}
	for _, c := range names {
		d := textdist.Levenshtein(name, c)
		if len(name) >= 2 && strings.HasPrefix(c, name) {
			d = min(d, 1)
		}
		switch {
		case d < bestD:
			best, bestD, ties = c, d, 0
		case d == bestD:
			ties++
		}
	}
	if best == "" || ties > 0 || bestD >= len(name) {
		return ""
	}
	return best
}
