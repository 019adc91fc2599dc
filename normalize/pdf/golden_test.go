package pdf

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGolden reads the fixtures whose text is its block structure
// (paragraphs, line breaks kept, list items) and compares it with
// testdata/NAME.golden; -update writes the golden files. Check a changed
// golden file reads better before writing it.
func TestGolden(t *testing.T) {
	for _, name := range []string{"code", "lists", "paragraphs", "breaks", "nested", "sideways"} {
		t.Run(name, func(t *testing.T) {
			d, _, err := read(t, &Reader{}, name+".pdf")
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(d.Text+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got := d.Text + "\n"; got != string(want) {
				t.Errorf("%s reads\n%s\nwant (%s)\n%s", name, got, golden, strings.TrimSuffix(string(want), "\n"))
			}
		})
	}
}
