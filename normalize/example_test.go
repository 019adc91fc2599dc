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
