package office

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"strings"

	"github.com/cite-rag/cite/normalize"
)

// Kind is an office format.
type Kind int

// The formats this package reads.
const (
	Unknown Kind = iota
	DOCX         // Word (Office Open XML word processing)
	PPTX         // PowerPoint (Office Open XML presentation)
	ODT          // OpenDocument text
	EPUB         // EPUB 2 or 3
	// OLE is a compound file that is a password-protected DOCX or PPTX, or
	// an old binary Word (.doc) or PowerPoint (.ppt) file: [Reader.Read]
	// says which with an error wrapping [normalize.ErrEncrypted] or
	// [normalize.ErrUnsupported].
	OLE
	XLSX // Excel (Office Open XML spreadsheet)
	ODS  // OpenDocument spreadsheet
)

func (k Kind) String() string {
	switch k {
	case DOCX:
		return "DOCX"
	case PPTX:
		return "PPTX"
	case ODT:
		return "ODT"
	case EPUB:
		return "EPUB"
	case OLE:
		return "OLE"
	case XLSX:
		return "XLSX"
	case ODS:
		return "ODS"
	}
	return "unknown"
}

// Errors callers branch on. The messages name the problem; the caller adds
// the file name.
var (
	// ErrTooLarge: the zip holds more entries, more uncompressed bytes or
	// deeper XML than the [Limits] allow (a zip bomb is refused with it).
	ErrTooLarge = errors.New("office: document too large")
	// ErrDamaged: the file is not a readable zip, or a part the format
	// needs is missing or is not well-formed XML.
	ErrDamaged = errors.New("office: damaged document")
	// ErrNotOffice: the data is not a document of the kind asked for.
	ErrNotOffice = errors.New("office: not an office document")
)

// Limits bound what reading one document may cost. The zero value of a
// field means its default.
type Limits struct {
	// MaxEntries is the most entries the zip may list (default 10,000).
	MaxEntries int
	// MaxTotal is the most bytes all parts read may decompress to, counted
	// while decompressing, not taken from the zip's headers (default 128 MiB).
	MaxTotal int64
	// MaxDepth is the deepest XML element nesting accepted (default 256).
	MaxDepth int
	// MaxCells is the most cells with text read from a spreadsheet, all
	// its sheets together (default 200,000); past it the rest is left
	// out, and the document's notes say where reading stopped.
	MaxCells int
}

// Default limits.
const (
	DefaultMaxEntries = 10_000
	DefaultMaxTotal   = 128 << 20
	DefaultMaxDepth   = 256
	DefaultMaxCells   = 200_000
)

