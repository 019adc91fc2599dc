package normalize_test

import (
	"fmt"
	"strings"

	"github.com/cite-rag/cite/normalize"
)

func ExampleNormalize() {
	src := []byte(`---
title: Getting started
---

# Install

Run the installer, then
check the version:

` + "```sh\n$ cite --version\n```" + `

- Works <b>offline</b>
- Cites its [sources](https://example.com)
`)
	d := normalize.Normalize(normalize.Markdown, src)
	fmt.Printf("title: %s\n", d.Title)
	for _, h := range d.Headings {
		fmt.Printf("h%d at %d: %s\n", h.Level, h.Offset, h.Text)
	}
	fmt.Println(d.Text)
	// Output:
	// title: Getting started
	// h1 at 0: Install
	// Install
	//
	// Run the installer, then check the version:
	//
	// $ cite --version
	//
	// • Works offline
	// • Cites its sources
}

func ExampleFromHTML() {
	d := normalize.FromHTML([]byte(`<html><head><title>Caf&eacute; menu</title>
<style>p { color: red }</style></head>
<body><h1>Menu</h1><p>Coffee &amp; cake,
served <i>all</i> day.<br>Closed on Mondays.</p>
<table><tr><th>Item</th><th>Price</th></tr><tr><td>Espresso</td><td>2.50</td></tr></table>
<script>track()</script></body></html>`))
	fmt.Println(d.Title)
	fmt.Println("---")
	fmt.Println(d.Text)
	// Output:
	// Café menu
	// ---
	// Menu
	//
	// Coffee & cake, served all day.
	// Closed on Mondays.
	//
	// Item | Price
	// Espresso | 2.50
}

// A page is read by its content: its menu, and the share bar and list of
// related posts named so in its article, are left out; read whole, they
// are not.
func ExampleFromHTMLWith() {
	page := []byte(`<html><head><title>Tides</title></head><body>
<nav><a href="/">Home</a> <a href="/news">News</a></nav>
<article><h1>Tides</h1>
<div class="share-buttons"><a href="/fb">Facebook</a> <a href="/tw">Twitter</a></div>
<p>High water comes twice a day, about twelve hours and twenty-five minutes apart, and the
highest tides, the springs, follow the new and the full moon.</p>
<ul class="related-posts"><li><a href="/ferry">Ferry times</a></li></ul>
</article></body></html>`)
	fmt.Println(normalize.FromHTML(page).Text)
	fmt.Println("---")
	fmt.Println(normalize.FromHTMLWith(page, normalize.Options{KeepBoilerplate: true}).Text)
	// Output:
	// Tides
	//
	// High water comes twice a day, about twelve hours and twenty-five minutes apart, and the highest tides, the springs, follow the new and the full moon.
	// ---
	// Home News
	//
	// Tides
	//
	// Facebook Twitter
	//
	// High water comes twice a day, about twelve hours and twenty-five minutes apart, and the highest tides, the springs, follow the new and the full moon.
	//
	// • Ferry times
}

func ExampleDocument_SourceSpan() {
	src := []byte("<p>The <b>quick</b> brown&nbsp;fox.</p>")
	d := normalize.FromHTML(src)
	fmt.Printf("%q\n", d.Text)

	// Cite "quick brown fox": find it in the text, map it back to the source.
	start := strings.Index(d.Text, "quick")
	end := strings.Index(d.Text, "fox") + len("fox")
	s, e := d.SourceSpan(start, end)
	fmt.Printf("text[%d:%d] comes from src[%d:%d] = %q\n", start, end, s, e, src[s:e])
	// Output:
	// "The quick brown fox."
	// text[4:19] comes from src[10:34] = "quick</b> brown&nbsp;fox"
}
