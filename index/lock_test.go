//go:build unix

package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
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
