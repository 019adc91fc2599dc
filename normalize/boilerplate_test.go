package normalize

import (
	"strings"
	"testing"
)

// TestPageContent reads small pages by their content and whole: what is
// left out, what is kept, and pages whose markup is not trusted.
func TestPageContent(t *testing.T) {
	long := strings.Repeat("Real text of the page. ", 20)
	lt, lp := strings.TrimSpace(long), "<p>"+long+"</p>"
	comment := strings.Repeat("A comment of some length, long enough not to be taken for a count of comments. ", 2) + "The end."
	for _, tc := range []struct {
		name, page string
		want       string // the content's text
	}{
		{"nav", `<nav>Home</nav><p>Text</p>`, "Text"},
		{"role navigation", `<div role="navigation">Home</div><p>Text</p>`, "Text"},
		{"role search", `<form role="search">Find<button>Go</button></form><p>Text</p>`, "Text"},
		{"first role counts", `<div role="main navigation"><p>Text</p></div><p>More</p>`, "Text"},
		{"page header and footer", `<header>Site</header><p>Text</p><footer>Legal</footer>`, "Text"},
		{"header with the h1", `<header><h1>Title</h1><nav>Home</nav></header><p>Text</p>`, "Title\n\nText"},
		{"section header kept", `<section><header>Part</header><p>Text</p><footer>End</footer></section>`, "Part\n\nText\n\nEnd"},
		{"aside outside", `<aside>Ads</aside><p>Text</p>`, "Text"},
		{"aside in article kept", `<article><p>Text</p><aside>Note</aside></article>`, "Text\n\nNote"},
		{"one main", `<p>Before</p><main><p>Text</p></main><p>After</p>`, "Text"},
		{"role main", `<div>Before</div><div role="main"><p>Text</p></div><div>After</div>`, "Text"},
		{"two mains: no main", `<main><p>One</p></main><main><p>Two</p></main><nav>x</nav>`, "One\n\nTwo"},
		{"hidden second main", `<main><p>One</p></main><main hidden><p>Two</p></main><p>Out</p>`, "One"},
		{"one article", `<p>Before</p><article><p>Text</p></article>`, "Text"},
		{"nested articles are one", `<article><p>Text</p><article><p>Comment</p></article></article><p>Out</p>`, "Text\n\nComment"},
		{"two articles", `<article><p>One</p></article><article><p>Two</p></article>`, "One\n\nTwo"},
		{"hidden", `<p>Text</p><p hidden>Draft</p>`, "Text"},
		{"until-found kept", `<p>Text</p><div hidden="until-found">Found</div>`, "Text\n\nFound"},
		{"aria-hidden", `<p>Text <span aria-hidden="true">★</span>end</p>`, "Text end"},
		{"aria-hidden false", `<p aria-hidden="false">Text</p>`, "Text"},
		{"display none", `<p>Text</p><div style="color: red; DISPLAY : none !important">Gone</div>`, "Text"},
		{"visibility hidden", `<p>Text</p><div style="visibility:hidden">Gone</div>`, "Text"},
		{"hidden math kept", `<p>x is <span style="display:none"><math><mi>y</mi></math></span></p>`, "x is y"},
		{"dialog", `<p>Text</p><dialog>Sign up</dialog><dialog open>Shown</dialog>`, "Text\n\nShown"},
		{"button", `<p>Text<button>Menu</button>more</p>`, "Text more"},
		{"cookie banner", `<div id="cookie-notice">We use cookies</div><p>Text</p>`, "Text"},
		{"breadcrumbs", `<ol class="breadcrumbs"><li>Home</li></ol><p>Text</p>`, "Text"},
		{"skip link", `<a class="skip-to-content" href="#m">Skip</a><p>Text</p>`, "Text"},
		{"wrapper named after consent", `<body class="cookies-accepted"><p>Text</p></body>`, "Text"},
		{"layout div", `<div id="sidebar">Links</div><p>Text</p><div class="footer">Legal</div>`, "Text"},
		{"class header on a heading", `<h2 class="ui header">Part</h2><p>Text</p>`, "Part\n\nText"},
		{"layout div with the h1", `<div id="header"><h1>Title</h1></div><p>Text</p>`, "Title\n\nText"},
		{"nav never closed", `<nav>Home<p>Text</p>`, "Home\n\nText"},
		{"nav closed by its parent", `<div><nav>Home<p>Text</p></div><p>More</p>`, "Home\n\nText\n\nMore"},
		{"title in a nav", `<nav><title>T</title>Home</nav><p>Text</p>`, "Text"},
		{"svg title in a nav", `<head><title>T</title></head><nav><svg><title>Icon</title></svg>Home</nav><p>Text</p>`, "Text"},
		{"only an svg title", `<nav><svg><title>Icon</title></svg>Home</nav><h1>Real</h1><p>Text</p>`, "Real\n\nText"},
		{"only an svg title", `<nav><svg><title>Icon</title></svg>Home</nav><h1>Real</h1><p>Text</p>`, "Real\n\nText"},
		{"everything hidden: read whole", `<div aria-hidden="true"><p>` + long + `</p></div><div role="dialog">Subscribe</div>`, strings.TrimSpace(long) + "\n\nSubscribe"},
		{"teaser article", `<p>` + long + `</p><div><article>Teaser</article></div>`, strings.TrimSpace(long) + "\n\nTeaser"},
		{"custom element", `<site-menu class="menu">Home</site-menu><p>Text</p>`, "Text"},
		{"role menu", `<p>Text</p><ul role="menu"><li>Edit</li></ul>`, "Text"},
		{"role toolbar", `<p>Text</p><div role="toolbar">Bold Italic</div>`, "Text"},

		// Blocks named as boilerplate, inside the content too, when they
		// look it: links, or little text. The page's text is long: a
		// named block of over half of it is kept.
		{"share bar in the article", `<article>` + lp + `<div class="share-buttons"><a href="#">Facebook</a> <a href="#">Twitter</a></div></article>`, lt},
		{"related posts in main", `<main>` + lp + `<ul class="related-posts"><li><a href="/a">Another story</a> by Someone</li></ul></main>`, lt},
		{"sidebar by id in main", `<main>` + lp + `<div id="sidebar"><h2>Recent</h2><a href="/a">One post</a> <a href="/b">Two posts</a></div></main>`, lt},
		{"short site footer in an article", `<article>` + lp + `<div class="site-footer">© 2024 The Site</div></article>`, lt},
		{"camel case", `<main>` + lp + `<div class="rightSidebar"><a href="/a">Most read</a></div></main>`, lt},
		{"comment count", `<article>` + lp + `<div class="comments">0 comments</div></article>`, lt},
		{"tags", `<article>` + lp + `<div class="tags">Tagged <a href="/t">news</a>, <a href="/u">jobs</a></div></article>`, lt},
		{"nested in a named block", `<main>` + lp + `<div class="sidebar"><div class="share"><a href="#">x</a></div><a href="/a">Links here</a></div></main>`, lt},
		{"named block of text kept", `<article>` + lp + lp + `<div class="share-of-gdp">` + long + `</div></article>`, lt + "\n\n" + lt + "\n\n" + lt},
		{"named block with the h1 kept", `<div class="menu"><h1>Title</h1><a href="/">Home</a></div>` + lp, "Title\n\nHome\n\n" + lt},
		{"named block holding main kept", `<div class="footer-wrap"><main>` + lp + `</main></div><p>More</p>`, lt},
		{"content name overrules", `<main>` + lp + `<div class="sidebar-content"><a href="/a">Links</a></div></main>`, lt + "\n\nLinks"},
		{"named block of most of the text kept", `<div class="related"><a href="/a">` + long + long + `</a></div>` + lp, strings.TrimSpace(long+long) + "\n\n" + lt},
		{"paragraph not a block", `<main>` + lp + `<p class="share"><a href="#">Share</a></p></main>`, lt + "\n\nShare"},
		{"comments of a quarter to two thirds", `<article>` + lp + `</article><div id="comments">` + lp + `</div>`, lt},
		{"a few comments under a long text", `<main>` + lp + lp + lp + `<section class="comments"><p>First! ` + comment + `</p></section></main>`, lt + "\n\n" + lt + "\n\n" + lt + "\n\nFirst! " + comment},
		{"a page of comments", `<h1>Bug 1</h1><ol class="comment-list"><li>` + long + long + long + `</li></ol>` + lp, "Bug 1\n\n1. " + strings.TrimSpace(long+long+long) + "\n\n" + lt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := []byte(tc.page)
			d := FromHTML(src)
			if err := checkDocument(src, d); err != nil {
				t.Fatal(err)
			}
			if d.Text != tc.want {
				t.Errorf("text %q, want %q", d.Text, tc.want)
			}
			if w := FromHTMLWith(src, Options{KeepBoilerplate: true}); d.Title != w.Title {
				t.Errorf("title %q, read whole %q", d.Title, w.Title)
			}
			if w := FromHTMLWith(src, Options{KeepBoilerplate: true}); d.Title != w.Title {
				t.Errorf("title %q, read whole %q", d.Title, w.Title)
			}
			w := FromHTMLWith(src, Options{KeepBoilerplate: true})
			if len(w.Text) < len(d.Text) {
				t.Errorf("whole page %q is shorter than its content %q", w.Text, d.Text)
			}
		})
	}
}

