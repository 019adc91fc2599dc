package weaviate

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Weaviate releases cite knows about.
const (
	// MinVersion is the oldest release cite supports: the oldest its
	// tests have run against. Open refuses an older server.
	MinVersion = "v1.35.2"
	// FixedVersion is the first release that ranks objects still in its
	// memtables right. Before it, BM25 (BlockMax WAND) misranks what was
	// written in the last minute (measured on v1.35.2): a memtable's
	// terms had no block impact, so WAND pruned their objects (fixed by
	// weaviate/weaviate#11780, in v1.38.2), and a flush baked block
	// impacts with k1 and b swapped (#12022, in v1.38.3), as their
	// sources show. Open warns about an older server.
	FixedVersion = "v1.38.3"
	// TestedVersion is the release cite's tests run against, and the one
	// it tells users to install.
	TestedVersion = "v1.38.5"
)

// install is the command that installs TestedVersion.
const install = "go install github.com/weaviate/weaviate/cmd/weaviate-server@" + TestedVersion

// checkServer reads the server's version (GET /v1/meta) and judges it
// ([judgeVersion]).
func (s *Store) checkServer(ctx context.Context) error {
	meta, err := s.c.Misc().MetaGetter().Do(ctx)
	if err != nil {
		return s.wrap("read version", err)
	}
	s.version = meta.Version
	s.warning, err = judgeVersion(meta.Version)
	if err != nil {
		return fmt.Errorf("weaviate at %s: %w", s.cfg.Addr, err)
	}
	if s.warning != "" {
		s.warning = "weaviate at " + s.cfg.Addr + ": " + s.warning
	}
	return nil
}

// judgeVersion says what cite makes of a server reporting version v
// ("1.38.5", as /v1/meta gives it): an error below [MinVersion], a
// warning below [FixedVersion] (a pre-release of it included) or when v
// cannot be read, and nothing otherwise.
func judgeVersion(v string) (warning string, err error) {
	got, ok := parseVersion(v)
	if !ok {
		return fmt.Sprintf("cannot read its version %q; cite is tested with %s", v, TestedVersion), nil
	}
	if min, _ := parseVersion(MinVersion); less(got, min) {
		return "", fmt.Errorf("version %s is older than %s, the oldest cite supports: install %s (%s)", v, MinVersion, TestedVersion, install)
	}
	if fixed, _ := parseVersion(FixedVersion); less(got, fixed) {
		return fmt.Sprintf("version %s misranks BM25 and hybrid results on what was written in the last minute (until it flushes its memtables, by default within a minute; with steady ingestion, always); %s fixes it, and cite is tested with %s: %s", v, FixedVersion, TestedVersion, install), nil
	}
	return "", nil
}

// version is a release number; pre says it is a pre-release (-rc.1),
// which comes before the release.
type version struct {
	n   [3]int
	pre bool
}

// parseVersion reads "1.38.5", "v1.38.5" or "1.38.5-rc.1" (build
// metadata after + is ignored).
func parseVersion(s string) (version, bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	s, _, _ = strings.Cut(s, "+")
	var v version
	if i := strings.IndexByte(s, '-'); i >= 0 {
		s, v.pre = s[:i], true
	}
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return version{}, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || p == "" || p[0] == '+' {
			return version{}, false
		}
		v.n[i] = n
	}
	return v, true
}

// less reports whether a comes before b.
func less(a, b version) bool {
	for i := range a.n {
		if a.n[i] != b.n[i] {
			return a.n[i] < b.n[i]
		}
	}
	return a.pre && !b.pre
}

// Version is the server's version, as /v1/meta gave it when the store
// was opened.
func (s *Store) Version() string { return s.version }

// Warning is what cite should tell the user about the server, once, or
// "": set when the server's version is known to misrank (older than
// [FixedVersion]) or cannot be read.
func (s *Store) Warning() string { return s.warning }
