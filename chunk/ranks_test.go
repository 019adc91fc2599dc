package chunk

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cite-rag/cite/chunk/internal/ranktable"
	"github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
	"github.com/pkoukk/tiktoken-go-loader/assets"
)

var (
	oracleRanksOnce sync.Once
	oracleRanksMap  map[string]int
	oracleRanksErr  error
)

// oracleRanks returns the rank table as tiktoken-go loads it (with the
// offline loader, as GetEncoding does), loaded once. Callers must not
// modify it.
func oracleRanks(tb testing.TB) map[string]int {
	tb.Helper()
	oracleRanksOnce.Do(func() {
		oracleRanksMap, oracleRanksErr = tiktokenloader.NewOfflineLoader().LoadTiktokenBpe(Encoding + ".tiktoken")
	})
	if oracleRanksErr != nil {
		tb.Fatal(oracleRanksErr)
	}
	return oracleRanksMap
}

// TestLoadRanks checks the Tokenizer's rank table against tiktoken-go's,
// entry by entry: every token's rank and length, and that strings next to
// the tokens (each token cut short by a byte, grown by one, its first
// byte changed) are tokens exactly when tiktoken-go has them.
func TestLoadRanks(t *testing.T) {
	ranks, err := loadRanks()
	if err != nil {
		t.Fatal(err)
	}
	want := oracleRanks(t)
	if ranks.Len() != len(want) {
		t.Fatalf("%d ranks; tiktoken-go has %d", ranks.Len(), len(want))
	}
	check := func(s string) {
		t.Helper()
		got, ok := ranks.Rank(s)
		id, wantOK := want[s]
		if ok != wantOK || got != id {
			t.Fatalf("%q: rank %d (found %v), tiktoken-go %d (found %v)", s, got, ok, id, wantOK)
		}
	}
	for tok, id := range want {
		check(tok)
		if n := ranks.TokenLen(id); n != len(tok) {
			t.Fatalf("token %q: length %d, want %d", tok, n, len(tok))
		}
		check(tok[:len(tok)-1])
		check(tok + "e")
		check(tok + "\x00")
		check(string(tok[0]^0x20) + tok[1:])
	}
	n := 0
	for tok, id := range ranks.All() {
		if want[tok] != id || n != id {
			t.Fatalf("All yields %q with rank %d as its %dth; tiktoken-go's rank %d", tok, id, n, want[tok])
		}
		n++
	}
	if n != len(want) {
		t.Fatalf("All yields %d tokens, tiktoken-go has %d", n, len(want))
	}
	for _, s := range []string{"", strings.Repeat("a", 129), strings.Repeat(" ", 200)} {
		check(s)
	}
	if tok := tokenizer(t); tok.ranks.Len() != len(want) {
		t.Fatalf("O200k has %d ranks, tiktoken-go %d", tok.ranks.Len(), len(want))
	}
}

// TestRanksGenerated checks that the embedded table is what go generate
// makes from the table tiktoken-go-loader embeds today.
func TestRanksGenerated(t *testing.T) {
	f, err := assets.Assets.Open(Encoding + ".tiktoken")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, err := ranktable.Build(f)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != o200kRanks {
		t.Fatalf("o200k_base.ranks (%d bytes) differs from what ranktable.Build makes (%d bytes): run go generate ./chunk", len(o200kRanks), len(data))
	}
}

// BenchmarkRankLookup looks up the pieces of a corpus sample and every
// substring of 2 to 4 bytes of them (what byte-pair encoding looks up,
// mostly not tokens) in the rank table (table) and in a Go map of the
// same ranks (map), as the tokenizer did before: ns/op is per lookup.
func BenchmarkRankLookup(b *testing.B) {
	text := corpusSample(b, 1<<20)
	var keys []string
	for i := 0; i < len(text); {
		end := nextPiece(text, i)
		p := text[i:end]
		keys = append(keys, p)
		for l := 2; l <= 4; l++ {
			for k := 0; k+l <= len(p) && k < 8; k++ {
				keys = append(keys, p[k:k+l])
			}
		}
		i = end
	}
	ranks, err := loadRanks()
	if err != nil {
		b.Fatal(err)
	}
	m := make(map[string]int, len(oracleRanks(b)))
	for tok, id := range oracleRanks(b) {
		m[tok] = id
	}
	b.Run("table", func(b *testing.B) {
		sum := 0
		for i := 0; b.Loop(); i++ {
			if r, ok := ranks.Rank(keys[i%len(keys)]); ok {
				sum += r
			}
		}
		_ = sum
	})
	b.Run("map", func(b *testing.B) {
		sum := 0
		for i := 0; b.Loop(); i++ {
			if r, ok := m[keys[i%len(keys)]]; ok {
				sum += r
			}
		}
		_ = sum
	})
}