// TestContentSpans: the content's text maps to its own bytes in the page,
// the text before and after it left out.
func TestContentSpans(t *testing.T) {
	src := []byte(`<html><head><title>T</title></head><body><nav>Home News</nav><main><p>Hello world.</p></main><footer>Legal</footer></body></html>`)
	d := FromHTML(src)
	if d.Text != "Hello world." || d.Title != "T" {
		t.Fatalf("text %q, title %q", d.Text, d.Title)
	}
	s, e := d.SourceSpan(0, len(d.Text))
	if got := string(src[s:e]); got != "Hello world." {
		t.Errorf("span [%d,%d) = %q, want the paragraph's text", s, e, got)
	}
}

func TestHiddenStyle(t *testing.T) {
	for _, tc := range []struct {
		style string
		want  bool
	}{
		{"display:none", true},
		{"display: none;", true},
		{"color:red;display:none!important", true},
		{"Visibility: Hidden", true},
		{"display:block", false},
		{"display:none-ish", false},
		{"overflow:hidden", false},
		{"", false},
	} {
		if got := hiddenStyle([]byte(tc.style)); got != tc.want {
			t.Errorf("hiddenStyle(%q) = %v", tc.style, got)
		}
	}
}

func TestNames(t *testing.T) {
	for _, tc := range []struct {
		v             string
		named, layout bool
	}{
		{"cookie-banner", true, false},
		{"CookieBanner", false, false},
		{"gdpr_consent", true, false},
		{"nav breadcrumb", true, true},
		{"skip-link", true, false},
		{"skip", false, false},
		{"skipper", false, false},
		{"sidebar", false, true},
		{"site_header", false, true},
		{"menu-item", false, false},
		{"header-image", false, false},
		{"main-content", false, false},
	} {
		if got := boilerplateName([]byte(tc.v)); got != tc.named {
			t.Errorf("boilerplateName(%q) = %v", tc.v, got)
		}
		if got := layoutName([]byte(tc.v)); got != tc.layout {
			t.Errorf("layoutName(%q) = %v", tc.v, got)
		}
	}
}

