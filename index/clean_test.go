package index

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cite-rag/cite/index/embed"
)

// TestCleanClose: an index its last writer checked and closed cleanly is
// opened with Options.Verify without SQLite's quick_check; anything else
// that may have happened to the file since (a writer that did not check,
// a process that never closed, other programs' writes, even with the
// modification time set back, a copy over it, a log left beside it)
// brings the check back, and a damaged file is refused as before.
func TestCleanClose(t *testing.T) {
	if _, ok := statFile(os.Args[0]); !ok {
		t.Skip("no file stamps on this system: every open checks")
	}
	e, err := embed.New("hash:256", embed.Config{})
	if err != nil {
		t.Fatal(err)
	}
	// garbage writes 4 KB of random bytes in the middle of the file, where
	// the damage tests show quick_check finds them.
	garbage := func(t *testing.T, file string) {
		fi, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(file, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteAt(randomBytes(4096, 9), fi.Size()/2/4096*4096); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name string
		// after happens between the clean close and the open tested.
		after     func(t *testing.T, dir, file string)
		wantCheck bool
		wantErr   error
	}{
		{"nothing", func(*testing.T, string, string) {}, false, nil},
		{"a checked writer closed cleanly", func(t *testing.T, dir, file string) {
			st, err := Open(t.Context(), dir, Options{Verify: true})
			if err != nil {
				t.Fatal(err)
			}
			if st.QuickChecked() {
				t.Error("the first reopen ran quick_check after a clean close")
			}
			putTexts(t, st, e, "/more.txt", "one more document, written after a clean close")
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
		}, false, nil},
		{"a writer that did not check", func(t *testing.T, dir, file string) {
			st, err := Open(t.Context(), dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			putTexts(t, st, e, "/more.txt", "written without a check")
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
		}, true, nil},
		{"a checked writer never closed (a crash)", func(t *testing.T, dir, file string) {
			st, err := Open(t.Context(), dir, Options{Verify: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			putTexts(t, st, e, "/more.txt", "written by a process that dies")
		}, true, nil},
		{"times changed", func(t *testing.T, dir, file string) {
			later := time.Now().Add(time.Hour)
			if err := os.Chtimes(file, later, later); err != nil {
				t.Fatal(err)
			}
		}, true, nil},
		{"4 KB of random bytes, times set back", func(t *testing.T, dir, file string) {
			fi, err := os.Stat(file)
			if err != nil {
				t.Fatal(err)
			}
			garbage(t, file)
			if err := os.Chtimes(file, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
			if now, err := os.Stat(file); err != nil || !now.ModTime().Equal(fi.ModTime()) || now.Size() != fi.Size() {
				t.Fatalf("size and modification time not restored: %v %v", now, err)
			}
		}, true, ErrCorrupt},
		{"4 KB of random bytes at once after a checked writer's commit and close, times set back", func(t *testing.T, dir, file string) {
			// The close writes the file (its log folded in) and the
			// record; the bytes come at once after, within the same tick
			// of the clock that stamps the file's times, unless the
			// close waited for the next.
			st, err := Open(t.Context(), dir, Options{Verify: true})
			if err != nil {
				t.Fatal(err)
			}
			putTexts(t, st, e, "/more.txt", "written just before the close")
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(file)
			if err != nil {
				t.Fatal(err)
			}
			garbage(t, file)
			if err := os.Chtimes(file, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
		}, true, ErrCorrupt},
		{"4 KB of random bytes while a checked writer had it open", func(t *testing.T, dir, file string) {
			st, err := Open(t.Context(), dir, Options{Verify: true})
			if err != nil {
				t.Fatal(err)
			}
			garbage(t, file)
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
		}, true, ErrCorrupt},
		{"replaced by a copy of itself with its times", func(t *testing.T, dir, file string) {
			fi, err := os.Stat(file)
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			tmp := file + ".copy"
			if err := os.WriteFile(tmp, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(tmp, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, file); err != nil {
				t.Fatal(err)
			}
		}, true, nil},
		{"a log beside it", func(t *testing.T, dir, file string) {
			// Not a log SQLite can read: it is ignored.
			if err := os.WriteFile(file+"-wal", randomBytes(4096, 10), 0o644); err != nil {
				t.Fatal(err)
			}
		}, true, nil},
		{"a record of another file", func(t *testing.T, dir, file string) {
			if err := writeClean(dir, fileStamp{Size: 4096}); err != nil {
				t.Fatal(err)
			}
		}, true, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			dir := damagedFixture(t) // closed cleanly, but not checked
			file := filepath.Join(dir, dbFile)
			st, err := Open(ctx, dir, Options{Verify: true})
			if err != nil {
				t.Fatal(err)
			}
			if !st.QuickChecked() {
				t.Fatal("no quick_check after a writer that did not check")
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(dir, cleanFile)); err != nil {
				t.Fatalf("no record of the clean close: %v", err)
			}

			c.after(t, dir, file)

			st, err = Open(ctx, dir, Options{Verify: true})
			if c.wantErr != nil {
				if !errors.Is(err, c.wantErr) {
					t.Fatalf("open: %v, want %v", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			defer st.Close()
			if st.QuickChecked() != c.wantCheck {
				t.Errorf("quick_check ran: %v, want %v", st.QuickChecked(), c.wantCheck)
			}
			if _, err := os.Stat(filepath.Join(dir, cleanFile)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the record of the clean close outlived a writable open: %v", err)
			}
		})
	}
}
