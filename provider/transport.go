package provider

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Defaults of [Transport].
const (
	DefaultMaxAttempts   = 5
	DefaultBaseDelay     = 500 * time.Millisecond
	DefaultMaxDelay      = 20 * time.Second
	DefaultMaxRetryAfter = 2 * time.Minute
)

// Transport is an [http.RoundTripper] that retries transient failures of
// the one beneath it: HTTP 408, 429 and 5xx responses, and connections
// refused or reset. It never retries another status (a 400 stays a 400).
// It waits the delay the server asks for in Retry-After (at most
// MaxRetryAfter), else an exponential backoff with jitter, and stops as soon
// as the request's context is done. A request body is replayed through
// [http.Request.GetBody] (which http.NewRequest sets for in-memory bodies);
// a request whose body cannot be replayed is sent once.
//
// Its zero value is ready to use.
type Transport struct {
	// Base sends each attempt (default http.DefaultTransport).
	Base http.RoundTripper
	// MaxAttempts bounds the attempts of one request, counting the first
	// (default [DefaultMaxAttempts]).
	MaxAttempts int
	// BaseDelay is the backoff before the first retry, doubled for each
	// next one up to MaxDelay (defaults [DefaultBaseDelay],
	// [DefaultMaxDelay]); the wait is drawn between half of it and all.
	BaseDelay, MaxDelay time.Duration
	// MaxRetryAfter caps a server's Retry-After (default
	// [DefaultMaxRetryAfter]).
	MaxRetryAfter time.Duration

	// sleep waits d or until ctx is done; tests replace it.
	sleep func(ctx context.Context, d time.Duration) error
}

var _ http.RoundTripper = (*Transport)(nil)

// maxErrorBody bounds what is kept of an error response's body.
const maxErrorBody = 64 << 10

// RoundTrip sends req, retrying transient failures.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	ex := exchangeFrom(ctx)
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	maxAttempts := t.MaxAttempts
	if maxAttempts <= 0 {
		maxAttempts = DefaultMaxAttempts
	}
	replayable := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
	for attempt := 1; ; attempt++ {
		r := req
		if attempt > 1 && req.Body != nil && req.Body != http.NoBody {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			r = req.Clone(ctx)
			r.Body = body
		}
		resp, err := base.RoundTrip(r)
		ex.record(resp, err)
		if ctx.Err() != nil || attempt >= maxAttempts || !replayable || !transient(resp, err) {
			if err == nil {
				ex.keepError(resp)
			}
			return resp, err
		}
		delay := t.backoff(attempt)
		if resp != nil {
			if ra, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
				delay = min(ra, t.maxRetryAfter())
			}
			io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
			resp.Body.Close()
		}
		sleep := t.sleep
		if sleep == nil {
			sleep = sleepContext
		}
		if err := sleep(ctx, delay); err != nil {
			return nil, err
		}
	}
}

// transient reports whether an attempt's failure may pass on its own.
func transient(resp *http.Response, err error) bool {
	if err != nil {
		return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
			errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
	}
	s := resp.StatusCode
	return s == http.StatusRequestTimeout || s == http.StatusTooManyRequests || s >= 500
}

func (t *Transport) maxRetryAfter() time.Duration {
	if t.MaxRetryAfter > 0 {
		return t.MaxRetryAfter
	}
	return DefaultMaxRetryAfter
}

// backoff returns the delay before retry number attempt (1 for the first
// retry): exponential, capped, with equal jitter.
func (t *Transport) backoff(attempt int) time.Duration {
	base, maxDelay := t.BaseDelay, t.MaxDelay
	if base <= 0 {
		base = DefaultBaseDelay
	}
	if maxDelay <= 0 {
		maxDelay = DefaultMaxDelay
	}
	d := base << min(attempt-1, 30)
	if d <= 0 || d > maxDelay {
		d = maxDelay
	}
	half := d / 2
	return half + rand.N(half+1)
}

// retryAfter parses a Retry-After header: delay-seconds or an HTTP date.
func retryAfter(header string, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(header)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		return time.Duration(min(secs, 1<<31)) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}

// exchange records what the attempts of one call got, for its [Error]:
// langchaingo's clients turn a failed response into a string (or, for
// transport errors, a generic one), so the facts are taken here.
type exchange struct {
	mu       sync.Mutex
	attempts int
	status   int    // of the last response, 0 if none
	body     []byte // of the last error response, up to maxErrorBody
	err      error  // of the last attempt without a response
}

type exchangeKey struct{}

// withExchange returns a context under which a [Transport] records its
// attempts in the returned exchange.
func withExchange(ctx context.Context) (context.Context, *exchange) {
	ex := &exchange{}
	return context.WithValue(ctx, exchangeKey{}, ex), ex
}

func exchangeFrom(ctx context.Context) *exchange {
	ex, _ := ctx.Value(exchangeKey{}).(*exchange)
	return ex
}

func (ex *exchange) record(resp *http.Response, err error) {
	if ex == nil {
		return
	}
	ex.mu.Lock()
	defer ex.mu.Unlock()
	ex.attempts++
	ex.status, ex.err, ex.body = 0, err, nil
	if resp != nil {
		ex.status = resp.StatusCode
	}
}

// keepError keeps the start of the body of a final error response, and
// gives the response a body that reads the same.
func (ex *exchange) keepError(resp *http.Response) {
	if ex == nil || resp.StatusCode < 300 {
		return
	}
	head, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), errReader{err}, resp.Body), resp.Body}
	ex.mu.Lock()
	ex.body = head
	ex.mu.Unlock()
}

// errReader returns err, or io.EOF when err is nil.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	return 0, io.EOF
}

// snapshot returns what was recorded.
func (ex *exchange) snapshot() (attempts, status int, body []byte, err error) {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return ex.attempts, ex.status, ex.body, ex.err
}
