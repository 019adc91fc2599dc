package provider

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

func TestConfigFromEnv(t *testing.T) {
	env := map[string]string{"OPENAI_API_KEY": " sk-env ", "OLLAMA_HOST": "0.0.0.0:11435"}
	c := ConfigFromEnv(func(k string) string { return env[k] })
	want := Config{OpenAIBaseURL: DefaultOpenAIBaseURL, OpenAIAPIKey: "sk-env", OllamaHost: "0.0.0.0:11435"}
	if c != want {
		t.Errorf("ConfigFromEnv = %#v, want %#v", c, want)
	}
	if c := ConfigFromEnv(func(string) string { return "" }); c.OllamaHost != DefaultOllamaHost || c.OpenAIAPIKey != "" {
		t.Errorf("empty environment gives %v", c)
	}
}

// TestConfigHidesKey: printing or logging a Config never shows the key.
func TestConfigHidesKey(t *testing.T) {
	const key = "sk-secret-0123456789"
	c := Config{OpenAIBaseURL: "http://user:" + key + "@host/v1", OpenAIAPIKey: key, OllamaHost: "localhost"}
	var log strings.Builder
	slog.New(slog.NewTextHandler(&log, nil)).Info("config", "provider", c)
	slog.New(slog.NewJSONHandler(&log, nil)).Info("config", "provider", c)
	for _, s := range []string{fmt.Sprint(c), fmt.Sprintf("%v %+v %#v %s", c, c, c, c), fmt.Sprintf("%+v", &c), fmt.Sprintf("%+v", struct{ C Config }{c}), log.String()} {
		if strings.Contains(s, key) {
			t.Errorf("key shown: %s", s)
		}
		if !strings.Contains(s, "redacted") {
			t.Errorf("no trace of the key's presence: %s", s)
		}
	}
}

func TestConfigClient(t *testing.T) {
	if tr, ok := (Config{}).Client().Transport.(*Transport); !ok || tr.Base != nil {
		t.Errorf("zero Config's client transport = %#v, want a *Transport over the default", (Config{}).Client().Transport)
	}
	base := &http.Transport{}
	hc := &http.Client{Transport: base}
	c := Config{HTTPClient: hc}.Client()
	if tr, ok := c.Transport.(*Transport); !ok || tr.Base != base {
		t.Errorf("client transport = %#v, want a *Transport over the given one", c.Transport)
	}
	if hc.Transport != base {
		t.Error("Client changed the caller's client")
	}
	mine := &Transport{MaxAttempts: 1}
	if c := (Config{HTTPClient: &http.Client{Transport: mine}}).Client(); c.Transport != mine {
		t.Error("a *Transport was wrapped again")
	}
}

func TestOllamaURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "http://127.0.0.1:11434/"},
		{"0.0.0.0", "http://0.0.0.0:11434/"},
		{"0.0.0.0:11435", "http://0.0.0.0:11435/"},
		{"example.com", "http://example.com:11434/"},
		{"example.com:8080", "http://example.com:8080/"},
		{"http://example.com", "http://example.com:80/"},
		{"https://example.com", "https://example.com:443/"},
		{"https://example.com:8443/ollama", "https://example.com:8443/ollama"},
		{"[::1]:11434", "http://[::1]:11434/"},
		{"::1", "http://[::1]:11434/"},
		{` "localhost:11434" `, "http://localhost:11434/"},
		{":11434", "http://127.0.0.1:11434/"},
	}
	for _, tt := range tests {
		u, err := Config{OllamaHost: tt.in}.OllamaURL()
		if err != nil || u.String() != tt.want {
			t.Errorf("OllamaURL(%q) = %v, %v; want %s", tt.in, u, err, tt.want)
		}
	}
	for _, bad := range []string{"ftp://host", "host:99999", "host:abc"} {
		if u, err := (Config{OllamaHost: bad}).OllamaURL(); err == nil {
			t.Errorf("OllamaURL(%q) = %v, want an error", bad, u)
		}
	}
}
