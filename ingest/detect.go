package ingest

import (
	"bytes"
	"fmt"
	"net/http"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/cite-rag/cite/normalize"
)

// sniffLen is how much of a file type detection looks at.
const sniffLen = 8 << 10

var formatByExt = map[string]normalize.Format{
	".md": normalize.Markdown, ".markdown": normalize.Markdown, ".mdown": normalize.Markdown,
	".mkd": normalize.Markdown, ".mkdn": normalize.Markdown, ".mdx": normalize.Markdown,
	".html": normalize.HTML, ".htm": normalize.HTML, ".xhtml": normalize.HTML, ".shtml": normalize.HTML,
	".txt": normalize.PlainText, ".text": normalize.PlainText,
}

// binaryExts are skipped without reading: common formats that are never text.
var binaryExts = map[string]string{
	".pdf": "PDF", ".doc": "Word", ".docx": "Word", ".xls": "Excel", ".xlsx": "Excel", ".ppt": "PowerPoint",
	".pptx": "PowerPoint", ".odt": "OpenDocument", ".ods": "OpenDocument", ".epub": "EPUB", ".png": "image", ".jpg": "image",
	".jpeg": "image", ".gif": "image", ".webp": "image", ".ico": "image", ".bmp": "image", ".tiff": "image", ".tif": "image",
	".zip": "archive", ".gz": "archive", ".tgz": "archive", ".bz2": "archive", ".xz": "archive", ".zst": "archive",
	".7z": "archive", ".rar": "archive", ".tar": "archive", ".jar": "archive", ".exe": "executable",
	".dll": "library", ".so": "library", ".dylib": "library", ".o": "object file", ".a": "archive",
	".class": "class file", ".pyc": "bytecode", ".wasm": "WebAssembly", ".mp3": "audio", ".wav": "audio",
	".flac": "audio", ".ogg": "audio", ".mp4": "video", ".mov": "video", ".avi": "video", ".mkv": "video",
	".webm": "video", ".ttf": "font", ".otf": "font", ".woff": "font", ".woff2": "font", ".sqlite": "database",
	".db": "database", ".bin": "binary",
}

// detect chooses how to read a file from its extension and content, or
// returns why it is skipped. Markdown and HTML are known by extension;
// anything else that is UTF-8 text is read as plain text, or as HTML when it
// sniffs as HTML.
func detect(name string, data []byte) (normalize.Format, string) {
	if len(bytes.TrimSpace(data)) == 0 {
		return 0, "empty file"
	}
	head := data[:min(len(data), sniffLen)]
	if bytes.HasPrefix(head, []byte{0xFF, 0xFE}) || bytes.HasPrefix(head, []byte{0xFE, 0xFF}) {
		// UTF-16 with its byte-order mark (Notepad's "Unicode", Windows
		// PowerShell's >): normalize decodes it.
		if f, known := formatByExt[strings.ToLower(path.Ext(name))]; known {
			return f, ""
		}
		return normalize.PlainText, ""
	}
	if i := bytes.IndexByte(head, 0); i >= 0 {
		return 0, fmt.Sprintf("binary file (%s, NUL byte at offset %d)", http.DetectContentType(head), i)
	}
	f, known := formatByExt[strings.ToLower(path.Ext(name))]
	if !known {
		ct := http.DetectContentType(head)
		switch {
		case strings.HasPrefix(ct, "text/html"):
			f = normalize.HTML
		case strings.HasPrefix(ct, "text/"):
			f = normalize.PlainText
		default:
			return 0, fmt.Sprintf("binary file (%s)", ct)
		}
	}
	// HTML declares its own encoding and normalize decodes it; Markdown and
	// text must be UTF-8, or mostly ASCII in windows-1252 (Latin-1), which
	// normalize decodes too.
	if f != normalize.HTML && !utf8.Valid(data) && !normalize.Windows1252(data) {
		return 0, fmt.Sprintf("not valid UTF-8 (first bad byte at offset %d); convert it to UTF-8", invalidOffset(data))
	}
	return f, ""
}

// notText reports whether data, named as a text format (.md, .html,
// .txt), is not text: a NUL byte or a byte that is not UTF-8 in its first
// sniffLen bytes. Such a file is offered to the readers by its content (a
// PDF or a Word file saved as "notes.txt" is read as one) before it is
// skipped as binary; a text file keeps the format its name says.
func notText(data []byte) bool {
	head := data[:min(len(data), sniffLen)]
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	if utf8.Valid(head) {
		return false
	}
	// A character cut at the end of head is not a bad byte.
	for cut := 1; cut < utf8.UTFMax && cut < len(head); cut++ {
		if utf8.RuneStart(head[len(head)-cut]) {
			return !utf8.Valid(head[:len(head)-cut])
		}
	}
	return true
}

func invalidOffset(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

// skipByName returns why a file is skipped from its name alone, or "":
// formats names the formats cite reads.
func skipByName(name, formats string) string {
	if kind, ok := binaryExts[strings.ToLower(path.Ext(name))]; ok {
		return fmt.Sprintf("binary file (%s); cite reads %s", kind, formats)
	}
	return ""
}
