package main

import (
	"runtime"
	"runtime/debug"
	"strings"
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
		d := editDistance(name, c)
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

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
