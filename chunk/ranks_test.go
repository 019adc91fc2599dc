package chunk

import (
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// oracleRanks returns the rank table as tiktoken-go loads it (with the
// offline loader, as GetEncoding does).
func oracleRanks(tb testing.TB) map[string]int {
	tb.Helper()
	ranks, err := tiktokenloader.NewOfflineLoader().LoadTiktokenBpe(Encoding + ".tiktoken")
	if err != nil {
		tb.Fatal(err)
	}
	return ranks
}

// TestLoadRanks checks the Tokenizer's rank table and token lengths
// against tiktoken-go's table, entry by entry.
func TestLoadRanks(t *testing.T) {
	ranks, lengths, err := loadRanks()
	if err != nil {
		t.Fatal(err)
	}
	want := oracleRanks(t)
	if len(ranks) != len(want) || len(lengths) != len(want) {
		t.Fatalf("%d ranks, %d lengths; tiktoken-go has %d ranks", len(ranks), len(lengths), len(want))
	}
	for tok, id := range want {
		if got, ok := ranks[tok]; !ok || got != id {
			t.Fatalf("token %q: rank %d (found %v), tiktoken-go %d", tok, got, ok, id)
		}
		if int(lengths[id]) != len(tok) {
			t.Fatalf("token %q: length %d, want %d", tok, lengths[id], len(tok))
		}
	}
	if tok := tokenizer(t); len(tok.ranks) != len(want) {
		t.Fatalf("O200k has %d ranks, tiktoken-go %d", len(tok.ranks), len(want))
	}
}

func TestParseRanksErrors(t *testing.T) {
	var bytes strings.Builder // every byte a token, ranks 0-255
	for b := range 256 {
		fmt.Fprintf(&bytes, "%s %d\n", base64.StdEncoding.EncodeToString([]byte{byte(b)}), b)
	}
	valid := bytes.String()
	if ranks, lengths, err := parseRanks(strings.NewReader(valid+"\n"+"aGk= 256"), len(valid)+9); err != nil || len(ranks) != 257 || ranks["hi"] != 256 || lengths[256] != 2 {
		t.Fatalf("valid table: %d ranks, hi %d, err %v", len(ranks), ranks["hi"], err)
	}
	for _, tc := range []struct{ name, data, want string }{
		{"empty", "", "byte 0x00 is not a token"},
		{"no space", valid + "aGk=256\n", "line 257: no space between token and rank"},
		{"bad base64", valid + "a!k= 256\n", "line 257: token: illegal base64 data"},
		{"empty token", valid + " 256\n", "line 257: token of 0 bytes"},
		{"long token", valid + base64.StdEncoding.EncodeToString(make([]byte, 129)) + " 256\n", "line 257: token of 129 bytes"},
		{"longer token", valid + base64.StdEncoding.EncodeToString(make([]byte, 300)) + " 256\n", "line 257: token of over 128 bytes"},
		{"bad rank", valid + "aGk= 2x\n", `line 257: rank "2x" is not a number`},
		{"negative rank", valid + "aGk= -1\n", `line 257: rank "-1" is not a number`},
		{"rank gap", valid + "aGk= 257\n", "rank 257: want ranks 0 to 256, each once"},
		{"rank twice", valid + "aGk= 3\n", "rank 3: want ranks 0 to 256, each once"},
		{"token twice", valid + "aGk= 256\naGk= 257\n", "258 tokens, 257 distinct"},
		{"byte missing", strings.Replace(valid, "AA== 0\n", "aGk= 0\n", 1), "byte 0x00 is not a token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := parseRanks(strings.NewReader(tc.data), len(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
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
