package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/cite-rag/cite/index"
)

// built records how a kept index was built, in a file beside it, so that
// a later run (with [Config.Keep]) can measure it again without building
// it anew when it was made from the same inputs: the same corpus folder
// (its name holds the corpus version and size), the same embedder, and
// for a peer the same engine over the same number of chunks.
type built struct {
	Corpus       string    `json:"corpus"`
	Embedder     string    `json:"embedder"`
	System       string    `json:"system"`
	Chunks       int       `json:"chunks"`
	BuildSeconds float64   `json:"build_s"`
	BuildMBps    float64   `json:"build_mb_per_s"`
	Commit       string    `json:"commit"`
	Load         string    `json:"load"`
	At           time.Time `json:"at"`
	// Resumed is how many times an unfinished build was taken up again by
	// a later run.
	Resumed int `json:"resumed,omitempty"`
	// Parts are the runs that built it, in order, each with the time it
	// spent building as last recorded (every [checkpointEvery] and when it
	// ended): the build time of an index built in several runs is their
	// sum, unknown where a run recorded none (before the record held it).
	Parts []buildPart `json:"parts,omitempty"`
	// Upgraded lists the commits that upgraded the index's format in
	// place since ([Config.Upgrade]).
	Upgraded []string `json:"upgraded,omitempty"`
}

// buildPart is one run's part of a build.
type buildPart struct {
	Commit  string  `json:"commit"`
	Seconds float64 `json:"build_s"`
	Load    string  `json:"load"` // at its start → at its last record
}

// partsSeconds is the summed build time of b's runs, and whether every
// run recorded its own.
func (b *built) partsSeconds() (float64, bool) {
	var sec float64
	for _, p := range b.Parts {
		sec += p.Seconds
	}
	return sec, len(b.Parts) == b.Resumed+1
}

// same reports whether b was built from the same inputs as want.
func (b *built) same(want *built) bool {
	return b.Corpus == want.Corpus && b.Embedder == want.Embedder && b.System == want.System &&
		(want.Chunks == 0 || b.Chunks == want.Chunks)
}

// note describes the earlier build for a report.
func (b *built) note() string {
	s := fmt.Sprintf("built %s at commit %s, load %s", b.At.Format("2006-01-02 15:04 MST"), b.Commit, b.Load)
	if b.Resumed > 0 {
		s = fmt.Sprintf("built in %d runs begun %s at commit %s", b.Resumed+1, b.At.Format("2006-01-02 15:04 MST"), b.Commit)
		if _, ok := b.partsSeconds(); ok {
			s += " (" + b.partsNote() + ")"
		}
	}
	if len(b.Upgraded) > 0 {
		s += ", its format upgraded in place by commit " + strings.Join(b.Upgraded, ", then ")
	}
	return s + "; reused"
}

// partsNote says each run's build time, commit and load.
func (b *built) partsNote() string {
	var parts []string
	for _, p := range b.Parts {
		parts = append(parts, fmt.Sprintf("%.0f s at commit %s, load %s", p.Seconds, p.Commit, p.Load))
	}
	return strings.Join(parts, "; then ")
}

func readBuilt(path string) (*built, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var b built
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &b, nil
}

func writeBuilt(path string, b *built) error {
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// reusableCite returns the record of cite's kept index in dir when it was
// built from the inputs of want and this cite can search it as it is: it
// opens read-only, which fails when its schema or its full-text terms
// need an upgrade (that is, when this cite's index format differs). With
// upgrade, such an index is upgraded in place instead (opened once for
// writing) and the record says so.
func reusableCite(ctx context.Context, dir string, want *built, upgrade bool) (*built, error) {
	record := filepath.Join(dir, "cite.built.json")
	b, err := readBuilt(record)
	if err != nil {
		return nil, err
	}
	if !b.same(want) {
		return nil, fmt.Errorf("built from %s with %s, not %s with %s", b.Corpus, b.Embedder, want.Corpus, want.Embedder)
	}
	st, err := index.Open(ctx, filepath.Join(dir, "cite"), index.Options{ReadOnly: true})
	if errors.Is(err, index.ErrReadOnly) && upgrade {
		st, err = index.Open(ctx, filepath.Join(dir, "cite"), index.Options{})
		if err == nil {
			b.Upgraded = append(b.Upgraded, Commit())
			err = writeBuilt(record, b)
		}
	}
	if err != nil {
		if st != nil {
			st.Close()
		}
		return nil, err
	}
	if err := st.Close(); err != nil {
		return nil, err
	}
	return b, nil
}

// Commit is the version control revision this program was built from
// ("+" after it when the tree had changes), or "?" where the build did
// not record it (go run, go test).
func Commit() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "?"
	}
	rev, modified := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return "?"
	}
	rev = rev[:min(len(rev), 12)]
	if modified {
		rev += "+"
	}
	return rev
}

var errNotKept = errors.New("indexes are not kept (no --keep)")
