// Package chromiumtest starts real headless Chromium for tests, as
// chromedp drives it: Debian's chromium package (or $CHROMIUM), a fresh
// profile each time, and the flags that keep it quiet (no first-run,
// sync, component updates or background networking).
package chromiumtest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Bin finds the browser: $CHROMIUM, or chromium, chromium-browser or
// google-chrome on PATH. Without one the test is skipped, and fails in CI
// (CI=true), where .ci/run installs Debian's chromium package.
func Bin(t testing.TB) string {
	t.Helper()
	for _, name := range []string{os.Getenv("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed (.ci/run installs Debian's chromium package)")
	}
	t.Skip("chromium is not installed: apt-get install chromium chromium-driver to run the browser test")
	return ""
}

// Context starts headless Chromium from bin with a fresh profile and
// returns a chromedp context on its first tab that ends after timeout, and
// the function that closes the browser (called at the latest when the test
// ends); opts add to the allocator's options (a window size, say). The
// profile is removed when the test ends, without failing it: Chromium may
// still be writing to it as it exits.
func Context(t testing.TB, bin string, timeout time.Duration, opts ...chromedp.ExecAllocatorOption) (context.Context, context.CancelFunc) {
	t.Helper()
	profile, err := os.MkdirTemp("", "cite-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(profile) })
	all := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile),
	)
	all = append(all, opts...)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), all...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, timeout)
	stop := func() {
		cancelTime()
		cancelTab()
		cancelAlloc()
	}
	t.Cleanup(stop) // before the profile's removal: cleanups run last added first
	return ctx, stop
}