func (l Limits) withDefaults() Limits {
	if l.MaxEntries <= 0 {
		l.MaxEntries = DefaultMaxEntries
	}
	if l.MaxTotal <= 0 {
		l.MaxTotal = DefaultMaxTotal
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxCells <= 0 {
		l.MaxCells = DefaultMaxCells
	}
	return l
}

// Reader reads office documents within its Limits. The zero value uses the
// default limits. A Reader is safe for concurrent use.
type Reader struct {
	Limits Limits
}

// Read reads data as a document of the given kind with the default limits.
// See [Reader.Read].
func Read(ctx context.Context, kind Kind, data []byte) (*normalize.Document, error) {
	var r Reader
	return r.Read(ctx, kind, data)
}

// Read reads data (the whole file) as a document of the given kind (see
// [Detect]) and returns its text. Errors wrap [ErrTooLarge], [ErrDamaged],
// [ErrNotOffice], [normalize.ErrEncrypted] (a password-protected document),
// [normalize.ErrUnsupported] (an old binary Word or PowerPoint file) or
// ctx's error. A compound file is known by its content whatever kind says.
func (r *Reader) Read(ctx context.Context, kind Kind, data []byte) (*normalize.Document, error) {
	if bytes.HasPrefix(data, oleMagic) {
		if err := oleError(data); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: a compound file, neither Word, Excel nor PowerPoint", ErrNotOffice)
	}
	l := r.Limits.withDefaults()
	z, err := openZip(ctx, data, l)
	if err != nil {
		return nil, err
	}
	switch kind {
	case DOCX:
		return readDOCX(z)
	case PPTX:
		return readPPTX(z)
	case ODT:
		return readODT(z)
	case EPUB:
		return readEPUB(z)
	case XLSX:
		return readXLSX(z, l.MaxCells)
	case ODS:
		return readODS(z, l.MaxCells)
	}
	return nil, fmt.Errorf("%w: unknown kind %d", ErrNotOffice, int(kind))
}

// Detect says which office format data is, from its content: the zip's
// mimetype entry (ODT, ODS, EPUB) or the main part named in
// [Content_Types].xml (DOCX, PPTX, XLSX; a zip whose types name no main
// part and that has xl/workbook.xml is XLSX), or [OLE] for a compound file that is a
// password-protected DOCX, PPTX or XLSX or an old binary Word, Excel or
// PowerPoint file; never from a file name. ok is false for anything else, a PDF named .docx included.
func Detect(data []byte) (kind Kind, ok bool) {
	if bytes.HasPrefix(data, oleMagic) {
		if oleError(data) != nil {
			return OLE, true
		}
		return Unknown, false
	}
	if !bytes.HasPrefix(data, []byte("PK\x03\x04")) {
		return Unknown, false
	}
	// Detection reads at most the mimetype and [Content_Types].xml, within
	// the default byte limit; the entry limit is Read's to enforce, so that
	// a document with too many entries fails as what it is, saying so, and
	// is not skipped as a format cite does not read. archive/zip has listed
	// every entry by now whatever the limit.
	l := Limits{}.withDefaults()
	l.MaxEntries = math.MaxInt
	z, err := openZip(context.Background(), data, l)
	if err != nil {
		return Unknown, false
	}
	if f := z.files["mimetype"]; f != nil {
		b, err := z.readLimited("mimetype", 256)
		if err == nil {
			switch strings.TrimSpace(string(b)) {
			case "application/vnd.oasis.opendocument.text", "application/vnd.oasis.opendocument.text-template":
				return ODT, true
			case "application/epub+zip":
				return EPUB, true
			case "application/vnd.oasis.opendocument.spreadsheet", "application/vnd.oasis.opendocument.spreadsheet-template":
				return ODS, true
			}
		}
		return Unknown, false
	}
	if _, k := z.mainPart(); k != Unknown {
		return k, true
	}
	if z.has("xl/workbook.xml") {
		return XLSX, true
	}
	return Unknown, false
}

// Content types of the main parts of DOCX, PPTX and XLSX packages (transitional,
// macro-enabled and template variants).
var mainTypes = map[string]Kind{
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml":   DOCX,
	"application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml":   DOCX,
	"application/vnd.ms-word.document.macroEnabled.main+xml":                             DOCX,
	"application/vnd.ms-word.template.macroEnabledTemplate.main+xml":                     DOCX,
	"application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml": PPTX,
	"application/vnd.openxmlformats-officedocument.presentationml.slideshow.main+xml":    PPTX,
	"application/vnd.openxmlformats-officedocument.presentationml.template.main+xml":     PPTX,
	"application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml":                   PPTX,
	"application/vnd.ms-powerpoint.slideshow.macroEnabled.main+xml":                      PPTX,
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml":         XLSX,
	"application/vnd.openxmlformats-officedocument.spreadsheetml.template.main+xml":      XLSX,
	"application/vnd.ms-excel.sheet.macroEnabled.main+xml":                               XLSX,
	"application/vnd.ms-excel.template.macroEnabled.main+xml":                            XLSX,
}

// mainPart returns the name of the package's main part (word/document.xml,
// ppt/presentation.xml) and its kind, from [Content_Types].xml.
func (z *zipDoc) mainPart() (string, Kind) {
	root, err := z.parse("[Content_Types].xml")
	if err != nil {
		return "", Unknown
	}
	for _, o := range root.all("Override") {
		if k, ok := mainTypes[strings.TrimSpace(o.attr("ContentType"))]; ok {
			return strings.TrimPrefix(o.attr("PartName"), "/"), k
		}
	}
	return "", Unknown
}

// zipDoc is an opened zip: its entries by name (names are keys, never file
// paths) and the budget of bytes left to decompress.
type zipDoc struct {
	ctx    context.Context
	files  map[string]*zip.File
	left   int64
	limits Limits
}

func openZip(ctx context.Context, data []byte, l Limits) (*zipDoc, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		if errors.Is(err, zip.ErrInsecurePath) && zr != nil {
			err = nil // names are never used as paths
		} else {
			return nil, fmt.Errorf("%w: not a zip file: %v", ErrDamaged, err)
		}
	}
	if len(zr.File) > l.MaxEntries {
		return nil, fmt.Errorf("%w: %d zip entries, more than %d", ErrTooLarge, len(zr.File), l.MaxEntries)
	}
	z := &zipDoc{ctx: ctx, files: make(map[string]*zip.File, len(zr.File)), left: l.MaxTotal, limits: l}
	for _, f := range zr.File {
		if _, dup := z.files[f.Name]; !dup {
			z.files[f.Name] = f
		}
	}
	return z, nil
}

