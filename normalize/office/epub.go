package office

import (
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/cite-rag/cite/normalize"
)

// maxMissingNoted is the most missing chapters an EPUB's notes name one
// by one.
const maxMissingNoted = 5

func readEPUB(z *zipDoc) (*normalize.Document, error) {
	container, err := z.parse("META-INF/container.xml")
	if err != nil {
		return nil, err
	}
	opfName := ""
	for _, rf := range container.all("rootfile") {
		if mt := rf.attr("media-type"); mt == "" || mt == "application/oebps-package+xml" {
			opfName = resolveURL("", rf.attr("full-path"))
			break
		}
	}
	if opfName == "" {
		return nil, ErrDamaged
	}
	opf, err := z.parse(opfName)
	if err != nil {
		return nil, err
	}
	dir := path.Dir(opfName) + "/"
	if dir == "./" {
		dir = ""
	}
	type item struct{ href, mediaType, props string }
	items := map[string]item{}
	for _, it := range opf.path("package", "manifest").all("item") {
		items[it.attr("id")] = item{resolveURL(dir, it.attr("href")), it.attr("media-type"), it.attr("properties")}
	}
	spine := opf.path("package", "spine")
	if spine == nil {
		return nil, ErrDamaged
	}
	// Navigation titles, by chapter file: EPUB 3's nav document, else
	// EPUB 2's NCX.
	titles := map[string]string{}
	for _, it := range items {
		if hasWord(it.props, "nav") && z.has(it.href) {
			if err := navTitles(z, it.href, titles); err != nil {
				return nil, err
			}
		}
	}
	if len(titles) == 0 {
		if it, ok := items[spine.attr("toc")]; ok && z.has(it.href) {
			if err := ncxTitles(z, it.href, titles); err != nil {
				return nil, err
			}
		}
	}
	var x normalize.Extracted
	var missing []string // chapters the spine names that the file lacks
	for _, ref := range spine.all("itemref") {
		it, ok := items[ref.attr("idref")]
		if !ok {
			missing = append(missing, fmt.Sprintf("chapter %q of the spine is not in the manifest: left out", ref.attr("idref")))
			continue
		}
		if hasWord(it.props, "nav") || (it.mediaType != "application/xhtml+xml" && it.mediaType != "text/html") {
			continue
		}
		if !z.has(it.href) {
			missing = append(missing, fmt.Sprintf("chapter %q is missing from the file: left out", it.href))
			continue
		}
		data, err := z.read(it.href)
		if err != nil {
			return nil, err
		}
		// A chapter is read whole: its <header> is the chapter's, not a
		// site's banner.
		d := normalize.FromHTMLWith(data, normalize.Options{KeepBoilerplate: true})
		if len(d.Headings) == 0 || d.Headings[0].Offset > 0 {
			if t := titles[it.href]; t != "" {
				x.Heading(1, t)
			}
		}
		x.Append(d)
	}
	for i, m := range missing {
		if i == maxMissingNoted && len(missing) > i+1 {
			x.Note(fmt.Sprintf("%d more chapters of the spine are missing: left out", len(missing)-i))
			break
		}
		x.Note(m)
	}
	title := ""
	if t := opf.path("package", "metadata", "title"); t != nil {
		title = t.textContent()
	}
	return x.Document(title), nil
}

// navTitles reads an EPUB 3 navigation document's table of contents: the
// first title naming each file.
func navTitles(z *zipDoc, name string, titles map[string]string) error {
	b, err := z.read(name)
	if err != nil {
		return err
	}
	root, err := parseXMLMode(b, z.limits.MaxDepth, true)
	if err != nil {
		return nil // a nav document that is not XML gives no titles
	}
	dir := path.Dir(name) + "/"
	for _, nav := range root.all("nav") {
		if t := nav.attr("type"); t != "" && t != "toc" {
			continue
		}
		for _, a := range nav.all("a") {
			file := resolveURL(dir, a.attr("href"))
			if t := strings.Join(strings.Fields(a.textContent()), " "); t != "" && titles[file] == "" {
				titles[file] = t
			}
		}
	}
	return nil
}

// ncxTitles reads an EPUB 2 NCX's navigation points.
func ncxTitles(z *zipDoc, name string, titles map[string]string) error {
	root, err := z.parse(name)
	if err != nil {
		return nil
	}
	dir := path.Dir(name) + "/"
	for _, np := range root.all("navPoint") {
		file := resolveURL(dir, np.path("content").attr("src"))
		if t := strings.Join(strings.Fields(np.path("navLabel", "text").textContent()), " "); t != "" && titles[file] == "" {
			titles[file] = t
		}
	}
	return nil
}

// resolveURL resolves an href (a URL, percent-encoded) inside the zip.
func resolveURL(dir, href string) string {
	if i := strings.IndexAny(href, "#?"); i >= 0 {
		href = href[:i]
	}
	if u, err := url.PathUnescape(href); err == nil {
		href = u
	}
	if dir == "./" {
		dir = ""
	}
	return resolve(dir, href)
}

func hasWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}
