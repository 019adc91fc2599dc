package server_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/cite-rag/cite/server"
)

func TestCheckToken(t *testing.T) {
	tests := []struct {
		name     string
		token    string
		loopback bool
		ok       bool
	}{
		{"empty", "", true, false},
		{"empty off loopback", "", false, false},
		{"spaces", "   ", true, false},
		{"tab inside", "abcdefgh\tijklmnopq", true, false},
		{"space inside", "abcdefgh ijklmnopq", false, false},
		{"non-ASCII", "pässwörd-pässwörd-1", false, false},
		{"short on loopback", "tok", true, true},
		{"short off loopback", "0123456789abcde", false, false},
		{"16 off loopback", "0123456789abcdef", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := server.CheckToken(tt.token, tt.loopback)
			if (err == nil) != tt.ok {
				t.Errorf("CheckToken(%q, %v) = %v", tt.token, tt.loopback, err)
			}
			if err != nil && strings.TrimSpace(tt.token) != "" && strings.Contains(err.Error(), tt.token) {
				t.Errorf("the error shows the token: %v", err)
			}
		})
	}
	a, err := server.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := server.NewToken()
	if len(a) != 48 || a == b || server.CheckToken(a, false) != nil {
		t.Errorf("NewToken: %q, then %q", a, b)
	}
	for addr, want := range map[string]bool{"127.0.0.1:8080": true, "127.0.0.2:1": true, "[::1]:80": true, "localhost:80": true,
		"0.0.0.0:8080": false, "[::]:80": false, ":8080": false, "192.168.1.2:80": false, "example.com:80": false} {
		if got := server.IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v", addr, got)
		}
	}
}

