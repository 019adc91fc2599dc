package server_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/cite-rag/cite/server"
)

// TestCORSPreflight: an allowed origin's preflight allows the headers
// OpenAI's JavaScript client sends (its x-stainless-* ones too), and no
// others; another origin gets no CORS header at all.
func TestCORSPreflight(t *testing.T) {
	const allowed = "http://app.example:3000"
	ts, _ := start(t, nil, server.Config{Token: "s3cret-token", AllowOrigins: []string{allowed}})
	stainless := "x-stainless-os, x-stainless-lang, x-stainless-arch, x-stainless-runtime, x-stainless-runtime-version, x-stainless-package-version, x-stainless-retry-count, x-stainless-timeout"
	for _, c := range []struct {
		name, origin, requested string
		status                  int
		allow, deny             []string
	}{
		{"openai js", allowed, "authorization,content-type," + stainless, 204,
			append([]string{"authorization", "content-type", "accept"}, strings.Split(stainless, ", ")...), nil},
		{"upper case", allowed, "X-Stainless-OS, Authorization", 204, []string{"x-stainless-os", "authorization"}, nil},
		{"others left out", allowed, "x-stainless-os, x-evil, cookie", 204, []string{"x-stainless-os"}, []string{"x-evil", "cookie"}},
		{"none asked", allowed, "", 204, []string{"authorization", "content-type", "accept"}, []string{"x-stainless-os"}},
		{"another origin", "http://evil.example", "x-stainless-os", 403, nil, []string{"x-stainless-os", "authorization"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			hdr := []string{"Origin", c.origin, "Access-Control-Request-Method", "POST"}
			if c.requested != "" {
				hdr = append(hdr, "Access-Control-Request-Headers", c.requested)
			}
			resp, out := do(t, http.MethodOptions, ts.URL+"/v1/chat/completions", "", "", hdr...)
			if resp.StatusCode != c.status {
				t.Fatalf("%d %s", resp.StatusCode, out)
			}
			var got []string
			for h := range strings.SplitSeq(resp.Header.Get("Access-Control-Allow-Headers"), ",") {
				if h = strings.ToLower(strings.TrimSpace(h)); h != "" {
					got = append(got, h)
				}
			}
			for _, h := range c.allow {
				if !slices.Contains(got, h) {
					t.Errorf("%s not allowed: %q", h, got)
				}
			}
			for _, h := range c.deny {
				if slices.Contains(got, h) {
					t.Errorf("%s allowed: %q", h, got)
				}
			}
			if c.status != 204 && resp.Header.Get("Access-Control-Allow-Origin") != "" {
				t.Errorf("CORS headers for another origin")
			}
			// What says whether to retry is readable by the allowed origin.
			if expose := resp.Header.Get("Access-Control-Expose-Headers"); (c.status == 204) != (strings.Contains(expose, "Retry-After") && strings.Contains(expose, "X-Should-Retry")) {
				t.Errorf("Access-Control-Expose-Headers: %q", expose)
			}
		})
	}
}
