package pdf

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// shared holds the pdfium WebAssembly pools shared by every [Reader] of
// the process, one for interruptible instances and one for the others
// ([Reader.Uninterruptible]; their compiled code differs): each created on
// the first PDF read in its mode, never closed (it lives as long as the
// process, as a database connection pool does).
var shared [2]struct {
	once sync.Once
	pool pdfium.Pool
	err  error
}

// CacheDir returns the folder where wazero's compiled pdfium module is kept
// (os.UserCacheDir()/cite/wazero), and "" when the user has no cache folder.
func CacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "cite", "wazero")
}

// getPool returns the shared pool, creating it on first use. Compiling
// pdfium.wasm costs seconds once per machine; the compiled code is cached
// in [CacheDir], so later processes start in a fraction of that.
func getPool(interruptible bool) (pdfium.Pool, error) {
	sh := &shared[0]
	if interruptible {
		sh = &shared[1]
	}
	sh.once.Do(func() {
		sh.pool, sh.err = newPool(CacheDir(), runtime.GOMAXPROCS(0), interruptible)
	})
	return sh.pool, sh.err
}

// Start starts pdfium for r's reads in the background unless it is
// started already, and returns at once: a caller that expects PDFs calls
// it as early as it can, so that pdfium's start-up (tenths of a second of
// CPU with the compiled module cached) overlaps its other work instead of
// delaying the first PDF. It starts the runtime and one worker, which the
// pool keeps idle for the first [Reader.Read]. A Read meanwhile waits for
// the runtime's start; its error, if any, is the Read's.
func (r *Reader) Start() {
	go func() {
		if in, err := instance(context.Background(), !r.Uninterruptible); err == nil {
			in.Close()
		}
	}()
}

// newPool starts pdfium with its compiled code cached in cacheDir ("" for
// no cache). A compile that misses the cache runs on workers goroutines.
// The code of an interruptible pool checks, in loops and calls, whether
// its instance was killed, and each call into it starts a goroutine that
// kills the instance when the call's context is done (wazero's
// CloseOnContextDone): what lets [Reader.Timeout] stop a page mid-call,
// and what makes a text-heavy page several times slower to read, since
// pdfium is called several times a character.
//
// Where a warm start goes (BenchmarkStartup/process, CPU time): about 90%
// is wazero's CompileModule, which decodes and validates pdfium.wasm's
// 3.9 MB of code again in every process before it looks in the cache, then
// reads the 22 MB of cached machine code back and checksums it; its API
// has no way to skip either. Instantiating a worker (18 MB of memory, the
// data segments, _initialize, FPDF_InitLibrary) is the rest.
func newPool(cacheDir string, workers int, interruptible bool) (pdfium.Pool, error) {
	rc := wazero.NewRuntimeConfig().WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
		WithCloseOnContextDone(interruptible)
	if cacheDir != "" {
		if err := os.MkdirAll(cacheDir, 0o755); err == nil {
			if cache, err := wazero.NewCompilationCacheWithDir(cacheDir); err == nil {
				rc = rc.WithCompilationCache(cache)
			}
		}
	}
	p, err := webassembly.Init(webassembly.Config{
		// The context compiles the module (and parents the workers): a
		// cold compile spreads pdfium's functions over the cores.
		Context:  experimental.WithCompilationWorkers(context.Background(), max(1, workers)),
		MinIdle:  0,
		MaxIdle:  2,
		MaxTotal: 4,
		// No host folder is mounted: documents are opened from bytes, so
		// pdfium cannot read (or be tricked into reading) any file.
		FSConfig:      wazero.NewFSConfig(),
		RuntimeConfig: rc,
		Stdout:        io.Discard,
		Stderr:        io.Discard,
		ReuseWorkers:  true,
	})
	if err != nil {
		return nil, fmt.Errorf("start pdfium: %w", err)
	}
	return p, nil
}

// instance borrows a pdfium instance from the shared pool of its mode; the
// caller closes it.
func instance(ctx context.Context, interruptible bool) (pdfium.Pdfium, error) {
	p, err := getPool(interruptible)
	if err != nil {
		return nil, err
	}
	in, err := p.GetInstanceWithContext(ctx)
	if err != nil {
		return nil, fmt.Errorf("pdfium instance: %w", err)
	}
	return in, nil
}
