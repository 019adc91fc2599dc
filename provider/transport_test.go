package provider

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// scripted is a server answering request n with replies[n] (then 200 "ok"),
// recording the bodies it got.
type scripted struct {
	srv     *httptest.Server
	replies []reply
	mu      sync.Mutex
	bodies  []string
}

type reply struct {
	status int
	header map[string]string
	body   string
	hangup bool
}

func newScripted(t *testing.T, replies ...reply) *scripted {
	s := &scripted{replies: replies}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		n := len(s.bodies)
		s.bodies = append(s.bodies, string(b))
		s.mu.Unlock()
		if n >= len(s.replies) {
			io.WriteString(w, "ok")
			return
		}
		rp := s.replies[n]
		if rp.hangup {
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				conn.Close()
			}
			return
		}
		for k, v := range rp.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(rp.status)
		io.WriteString(w, rp.body)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *scripted) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies...)
}

// recordSleeps makes t record its waits instead of waiting.
func recordSleeps(t *Transport) *[]time.Duration {
	var mu sync.Mutex
	var sleeps []time.Duration
	t.sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		sleeps = append(sleeps, d)
		return ctx.Err()
	}
	return &sleeps
}

func post(t *testing.T, c *http.Client, ctx context.Context, url, body string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return c.Do(req)
}

func TestTransportRetries(t *testing.T) {
	date := time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat)
	tests := []struct {
		name     string
		replies  []reply
		status   int // of the response the client gets
		requests int
		minSleep []time.Duration
		maxSleep []time.Duration
	}{
		{"429 with Retry-After seconds", []reply{{status: 429, header: map[string]string{"Retry-After": "7"}}}, 200, 2,
			[]time.Duration{7 * time.Second}, []time.Duration{7 * time.Second}},
		{"503 with Retry-After date", []reply{{status: 503, header: map[string]string{"Retry-After": date}}}, 200, 2,
			[]time.Duration{20 * time.Second}, []time.Duration{30 * time.Second}},
		{"Retry-After capped", []reply{{status: 429, header: map[string]string{"Retry-After": "86400"}}}, 200, 2,
			[]time.Duration{DefaultMaxRetryAfter}, []time.Duration{DefaultMaxRetryAfter}},
		{"500 then 502: exponential backoff with jitter", []reply{{status: 500, body: "boom"}, {status: 502}}, 200, 3,
			[]time.Duration{DefaultBaseDelay / 2, DefaultBaseDelay}, []time.Duration{DefaultBaseDelay, 2 * DefaultBaseDelay}},
		{"408", []reply{{status: 408}}, 200, 2, []time.Duration{DefaultBaseDelay / 2}, []time.Duration{DefaultBaseDelay}},
		{"connection closed", []reply{{hangup: true}}, 200, 2, []time.Duration{DefaultBaseDelay / 2}, []time.Duration{DefaultBaseDelay}},
		{"400 is not retried", []reply{{status: 400}}, 400, 1, nil, nil},
		{"401 is not retried", []reply{{status: 401}}, 401, 1, nil, nil},
		{"409 is not retried", []reply{{status: 409}}, 409, 1, nil, nil},
		{"attempts bounded", []reply{{status: 503}, {status: 503}, {status: 503}, {status: 503}}, 503, 3,
			[]time.Duration{DefaultBaseDelay / 2, DefaultBaseDelay}, []time.Duration{DefaultBaseDelay, 2 * DefaultBaseDelay}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newScripted(t, tt.replies...)
			tr := &Transport{MaxAttempts: 3}
			sleeps := recordSleeps(tr)
			resp, err := post(t, &http.Client{Transport: tr}, t.Context(), s.srv.URL, "payload")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.status)
			}
			reqs := s.requests()
			if len(reqs) != tt.requests {
				t.Errorf("%d requests, want %d", len(reqs), tt.requests)
			}
			for i, b := range reqs {
				if b != "payload" {
					t.Errorf("request %d had body %q: not replayed", i, b)
				}
			}
			if len(*sleeps) != len(tt.minSleep) {
				t.Fatalf("slept %v, want %d sleeps", *sleeps, len(tt.minSleep))
			}
			for i, d := range *sleeps {
				if d < tt.minSleep[i] || d > tt.maxSleep[i] {
					t.Errorf("sleep %d = %v, want in [%v, %v]", i, d, tt.minSleep[i], tt.maxSleep[i])
				}
			}
		})
	}
}

// TestTransportRefused: a connection refused is retried, and the error is
// the transport's.
func TestTransportRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	tr := &Transport{MaxAttempts: 2}
	sleeps := recordSleeps(tr)
	_, err = post(t, &http.Client{Transport: tr}, t.Context(), "http://"+addr, "x")
	if err == nil || len(*sleeps) != 1 {
		t.Errorf("err %v after %d sleeps, want an error after 1", err, len(*sleeps))
	}
}

// TestTransportCancel: cancelling the context ends the wait at once.
func TestTransportCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	s := newScripted(t, reply{status: 500}, reply{status: 500})
	tr := &Transport{MaxAttempts: 100, BaseDelay: time.Hour, MaxDelay: time.Hour}
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := post(t, &http.Client{Transport: tr}, ctx, s.srv.URL, "x")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n := len(s.requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

// TestTransportUnreplayable: a body without GetBody is sent once.
func TestTransportUnreplayable(t *testing.T) {
	s := newScripted(t, reply{status: 503})
	tr := &Transport{}
	recordSleeps(tr)
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, s.srv.URL, io.NopCloser(strings.NewReader("x")))
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 || len(s.requests()) != 1 {
		t.Errorf("status %d after %d requests, want 503 after 1", resp.StatusCode, len(s.requests()))
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"120", 2 * time.Minute, true},
		{"-3", 0, false},
		{"soon", 0, false},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
	}
	for _, tt := range tests {
		got, ok := retryAfter(tt.in, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("retryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
