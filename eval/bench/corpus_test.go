package bench

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func testCorpus(t *testing.T, files map[string]string) *Corpus {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, err := LoadCorpus(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const prose = `# Install the module

Run the installer first. Then restart the service. The module loads at the next start. Check the log afterwards.

` + "```powershell\nInstall-Module -Name Example -Force\n```\n" + `
## Example 3: Display results in different ways

The cmdlet displays results in a table. Use the parameter to choose the format. Results can be sorted by name.
`

// TestVary: copy 0 is the file itself; other copies differ from it and
// from each other, deterministically, and keep code blocks and markup.
func TestVary(t *testing.T) {
	var sb strings.Builder
	for range 40 {
		sb.WriteString(prose)
	}
	src := []byte(sb.String())
	c := testCorpus(t, map[string]string{"a.md": sb.String(), ".hidden/b.md": "# Hidden\n", "c.txt": "not markdown"})
	if len(c.Files) != 1 || c.Files[0].Name != "a.md" || c.Files[0].Chunks == 0 {
		t.Fatalf("files %+v, want a.md alone with its chunks", c.Files)
	}
	if got := c.Vary(src, 0, "a.md"); !bytes.Equal(got, src) {
		t.Error("copy 0 differs from the file")
	}
	v1, v2 := c.Vary(src, 1, "a.md"), c.Vary(src, 2, "a.md")
	for _, tc := range []struct {
		name string
		v    []byte
	}{{"copy 1", v1}, {"copy 2", v2}} {
		t.Run(tc.name, func(t *testing.T) {
			if bytes.Equal(tc.v, src) {
				t.Fatal("same as the original")
			}
			if !bytes.Equal(tc.v, c.Vary(src, map[string]int{"copy 1": 1, "copy 2": 2}[tc.name], "a.md")) {
				t.Error("not deterministic")
			}
			if n, m := bytes.Count(tc.v, []byte("Install-Module -Name Example -Force\n")), bytes.Count(src, []byte("Install-Module -Name Example -Force\n")); n != m {
				t.Errorf("code lines kept %d times of %d", n, m)
			}
			for _, mark := range []string{"\n# ", "\n## ", "```powershell\n"} {
				if n, m := bytes.Count(tc.v, []byte(mark)), bytes.Count(src, []byte(mark)); n != m {
					t.Errorf("%q %d times, want %d", mark, n, m)
				}
			}
			if d := len(tc.v) - len(src); d < -len(src)/10 || d > len(src)/10 {
				t.Errorf("length %d, original %d", len(tc.v), len(src))
			}
		})
	}
	if bytes.Equal(v1, v2) {
		t.Error("copies 1 and 2 are the same")
	}
	if bytes.Equal(c.Vary(src, 1, "a.md"), c.Vary(src, 1, "b.md")) {
		t.Error("copy 1 of two names is the same")
	}
}

func TestShuffleSentences(t *testing.T) {
	line := []byte("One two. Three four. Five six. Seven.")
	sorted := func(b []byte) []string {
		ss := strings.Split(strings.TrimSuffix(string(b), "."), ". ")
		slices.Sort(ss)
		return ss
	}
	moved := false
	for seed := range uint64(10) {
		got := shuffleSentences(slices.Clone(line), rand.New(rand.NewPCG(seed, 1)))
		if !slices.Equal(sorted(got), sorted(line)) {
			t.Fatalf("%q: not the same sentences as %q", got, line)
		}
		moved = moved || !bytes.Equal(got, line)
	}
	if !moved {
		t.Error("no seed reordered the sentences")
	}
	if got := shuffleSentences([]byte("One sentence only."), rand.New(rand.NewPCG(1, 1))); string(got) != "One sentence only." {
		t.Errorf("one sentence: %q", got)
	}
}

func TestMaterialize(t *testing.T) {
	var sb strings.Builder
	for range 10 {
		sb.WriteString(prose)
	}
	c := testCorpus(t, map[string]string{"a.md": sb.String(), "d/b.md": prose})
	per := c.Chunks
	work := t.TempDir()
	root, files, size, err := c.Materialize(t.Context(), work, 3*per)
	if err != nil {
		t.Fatal(err)
	}
	if files != 6 || size <= 0 {
		t.Errorf("%d files, %d bytes; want 6 files (3 copies of 2)", files, size)
	}
	for _, p := range []string{"c0/a.md", "c1/d/b.md", "c2/a.md"} {
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Error(err)
		}
	}
	// A second call finds it done.
	root2, files2, size2, err := c.Materialize(t.Context(), work, 3*per)
	if err != nil || root2 != root || files2 != files || size2 != size {
		t.Errorf("again: %s %d %d %v", root2, files2, size2, err)
	}
}

func TestParseSizes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
		err  bool
	}{
		{"10k,100k,1m", []int{10_000, 100_000, 1_000_000}, false},
		{"2000", []int{2000}, false},
		{" 5K , 1M ", []int{5000, 1_000_000}, false},
		{"0", nil, true},
		{"ten", nil, true},
		{"10k,", nil, true},
		{"-5", nil, true},
	} {
		got, err := ParseSizes(tc.in)
		if (err != nil) != tc.err || !slices.Equal(got, tc.want) {
			t.Errorf("ParseSizes(%q) = %v, %v; want %v (error %v)", tc.in, got, err, tc.want, tc.err)
		}
	}
}