// sizeOf writes a limit of n bytes as people read it: in MiB when it is a
// whole number of them (the default, 128 MiB, was "134217728 bytes").
func sizeOf(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// has reports whether the zip has an entry name.
func (z *zipDoc) has(name string) bool { return z.files[name] != nil }

// read decompresses entry name within the budget, counting the bytes as
// they come.
func (z *zipDoc) read(name string) ([]byte, error) {
	return z.readLimited(name, -1)
}

func (z *zipDoc) readLimited(name string, max int64) ([]byte, error) {
	if err := z.ctx.Err(); err != nil {
		return nil, err
	}
	f := z.files[name]
	if f == nil {
		return nil, fmt.Errorf("%w: part %q is missing", ErrDamaged, name)
	}
	limit := z.left
	if max >= 0 && max < limit {
		limit = max
	}
	tooLarge := func() error {
		if limit < z.left {
			return fmt.Errorf("%w: part %q is larger than %d bytes", ErrTooLarge, name, max)
		}
		return fmt.Errorf("%w: its parts decompress to more than %s", ErrTooLarge, sizeOf(z.limits.MaxTotal))
	}
	// The header's size is trusted only to refuse early; the bytes are
	// counted as they are decompressed (and archive/zip refuses an entry
	// longer or shorter than its header says).
	if f.UncompressedSize64 > uint64(limit) {
		return nil, tooLarge()
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%w: part %q: %v", ErrDamaged, name, err)
	}
	defer rc.Close()
	var buf bytes.Buffer
	buf.Grow(int(f.UncompressedSize64) + 1) // at most limit, checked above
	n, err := io.Copy(&buf, io.LimitReader(rc, limit+1))
	if n > limit {
		return nil, tooLarge()
	}
	z.left -= n
	if errors.Is(err, zip.ErrFormat) || errors.Is(err, zip.ErrChecksum) {
		return nil, fmt.Errorf("%w: part %q does not match its zip header: %v", ErrDamaged, name, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: part %q: %v", ErrDamaged, name, err)
	}
	return buf.Bytes(), nil
}

// parse reads and parses the XML part name.
func (z *zipDoc) parse(name string) (*node, error) {
	b, err := z.read(name)
	if err != nil {
		return nil, err
	}
	n, err := parseXML(b, z.limits.MaxDepth)
	if err != nil {
		return nil, fmt.Errorf("part %q: %w", name, err)
	}
	return n, nil
}

// rels reads the relationships of part name (dir/_rels/base.rels): Id to
// target part name, resolved inside the zip, and Id to type. A missing
// rels part is no relationships.
func (z *zipDoc) rels(name string) (map[string]rel, error) {
	dir, base := path.Split(name)
	rp := dir + "_rels/" + base + ".rels"
	out := map[string]rel{}
	if !z.has(rp) {
		return out, nil
	}
	root, err := z.parse(rp)
	if err != nil {
		return nil, err
	}
	for _, r := range root.all("Relationship") {
		t := r.attr("Target")
		if r.attr("TargetMode") != "External" {
			t = resolve(dir, t)
		}
		out[r.attr("Id")] = rel{target: t, typ: r.attr("Type")}
	}
	return out, nil
}

type rel struct{ target, typ string }

// resolve resolves a relative reference inside the zip: the result is an
// entry name ("a/b.xml"), never a file path.
func resolve(dir, ref string) string {
	if i := strings.IndexAny(ref, "#?"); i >= 0 {
		ref = ref[:i]
	}
	if strings.HasPrefix(ref, "/") {
		return strings.TrimPrefix(path.Clean(ref), "/")
	}
	p := path.Clean("/" + dir + ref)
	return strings.TrimPrefix(p, "/")
}

// node is a parsed XML element (name set) or character data (name empty).
type node struct {
	name  xml.Name
	attrs []xml.Attr
	kids  []*node
	text  string
}

// parseXML parses b into a tree, refusing nesting deeper than maxDepth.
// encoding/xml never reads a DTD or external entities: an entity other than
// the five predefined ones is an error.
func parseXML(b []byte, maxDepth int) (*node, error) {
	return parseXMLMode(b, maxDepth, false)
}

// parseXMLMode parses XML, or with lenient XHTML as browsers forgive it:
// HTML's named entities, unclosed void elements. Either way no DTD is read.
func parseXMLMode(b []byte, maxDepth int, lenient bool) (*node, error) {
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = !lenient
	if lenient {
		d.AutoClose = xml.HTMLAutoClose
		d.Entity = xml.HTMLEntity
	}
	root := &node{}
	stack := []*node{root}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrDamaged, err)
		}
		top := stack[len(stack)-1]
		switch t := tok.(type) {
		case xml.StartElement:
			if len(stack) > maxDepth {
				return nil, fmt.Errorf("%w: XML nested deeper than %d elements", ErrTooLarge, maxDepth)
			}
			n := &node{name: t.Name, attrs: t.Attr}
			top.kids = append(top.kids, n)
			stack = append(stack, n)
		case xml.EndElement:
			if len(stack) == 1 {
				return nil, fmt.Errorf("%w: unexpected end element %s", ErrDamaged, t.Name.Local)
			}
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 1 {
				top.kids = append(top.kids, &node{text: string(t)})
			}
		}
	}
	if len(stack) != 1 || len(root.kids) == 0 {
		return nil, fmt.Errorf("%w: XML is incomplete", ErrDamaged)
	}
	return root, nil
}

