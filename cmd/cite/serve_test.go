package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeToken: cite serve's token is the one given, checked, or a
// random one; --no-token only on loopback.
func TestServeToken(t *testing.T) {
	long := "0123456789abcdef"
	tests := []struct {
		name, token, given string
		noToken            bool
		addr               string
		want               string // "random", "" for none, else the token
		err                string
	}{
		{"default: random on loopback", "", "", false, "127.0.0.1:8080", "random", ""},
		{"default: random off loopback", "", "", false, "0.0.0.0:8080", "random", ""},
		{"--token", long, "--token", false, "0.0.0.0:8080", long, ""},
		{"CITE_TOKEN", long, "CITE_TOKEN", false, "192.168.1.2:80", long, ""},
		{"short token on loopback", "tok", "--token", false, "localhost:8080", "tok", ""},
		{"short token off loopback", "tok", "--token", false, "0.0.0.0:8080", "", "--token: the token is 3 characters"},
		{"short CITE_TOKEN off loopback", "tok", "CITE_TOKEN", false, "[::]:8080", "", "CITE_TOKEN: the token is 3 characters"},
		{"empty --token", "", "--token", false, "127.0.0.1:8080", "", "--token: the token is empty"},
		{"whitespace CITE_TOKEN", "   ", "CITE_TOKEN", false, "127.0.0.1:8080", "", "CITE_TOKEN: the token is empty"},
		{"space inside", "0123456789 abcdef", "--token", false, "127.0.0.1:8080", "", "a space"},
		{"--no-token on loopback", "", "", true, "127.0.0.1:8080", "", ""},
		{"--no-token beats CITE_TOKEN", long, "CITE_TOKEN", true, "[::1]:8080", "", ""},
		{"--no-token off loopback", "", "", true, "0.0.0.0:8080", "", "not loopback"},
		{"--no-token with --token", long, "--token", true, "127.0.0.1:8080", "", "contradict"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := serveToken(tt.token, tt.given, tt.noToken, tt.addr)
			switch {
			case tt.err != "":
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("error %v, want %q", err, tt.err)
				}
			case err != nil:
				t.Errorf("error %v", err)
			case tt.want == "random":
				if len(got) != 48 {
					t.Errorf("token %q", got)
				}
			case got != tt.want:
				t.Errorf("token %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLoginURL(t *testing.T) {
	addr := func(s string) net.Addr { a, _ := net.ResolveTCPAddr("tcp", s); return a }
	tests := []struct {
		host, ln, token, want string
	}{
		{"127.0.0.1", "127.0.0.1:8080", "abc", "http://127.0.0.1:8080/?token=abc"},
		{"localhost", "127.0.0.1:41234", "a+b/c", "http://localhost:41234/?token=a%2Bb%2Fc"},
		{"0.0.0.0", "0.0.0.0:8080", "abc", "http://127.0.0.1:8080/?token=abc"},
		{"", "[::]:8080", "abc", "http://127.0.0.1:8080/?token=abc"},
		{"::1", "[::1]:8080", "", "http://[::1]:8080/"},
		{"192.168.1.2", "192.168.1.2:80", "abc", "http://192.168.1.2:80/?token=abc"},
	}
	for _, tt := range tests {
		if got := loginURL(tt.host, addr(tt.ln), tt.token); got != tt.want {
			t.Errorf("loginURL(%q, %s) = %q, want %q", tt.host, tt.ln, got, tt.want)
		}
	}
}

// TestServeNoIndex: cite serve without --watch does not start on a folder
// that has no index, and cite serve --watch, which would make one, makes
// none below a folder that has one (as cite index), naming it.
func TestServeNoIndex(t *testing.T) {
	top := t.TempDir()
	idx := filepath.Join(top, ".cite")
	if code, out, errOut := cite(t, "index", "--index", idx, "--quiet", corpus); code != 0 {
		t.Fatalf("index: exit %d\n%s%s", code, out, errOut)
	}
	sub := filepath.Join(top, "a")
	os.MkdirAll(sub, 0o755)
	t.Chdir(sub)
	docs := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		says string
	}{
		{"serve", []string{"serve", "--no-token", "--addr", "127.0.0.1:0", "--index", filepath.Join(t.TempDir(), "none")}, "no index (run cite index PATH to create one)"},
		{"serve --watch below an index", []string{"serve", "--watch", "--no-token", "--addr", "127.0.0.1:0", docs},
			"no index in this folder, and the nearest index above it is " + idx + ": run cite there, or pass --index " + idx + " (--index .cite makes a new one here)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := cite(t, tc.args...)
			if code != exitFailure || !strings.Contains(errOut, tc.says) {
				t.Errorf("exit %d\n%s%s\nwant %s", code, out, errOut, tc.says)
			}
			if _, err := os.Stat(filepath.Join(sub, ".cite")); !os.IsNotExist(err) {
				t.Errorf("an index was made here: %v", err)
			}
		})
	}
}

// TestServeAskFlags: cite ask's flags that a server's requests set for
// themselves are not cite serve's; before, cite serve --source notes -k 1
// took them and answered from every source with five passages.
func TestServeAskFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--source", "notes"}, {"-k", "1"}, {"--doc", "a.md"}, {"--tool", "current_datetime"}, {"--no-reference-list"},
	} {
		code, _, stderr := cite(t, append([]string{"serve", "--no-token", "--addr", "127.0.0.1:0", "--index", t.TempDir()}, args...)...)
		if want := "flag provided but not defined: -" + strings.TrimLeft(args[0], "-"); code != exitUsage || !strings.Contains(stderr, want) {
			t.Errorf("serve %v: exit %d, %s; want %d and %q", args, code, stderr, exitUsage, want)
		}
	}
}

