package server

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"strings"
)

// Access.
//
// With a token (Config.Token), every request but /healthz, the page's
// static files and the login itself must carry it: programs send
// "Authorization: Bearer TOKEN"; a browser logs in once, by opening the
// login URL cite serve prints (/?token=TOKEN) or by typing the token into
// the login form, and gets a cookie in exchange: HttpOnly (scripts cannot
// read it), SameSite=Strict (other sites' requests do not carry it), its
// value derived from the token, not the token. Because other ports of the
// same host are the same site, a request authorized by the cookie must
// also come from the page itself: a Sec-Fetch-Site other than
// same-origin (or none, a typed address) is refused, and so is a
// state-changing request whose Origin is not the server's own.

// MinTokenLength is the shortest token a server off loopback accepts.
const MinTokenLength = 16

// NewToken returns a random token: 24 random bytes in hex, 48 characters.
func NewToken() (string, error) {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("generate a token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// CheckToken returns an error unless token can guard a server: printable
// ASCII without spaces (it travels in a header, a URL and a form), and at
// least [MinTokenLength] characters unless the server listens on loopback
// only. The error never contains the token.
func CheckToken(token string, loopback bool) error {
	if strings.TrimSpace(token) == "" {
		return errors.New("the token is empty")
	}
	for i := 0; i < len(token); i++ {
		if c := token[i]; c <= ' ' || c >= 0x7f {
			return fmt.Errorf("the token has a space, a control or a non-ASCII character at byte %d: use printable ASCII", i)
		}
	}
	if !loopback && len(token) < MinTokenLength {
		return fmt.Errorf("the token is %d characters: off loopback it needs at least %d (leave it out to have one generated)", len(token), MinTokenLength)
	}
	return nil
}

// IsLoopback reports whether a listen address (host:port) is on loopback
// only: localhost or a loopback IP. "" and unspecified addresses
// (0.0.0.0, ::) are not.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// tokenEqual compares got with the server's token in constant time: the
// hashes are compared, so not even the length leaks.
func (s *Server) tokenEqual(got string) bool {
	a, b := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(s.cfg.Token))
	return subtle.ConstantTimeCompare(a[:], b[:]) == 1
}

// cookieValue is the login cookie's value: an HMAC of a fixed label under
// the token, so the cookie does not reveal the token and stops working
// when the token changes.
func (s *Server) cookieValue() string {
	m := hmac.New(sha256.New, []byte(s.cfg.Token))
	m.Write([]byte("cite page login v1"))
	return hex.EncodeToString(m.Sum(nil))
}

// cookieName is the login cookie's name for r's host: cookies do not
// tell ports apart, so the port is in the name, and two servers on one
// host keep their logins apart.
func cookieName(r *http.Request) string {
	if _, port, err := net.SplitHostPort(r.Host); err == nil && port != "" {
		return "cite-login-" + port
	}
	return "cite-login"
}

// loggedIn reports whether r carries a valid login cookie.
func (s *Server) loggedIn(r *http.Request) bool {
	c, err := r.Cookie(cookieName(r))
	if err != nil {
		return false
	}
	want := s.cookieValue()
	return subtle.ConstantTimeCompare([]byte(c.Value), []byte(want)) == 1
}

// login sets the login cookie on w.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: cookieName(r), Value: s.cookieValue(), Path: "/",
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
}

// public reports whether r needs no token: the health check, the page's
// static files and icon (the same for everyone, no data), and the page
// and the login form, which answer for themselves.
func public(r *http.Request) bool {
	p := r.URL.Path
	switch {
	case p == "/healthz", p == "/favicon.ico", strings.HasPrefix(p, "/static/"):
		return true
	case p == "/":
		return r.Method == http.MethodGet || r.Method == http.MethodHead
	case p == "/login":
		return r.Method == http.MethodPost
	}
	return false
}

// authorize checks r's token, as a bearer token or a login cookie. It
// returns 0 when r may go on, else the status, code and message of the
// refusal, which never contain the token.
func (s *Server) authorize(r *http.Request) (int, string, string) {
	if h := r.Header.Get("Authorization"); h != "" {
		got, ok := bearerToken(h)
		if !ok {
			return http.StatusUnauthorized, "unauthorized", `the Authorization header must be "Bearer TOKEN"`
		}
		if !s.tokenEqual(got) {
			return http.StatusUnauthorized, "unauthorized", "wrong token"
		}
		return 0, "", ""
	}
	if _, err := r.Cookie(cookieName(r)); err == nil {
		if !s.loggedIn(r) {
			return http.StatusUnauthorized, "unauthorized", "the login has expired (the server's token changed): log in again at /"
		}
		// SameSite=Strict keeps other sites out, but not other ports of
		// this host: the cookie is honoured only from the page itself.
		switch r.Header.Get("Sec-Fetch-Site") {
		case "", "same-origin", "none":
		default:
			return http.StatusForbidden, "bad_origin", "the login cookie is only accepted from cite's own page; programs send Authorization: Bearer TOKEN"
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead && !s.sameOrigin(r, r.Header.Get("Origin")) {
			return http.StatusForbidden, "bad_origin", "a change authorized by the login cookie must come from cite's own page (its Origin header)"
		}
		return 0, "", ""
	}
	return http.StatusUnauthorized, "unauthorized", "a token is required: send Authorization: Bearer TOKEN, or log in on the page at /"
}

// loginPage is the page shown instead of the chat page without a login.
var loginPage = template.Must(template.ParseFS(webFiles, "web/login.html"))

// showLogin answers the login form with status and an optional message.
func showLogin(w http.ResponseWriter, status int, message string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="cite"`)
	}
	w.WriteHeader(status)
	loginPage.Execute(w, map[string]string{"Message": message})
}

// home is GET /: the chat page, or the login form without a login. The
// login URL's ?token= is exchanged for the cookie, then dropped from the
// address by a redirect.
func (s *Server) home(page http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.Token != "" {
			if q := r.URL.Query(); q.Has("token") {
				if !s.tokenEqual(q.Get("token")) {
					showLogin(w, http.StatusUnauthorized, "wrong token")
					return
				}
				s.login(w, r)
				w.Header().Set("Cache-Control", "no-store")
				http.Redirect(w, r, "/", http.StatusSeeOther)
				return
			}
			if status, _, _ := s.authorize(r); status != 0 {
				showLogin(w, http.StatusUnauthorized, "")
				return
			}
		}
		page.ServeHTTP(w, r)
	})
}

// postLogin is POST /login: the login form's token, exchanged for the
// cookie.
func (s *Server) postLogin(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Token != "" {
		if err := r.ParseForm(); err != nil {
			showLogin(w, http.StatusBadRequest, "the form could not be read")
			return
		}
		if !s.tokenEqual(r.PostForm.Get("token")) {
			showLogin(w, http.StatusUnauthorized, "wrong token")
			return
		}
		s.login(w, r)
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
}