// attr returns the value of the attribute with the given local name.
func (n *node) attr(local string) string {
	if n == nil {
		return ""
	}
	for _, a := range n.attrs {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// is reports whether n is the element local (any namespace).
func (n *node) is(local string) bool { return n != nil && n.name.Local == local && local != "" }

// child returns n's first child element local, or nil.
func (n *node) child(local string) *node {
	if n == nil {
		return nil
	}
	for _, k := range n.kids {
		if k.is(local) {
			return k
		}
	}
	return nil
}

// path follows child elements by local name; nil when one is missing.
func (n *node) path(locals ...string) *node {
	for _, l := range locals {
		n = n.child(l)
	}
	return n
}

// all returns the elements local among n's descendants, in document order.
func (n *node) all(local string) []*node {
	var out []*node
	var walk func(*node)
	walk = func(m *node) {
		for _, k := range m.kids {
			if k.is(local) {
				out = append(out, k)
			}
			walk(k)
		}
	}
	if n != nil {
		walk(n)
	}
	return out
}

// text returns the character data of n's subtree.
func (n *node) textContent() string {
	var sb strings.Builder
	var walk func(*node)
	walk = func(m *node) {
		if m.name.Local == "" {
			sb.WriteString(m.text)
		}
		for _, k := range m.kids {
			walk(k)
		}
	}
	if n != nil {
		walk(n)
	}
	return sb.String()
}

// openMain finds the main part of a document of the given kind (from
// [Content_Types].xml, else at fallback when the types name no main part)
// and parses it and its relationships.
func (z *zipDoc) openMain(kind Kind, fallback string) (*node, map[string]rel, error) {
	main, k := z.mainPart()
	if k != kind {
		if k != Unknown || !z.has(fallback) {
			return nil, nil, ErrNotOffice
		}
		main = fallback
	}
	root, err := z.parse(main)
	if err != nil {
		return nil, nil, err
	}
	rels, err := z.rels(main)
	if err != nil {
		return nil, nil, err
	}
	return root, rels, nil
}