// loadTiktoken is what loading the tokenizer cost before it read the
// table itself: tiktoken-go's offline loader, GetEncoding on the table it
// loaded (GetEncoding caches the table of its first call, but builds its
// encoder anew on each), then the token lengths.
func loadTiktoken(tb testing.TB) {
	ranks, err := tiktokenloader.NewOfflineLoader().LoadTiktokenBpe(Encoding + ".tiktoken")
	if err != nil {
		tb.Fatal(err)
	}
	tiktoken.SetBpeLoader(loadedRanks(ranks))
	if _, err := tiktoken.GetEncoding(Encoding); err != nil {
		tb.Fatal(err)
	}
	lengths := make([]uint16, len(ranks))
	for tok, id := range ranks {
		lengths[id] = uint16(len(tok))
	}
}

// loadedRanks is a tiktoken-go BPE loader that returns the ranks it holds.
type loadedRanks map[string]int

func (r loadedRanks) LoadTiktokenBpe(string) (map[string]int, error) { return r, nil }

func loadCite(tb testing.TB) {
	if _, err := newTokenizer(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkO200kLoad measures loading the tokenizer: cite's table alone
// (cite) against what it cost with tiktoken-go (tiktoken-go), in this
// process and in a fresh process per iteration (process/..., what a `cite
// index` pays: load-ms, cpu-ms and faults are measured inside the child,
// around the load; rss-mb is the child's peak RSS, test binary included).
// The machine's load changes wall times several-fold: compare within a
// run.
func BenchmarkO200kLoad(b *testing.B) {
	loads := []struct {
		name string
		load func(testing.TB)
	}{{"cite", loadCite}, {"tiktoken-go", loadTiktoken}}
	for _, l := range loads {
		b.Run(l.name, func(b *testing.B) {
			for b.Loop() {
				l.load(b)
			}
		})
	}
	for _, l := range loads {
		b.Run("process/"+l.name, func(b *testing.B) {
			var wall, cpu time.Duration
			var faults, rss int64
			for b.Loop() {
				cmd := exec.Command(os.Args[0], "-test.run=^TestO200kLoadChild$")
				cmd.Env = append(os.Environ(), "CITE_O200K_LOAD="+l.name)
				out, err := cmd.CombinedOutput()
				if err != nil {
					b.Fatalf("child: %v\n%s", err, out)
				}
				var w, c, f, r int64
				if _, err := fmt.Sscanf(string(out), "load wall=%d cpu=%d faults=%d hwm=%d", &w, &c, &f, &r); err != nil {
					b.Fatalf("child said %q: %v", out, err)
				}
				wall += time.Duration(w)
				cpu += time.Duration(c)
				faults += f
				rss += r
			}
			n := float64(b.N)
			b.ReportMetric(float64(wall.Microseconds())/1000/n, "load-ms")
			b.ReportMetric(float64(cpu.Microseconds())/1000/n, "cpu-ms")
			b.ReportMetric(float64(faults)/n, "faults")
			b.ReportMetric(float64(rss)/1024/n, "rss-mb")
		})
	}
}

// TestO200kLoadChild is BenchmarkO200kLoad's child process: it loads the
// tokenizer as $CITE_O200K_LOAD says and prints the wall time, CPU time
// and page faults that took.
func TestO200kLoadChild(t *testing.T) {
	var load func(testing.TB)
	switch os.Getenv("CITE_O200K_LOAD") {
	case "":
		t.Skip("run by BenchmarkO200kLoad")
	case "cite":
		load = loadCite
	case "tiktoken-go":
		load = loadTiktoken
	}
	start, u0 := time.Now(), rusage(t)
	load(t)
	wall, u := time.Since(start), rusage(t)
	cpu := time.Duration(u.Utime.Nano() + u.Stime.Nano() - u0.Utime.Nano() - u0.Stime.Nano())
	fmt.Printf("load wall=%d cpu=%d faults=%d hwm=%d\n", wall, cpu, u.Minflt+u.Majflt-u0.Minflt-u0.Majflt, peakRSS(t))
}

// peakRSS returns the process's peak RSS in KB (VmHWM: unlike the
// rusage of a child, it does not count the parent's before exec).
func peakRSS(tb testing.TB) int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Fatal(err)
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			if _, err := fmt.Sscanf(v, "%d kB", &kb); err != nil {
				tb.Fatal(err)
			}
			return kb
		}
	}
	tb.Fatal("no VmHWM in /proc/self/status")
	return 0
}

func rusage(tb testing.TB) syscall.Rusage {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		tb.Fatal(err)
	}
	return u
}
