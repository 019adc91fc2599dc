//go:build unix

package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLockWriter: a second writer waits, says so, and gets the lock when the
// first releases it.
func TestLockWriter(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "idx")
	unlock, err := LockWriter(t.Context(), dir, func() { t.Error("waited for a free lock") })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, lockFile)); err != nil {
		t.Fatal(err)
	}
	waited := make(chan struct{})
	got := make(chan error, 1)
	go func() {
		unlock2, err := LockWriter(t.Context(), dir, func() { close(waited) })
		if err == nil {
			err = unlock2()
		}
		got <- err
	}()
	<-waited // the second writer is waiting
	select {
	case err := <-got:
		t.Fatalf("second writer got the lock while the first held it (%v)", err)
	default:
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	// Free again.
	unlock, err = LockWriter(t.Context(), dir, func() { t.Error("waited for a free lock") })
	if err != nil {
		t.Fatal(err)
	}
	unlock()
}

func TestLockWriterCancel(t *testing.T) {
	dir := t.TempDir()
	unlock, err := LockWriter(t.Context(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithCancel(t.Context())
	_, err = LockWriter(ctx, dir, cancel)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestOpenEmptyFile: an empty index.db is damaged for every open but a
// creating one, unless a writer holds the lock: then it is an index being
// created, not there yet.
func TestOpenEmptyFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, dbFile), nil, 0o644)
	for _, opts := range []Options{{ReadOnly: true}, {}} {
		_, err := Open(t.Context(), dir, opts)
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "empty (0 bytes)") || !strings.Contains(err.Error(), "cite check --repair") {
			t.Errorf("open %+v: %v, want ErrCorrupt naming the repair", opts, err)
		}
	}
	unlock, err := LockWriter(t.Context(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(t.Context(), dir, Options{ReadOnly: true}); !errors.Is(err, ErrNoIndex) {
		t.Errorf("open read-only while a writer holds the lock: %v, want ErrNoIndex", err)
	}
	unlock()
	st, err := Open(t.Context(), dir, Options{Create: true})
	if err != nil {
		t.Fatalf("open to create: %v", err)
	}
	st.Close()
}