func TestBlockName(t *testing.T) {
	for _, tc := range []struct {
		v    string
		kind nameKind
		ok   bool
	}{
		{"comments", commentsNamed, false},
		{"comment-list hfeed", commentsNamed, false},
		{"disqus_thread", commentsNamed, false},
		{"replies", commentsNamed, false},
		{"share-buttons", linksNamed, false},
		{"sharedaddy sd-sharing-enabled", linksNamed, false},
		{"related-posts", linksNamed, false},
		{"rightSidebar", linksNamed, false},
		{"l-footer lazyload", linksNamed, false},
		{"ribbon-menu", linksNamed, false},
		{"tags", linksNamed, false},
		{"rss", linksNamed, false},
		{"taboola", linksNamed, false},
		{"comment-share", commentsNamed, false},
		{"content-sidebar-wrap", linksNamed, true},
		{"MathJax CtxtMenu_Attached_0", linksNamed, true},
		{"articleBody", notNamed, true},
		{"tagged", notNamed, false},
		{"header", notNamed, false},
		{"widget Blog", notNamed, false},
		{"post hentry", notNamed, false},
		{"", notNamed, false},
		{"a-very-long-class-name-with-sidebar-in-one-word-" + strings.Repeat("x", 40), linksNamed, false},
		{strings.Repeat("x", 40) + "sidebar", notNamed, false},
	} {
		if kind, ok := blockName([]byte(tc.v)); kind != tc.kind || ok != tc.ok {
			t.Errorf("blockName(%q) = %v, %v, want %v, %v", tc.v, kind, ok, tc.kind, tc.ok)
		}
	}
}

// TestAttrWords: every word blockName looks for passes mayClassify's
// filter, or blocks named by it would never be read.
func TestAttrWords(t *testing.T) {
	words := append(append([]string{"replies", "tags", "rss"}, commentWords...), linksWords...)
	for _, w := range words {
		tag := `<div class="x-` + strings.ToUpper(w) + `">`
		if !mayClassify([]byte(tag)) {
			t.Errorf("mayClassify(%q) = false", tag)
		}
	}
	if mayClassify([]byte(`<div class="post entry">`)) {
		t.Error("mayClassify of a tag without the words = true")
	}
}