// lockedBuffer is a log destination for a server under test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestLogin: with a token, the page without a login is a login form, not
// a JSON 401; the login URL and the form exchange the token for an
// HttpOnly, SameSite=Strict cookie (and the URL's token is dropped by a
// redirect); the cookie works for the page's own requests only; a wrong
// token says so; the token is never in a response or the log.
func TestLogin(t *testing.T) {
	const token = "login-test-token-0123456789"
	var logs lockedBuffer
	ts, _ := start(t, nil, server.Config{Token: token, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	u, _ := url.Parse(ts.URL)
	self := "http://" + u.Host
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	send := func(t *testing.T, method, path, ctype, body string, cookie *http.Cookie, hdr ...string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		if cookie != nil {
			req.AddCookie(cookie)
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		for k, vs := range resp.Header {
			if strings.Contains(strings.Join(vs, " "), token) {
				t.Errorf("the token in header %s", k)
			}
		}
		if strings.Contains(b.String(), token) {
			t.Errorf("the token in the response to %s %s", method, path)
		}
		return resp, b.String()
	}

	// The login URL: a cookie, and a redirect that drops the token.
	resp, _ := send(t, "GET", "/?token="+url.QueryEscape(token), "", "", nil)
	cookies := resp.Cookies()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" || len(cookies) != 1 {
		t.Fatalf("login URL: %d, Location %q, cookies %v", resp.StatusCode, resp.Header.Get("Location"), cookies)
	}
	cookie := cookies[0]
	if !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode || cookie.Path != "/" || cookie.Value == token || cookie.Name != "cite-login-"+u.Port() {
		t.Errorf("cookie %+v", cookie)
	}
	// The login form gives the same cookie.
	resp, _ = send(t, "POST", "/login", "application/x-www-form-urlencoded", "token="+url.QueryEscape(token), nil, "Origin", self)
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 || resp.Cookies()[0].Value != cookie.Value {
		t.Errorf("login form: %d, cookies %v", resp.StatusCode, resp.Cookies())
	}
	wrongCookie := &http.Cookie{Name: cookie.Name, Value: strings.Repeat("0", len(cookie.Value))}

	tests := []struct {
		name, method, path, ctype, body string
		cookie                          *http.Cookie
		hdr                             []string
		status                          int
		want                            string // in the body
	}{
		{"page without login: the form", "GET", "/", "", "", nil, nil, 401, `<form id="login" method="post" action="/login">`},
		{"login URL with a wrong token", "GET", "/?token=nope", "", "", nil, nil, 401, "wrong token"},
		{"login form with a wrong token", "POST", "/login", "application/x-www-form-urlencoded", "token=nope", nil, []string{"Origin", self}, 401, "wrong token"},
		{"login form from another origin", "POST", "/login", "application/x-www-form-urlencoded", "token=" + token, nil, []string{"Origin", "http://evil.example"}, 403, "bad_origin"},
		{"page with the cookie", "GET", "/", "", "", cookie, nil, 200, `id="question"`},
		{"page with an outdated cookie: the form", "GET", "/", "", "", wrongCookie, nil, 401, `<form id="login"`},
		{"API with the cookie", "GET", "/v1/sources", "", "", cookie, []string{"Sec-Fetch-Site", "same-origin"}, 200, `"default"`},
		{"API with an outdated cookie", "GET", "/v1/sources", "", "", wrongCookie, nil, 401, "log in again"},
		{"API without anything", "GET", "/v1/sources", "", "", nil, nil, 401, "a token is required"},
		{"API with a wrong bearer token", "GET", "/v1/sources", "", "", nil, []string{"Authorization", "Bearer nope"}, 401, `"message":"wrong token"`},
		{"API with the bearer token", "GET", "/v1/sources", "", "", nil, []string{"Authorization", "Bearer " + token}, 200, `"default"`},
		{"a wrong bearer token beats a good cookie", "GET", "/v1/sources", "", "", cookie, []string{"Authorization", "Bearer nope"}, 401, "wrong token"},
		{"cookie from another port of the host", "GET", "/v1/sources", "", "", cookie, []string{"Sec-Fetch-Site", "same-site"}, 403, "bad_origin"},
		{"cookie POST from the page", "POST", "/v1/sessions", "", "", cookie, []string{"Origin", self, "Sec-Fetch-Site", "same-origin"}, 201, `"id"`},
		{"cookie POST without Origin", "POST", "/v1/sessions", "", "", cookie, nil, 403, "bad_origin"},
		{"cookie POST from another port", "POST", "/v1/sessions", "", "", cookie, []string{"Origin", "http://" + u.Hostname() + ":1"}, 403, "bad_origin"},
		{"cookie DELETE without Origin", "DELETE", "/v1/sources/default", "", "", cookie, nil, 403, "bad_origin"},
		{"bearer POST without Origin", "POST", "/v1/sessions", "", "", nil, []string{"Authorization", "Bearer " + token}, 201, `"id"`},
		{"static files need no token", "GET", "/static/app.js", "", "", nil, nil, 200, "ensureSession"},
		{"healthz needs no token", "GET", "/healthz", "", "", nil, nil, 200, "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := send(t, tt.method, tt.path, tt.ctype, tt.body, tt.cookie, tt.hdr...)
			if resp.StatusCode != tt.status || !strings.Contains(body, tt.want) {
				t.Errorf("%d %s", resp.StatusCode, trim(body))
			}
			if strings.Contains(tt.want, "<form") && !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
				t.Errorf("the login form as %s", resp.Header.Get("Content-Type"))
			}
			if tt.status >= 400 && len(resp.Cookies()) > 0 {
				t.Errorf("a refused request got a cookie: %v", resp.Cookies())
			}
		})
	}
	if strings.Contains(logs.String(), token) || strings.Contains(logs.String(), cookie.Value) {
		t.Errorf("the token or the cookie in the log")
	}
}

// TestNoTokenPage: without a token (--no-token) the page is served at
// once.
func TestNoTokenPage(t *testing.T) {
	ts, _ := start(t, nil, server.Config{})
	if resp, body := do(t, "GET", ts.URL+"/", "", ""); resp.StatusCode != 200 || !strings.Contains(body, `id="question"`) {
		t.Errorf("page %d %s", resp.StatusCode, trim(body))
	}
}

// TestFavicon: the icon browsers ask for is there, with the page's
// headers, and without a token.
func TestFavicon(t *testing.T) {
	ts, _ := start(t, nil, server.Config{Token: "favicon-token-0123456789"})
	for _, p := range []string{"/favicon.ico", "/static/favicon.svg"} {
		resp, body := do(t, "GET", ts.URL+p, "", "")
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/svg+xml" || resp.Header.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(body, "<svg") {
			t.Errorf("%s: %d %s %q", p, resp.StatusCode, resp.Header.Get("Content-Type"), trim(body))
		}
	}
}