// TestServeExposure: cite serve says, on stderr, when --addr is more than
// loopback: every interface for a host left out (":8080", which Go and
// the system read as all of them), 0.0.0.0 or ::, what is exposed, and
// how to keep it to this machine; nothing on loopback.
func TestServeExposure(t *testing.T) {
	addr := func(s string) net.Addr { a, _ := net.ResolveTCPAddr("tcp", s); return a }
	for _, tc := range []struct {
		name, addr, bound string
		hosts             []string
		want, not         []string
	}{
		{"loopback", "127.0.0.1:8080", "127.0.0.1:8080", nil, nil, nil},
		{"localhost", "localhost:8080", "127.0.0.1:8080", nil, nil, nil},
		{"::1", "[::1]:8080", "[::1]:8080", nil, nil, nil},
		{"a host left out", ":8080", "[::]:8080", nil, []string{
			"warning: --addr :8080 listens on every network interface ([::]:8080",
			"anyone who can reach this machine on port 8080 can call the API",
			"with the token ask, read every indexed document, upload and delete",
			"unencrypted (plain HTTP, no TLS)",
			"unless --host names it",
			"--addr 127.0.0.1:8080 keeps it to this machine",
		}, nil},
		{"port 0", ":0", "[::]:41234", nil, []string{"every network interface ([::]:41234", "port 41234", "--addr 127.0.0.1:41234"}, nil},
		{"0.0.0.0", "0.0.0.0:8080", "0.0.0.0:8080", []string{"0.0.0.0"}, []string{"every network interface", "unless --host names it"}, nil},
		{"every interface, with --host", ":8080", "[::]:8080", []string{"cite.lan"}, []string{"every network interface"}, []string{"--host"}},
		{"an interface's address", "192.168.1.2:80", "192.168.1.2:80", []string{"192.168.1.2"}, []string{
			"--addr 192.168.1.2:80 is not loopback", "anyone who can reach 192.168.1.2 on port 80", "--addr 127.0.0.1:80",
		}, []string{"every network interface", "--host"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := exposure(tc.addr, addr(tc.bound), tc.hosts)
			if tc.want == nil && got != "" {
				t.Fatalf("a warning on loopback: %s", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("no %q in %q", w, got)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(got, n) {
					t.Errorf("%q in %q", n, got)
				}
			}
		})
	}
}
