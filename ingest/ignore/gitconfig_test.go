package ignore

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// configCases are git config files and the core.excludesFile they set.
var configCases = []struct {
	name   string
	config string
	want   string
	found  bool
}{
	{"unset", "[user]\n\tname = A\n", "", false},
	{"empty file", "", "", false},
	{"set", "[core]\n\texcludesFile = ~/.gitignore_global\n", "~/.gitignore_global", true},
	{"names in any case", "[CORE]\n\tEXCLUDESFILE=/etc/ignore\n", "/etc/ignore", true},
	{"the last one wins", "[core]\nexcludesfile = /a\n[user]\nname = x\n[core]\nexcludesfile = /b\n", "/b", true},
	{"on the header's line", "[core] excludesFile = /x\n", "/x", true},
	{"comments", "# [core] excludesFile = /no\n; nor\n[core]\n\texcludesFile = /yes # a comment\n", "/yes", true},
	{"a semicolon comment", "[core]\nexcludesFile = /yes;no\n", "/yes", true},
	{"quoted", "[core]\nexcludesFile = \"/with space/# not a comment\" \n", "/with space/# not a comment", true},
	{"quotes inside", "[core]\nexcludesFile = /a\" b \"c\n", "/a b c", true},
	{"escapes", "[core]\nexcludesFile = /a\\\\b\\\"c\n", "/a\\b\"c", true},
	{"a continued line", "[core]\nexcludesFile = /long\\\n/path\n", "/long/path", true},
	{"spaces inside kept, around dropped", "[core]\nexcludesFile =   /a  b   \n", "/a  b", true},
	{"CRLF", "[core]\r\n\texcludesFile = /crlf\r\n", "/crlf", true},
	{"no newline at the end", "[core]\nexcludesFile=/end", "/end", true},
	{"empty value", "[core]\nexcludesFile =\n", "", true},
	{"another section's", "[other]\nexcludesFile = /no\n", "", false},
	{"a subsection's", "[core \"x\"]\nexcludesFile = /no\n", "", false},
	{"another variable", "[core]\nexcludesFileX = /no\nautocrlf = input\n", "", false},
	{"after other variables", "[core]\n\tbare = false\n\tfilemode\n\texcludesFile = /x\n", "/x", true},
	{"an include is not followed", "[include]\n\tpath = other\n[core]\nexcludesFile = /x\n", "/x", true},
	{"the old subsection syntax", "[core.x]\nexcludesFile = /no\n", "", false},
	{"after a conditional include", "[includeIf \"gitdir:~/work/\"]\n\tpath = w\n[core]\nexcludesFile = /x\n", "/x", true},
	{"a subsection with escapes", "[core \"a\\\"b\"]\nexcludesFile = /no\n[core]\nexcludesFile = /x\n", "/x", true},
}

func TestExcludesConfig(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		want         []ConfigEntry
	}{
		{"none", "[user]\nname = A\n", nil},
		{"in order", "[include]\npath = ~/a\n[core]\nexcludesFile = /x\n[include]\n\tpath = \"b c\"\n",
			[]ConfigEntry{{Include: true, Value: "~/a"}, {Value: "/x"}, {Include: true, Value: "b c"}}},
		{"conditions as written", "[includeIf \"gitdir:~/Work/\"]\n\tpath = w.inc\n[IncludeIf \"gitdir/i:C:\\\\x\"]\nPATH = i.inc\n[includeIf \"onbranch:main\"]\npath=m.inc\n",
			[]ConfigEntry{{Include: true, Condition: "gitdir:~/Work/", Value: "w.inc"}, {Include: true, Condition: `gitdir/i:C:\x`, Value: "i.inc"}, {Include: true, Condition: "onbranch:main", Value: "m.inc"}}},
		{"not an include", "[include \"x\"]\npath = no\n[includeIf]\npath = no\n[include]\npaths = no\npath\n", nil},
		{"the old syntax", "[include.x]\npath = y\n[includeIf.x]\npath = z\n", []ConfigEntry{{Include: true, Condition: "x", Value: "z"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ExcludesConfig([]byte(tc.config)); !slices.Equal(got, tc.want) {
				t.Errorf("ExcludesConfig(%q) = %+v, want %+v", tc.config, got, tc.want)
			}
		})
	}
}

func TestExcludesFile(t *testing.T) {
	for _, tc := range configCases {
		t.Run(tc.name, func(t *testing.T) {
			got, found := ExcludesFile([]byte(tc.config))
			if got != tc.want || found != tc.found {
				t.Errorf("ExcludesFile(%q) = %q, %v, want %q, %v", tc.config, got, found, tc.want, tc.found)
			}
		})
	}
}

// TestExcludesFileAgainstGit reads each case with git config --get, when
// git is installed: the same value, or none.
func TestExcludesFileAgainstGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for _, tc := range configCases {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "config")
			if err := os.WriteFile(f, []byte(tc.config), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("git", "config", "--file", f, "--get", "core.excludesFile")
			cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
			out, err := cmd.Output()
			found := err == nil
			if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() != 1 {
				t.Fatalf("git config: %v: %s", err, ee.Stderr)
			}
			got := strings.TrimSuffix(string(out), "\n")
			if got != tc.want || found != tc.found {
				t.Errorf("git reads %q, %v; want %q, %v", got, found, tc.want, tc.found)
			}
		})
	}
}

// FuzzExcludesFile reads any config: nothing panics, and a plain value
// set in [core] after it (and an empty line, which ends a line it
// continues) is read back without the blanks around it.
func FuzzExcludesFile(f *testing.F) {
	for _, tc := range configCases {
		f.Add(tc.config, "/x")
	}
	f.Add("[core", "a")
	f.Add("[core]\nexcludesFile = \"open", "b")
	f.Add("[core]\nexcludesFile = a\\", "c")
	f.Add("[core]\nexcludesFile = \\q", " d ")
	f.Add("[includeIf \"gitdir:~/w/\"]\npath = x\n[core \"a\\\"", "e")
	f.Add("[include.x]\npath = y\n[inc\\", "f")
	f.Add("[core \"\n\"]", "g")
	f.Fuzz(func(t *testing.T, config, v string) {
		ExcludesFile([]byte(config))
		if strings.ContainsAny(v, "\"\\#;\n\r") {
			return
		}
		got, found := ExcludesFile([]byte(config + "\n\n[core]\n\texcludesFile = " + v + "\n"))
		if want := strings.Trim(v, " \t"); !found || got != want {
			t.Errorf("after %q, excludesFile = %q read %q, %v; want %q", config, v, got, found, want)
		}
	})
}
