package provider

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Defaults of [Config].
const (
	DefaultOpenAIBaseURL = "https://api.openai.com/v1"
	DefaultOllamaHost    = "http://127.0.0.1:11434"
)

// Config says where the model providers are and how to reach them. Its zero
// value reaches OpenAI without a key and Ollama on this machine.
//
// Printing or logging a Config ([Config.String], [Config.GoString],
// [Config.LogValue]) never shows the API key.
type Config struct {
	// OpenAIBaseURL is the URL under which an OpenAI-compatible server
	// serves /embeddings and /chat/completions (default
	// [DefaultOpenAIBaseURL]).
	OpenAIBaseURL string
	// OpenAIAPIKey is sent as a bearer token; optional for local servers.
	OpenAIAPIKey string
	// OllamaHost is Ollama's address in OLLAMA_HOST's syntax
	// ("http://host:11434", "host:11434", "0.0.0.0"; default
	// [DefaultOllamaHost]).
	OllamaHost string
	// HTTPClient sends the requests; [Config.Client] wraps its transport in
	// a [Transport]. Nil means a client with no timeout: the context of
	// each call bounds it.
	HTTPClient *http.Client
}

// ConfigFromEnv reads OPENAI_BASE_URL, OPENAI_API_KEY and OLLAMA_HOST
// through getenv (os.Getenv, or a test's map), with the defaults for those
// that are empty.
func ConfigFromEnv(getenv func(string) string) Config {
	c := Config{
		OpenAIBaseURL: strings.TrimSpace(getenv("OPENAI_BASE_URL")),
		OpenAIAPIKey:  strings.TrimSpace(getenv("OPENAI_API_KEY")),
		OllamaHost:    strings.TrimSpace(getenv("OLLAMA_HOST")),
	}
	if c.OpenAIBaseURL == "" {
		c.OpenAIBaseURL = DefaultOpenAIBaseURL
	}
	if c.OllamaHost == "" {
		c.OllamaHost = DefaultOllamaHost
	}
	return c
}

// Client returns the HTTP client to reach the providers with: HTTPClient
// (or a new one) whose transport retries transient failures ([Transport]).
// A transport that already is a *Transport is kept as it is.
func (c Config) Client() *http.Client {
	var hc http.Client
	if c.HTTPClient != nil {
		hc = *c.HTTPClient
	}
	if _, ok := hc.Transport.(*Transport); !ok {
		hc.Transport = &Transport{Base: hc.Transport}
	}
	return &hc
}

// String describes c without its API key.
func (c Config) String() string {
	return fmt.Sprintf("provider.Config{OpenAIBaseURL: %q, OpenAIAPIKey: %s, OllamaHost: %q}",
		redactURL(c.OpenAIBaseURL), keyState(c.OpenAIAPIKey), redactURL(c.OllamaHost))
}

// GoString is [Config.String], for %#v.
func (c Config) GoString() string { return c.String() }

// LogValue describes c for log/slog without its API key.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("openai_base_url", redactURL(c.OpenAIBaseURL)),
		slog.String("openai_api_key", keyState(c.OpenAIAPIKey)),
		slog.String("ollama_host", redactURL(c.OllamaHost)),
	)
}

func keyState(key string) string {
	if key == "" {
		return "unset"
	}
	return "[redacted]"
}

// redactURL drops the password of a URL ("http://user:pass@host").
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		if strings.Contains(s, "@") {
			return "[redacted]"
		}
		return s
	}
	return u.Redacted()
}

// openAIBaseURL is the one reading of OpenAIBaseURL, for chat and
// embeddings alike: an http or https URL (a bare host[:port][/path] gets
// http://), returned without a trailing slash.
func (c Config) openAIBaseURL() (string, error) {
	base := unquote(c.OpenAIBaseURL)
	if base == "" {
		base = DefaultOpenAIBaseURL
	}
	if !strings.Contains(base, "://") {
		base = "http://" + base
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("OpenAI base URL (OPENAI_BASE_URL) %q: want http(s)://host[:port][/path]", redactURL(base))
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		// The paths are appended to the URL: a query would end up
		// before them ("/v1?api-version=…/chat/completions"). It is left
		// out of the message, since it may hold a key.
		u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = "", false, "", ""
		return "", fmt.Errorf("OpenAI base URL (OPENAI_BASE_URL) %q: a query (?…) or fragment (#…) cannot be kept, since cite appends /chat/completions, /embeddings or /responses to it; want http(s)://host[:port][/path]", redactURL(u.String())+"?…")
	}
	return strings.TrimRight(base, "/"), nil
}

// unquote trims white space and the quotes a shell file may leave.
func unquote(s string) string {
	return strings.TrimSpace(strings.Trim(strings.TrimSpace(s), `"'`))
}

// ollamaRoot is the one reading of OllamaHost, for chat and embeddings
// alike: [Config.OllamaURL] without a trailing slash, and without a
// trailing /api or /v1 (the forms chromem-go and OpenAI clients are given),
// so that chat appends /v1 and embeddings /api/embed to the same root.
func (c Config) ollamaRoot() (string, error) {
	u, err := c.OllamaURL()
	if err != nil {
		return "", err
	}
	p := strings.TrimRight(u.Path, "/")
	for _, suffix := range []string{"/api", "/v1"} {
		p = strings.TrimSuffix(p, suffix)
	}
	u.Path = p
	return u.String(), nil
}

// OllamaURL parses OllamaHost the way Ollama reads OLLAMA_HOST: the scheme
// defaults to http, the host to 127.0.0.1, the port to 11434 (80 or 443
// with an explicit http or https scheme), and a path is kept (for a reverse
// proxy).
func (c Config) OllamaURL() (*url.URL, error) {
	s := unquote(c.OllamaHost)
	if s == "" {
		s = DefaultOllamaHost
	}
	defaultPort := "11434"
	scheme, hostport, ok := strings.Cut(s, "://")
	switch {
	case !ok:
		scheme, hostport = "http", s
	case scheme == "http":
		defaultPort = "80"
	case scheme == "https":
		defaultPort = "443"
	default:
		return nil, fmt.Errorf("Ollama host (OLLAMA_HOST) %q: unsupported scheme %q (want http or https)", redactURL(s), scheme)
	}
	hostport, path, _ := strings.Cut(hostport, "/")
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = "127.0.0.1", defaultPort
		if ip := net.ParseIP(strings.Trim(hostport, "[]")); ip != nil {
			host = ip.String()
		} else if hostport != "" {
			host = hostport
		}
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return nil, fmt.Errorf("Ollama host (OLLAMA_HOST) %q: invalid port %q", redactURL(s), port)
	}
	return &url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port), Path: "/" + path}, nil
}
