package office

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cite-rag/cite/normalize"
)

// encrypted.odt (password "secret") and report.doc (the old binary Word
// format) were written by LibreOffice 7.4 (Debian's
// libreoffice-writer-nogui) from report.odt, through a Basic macro calling
// storeToURL. LibreOffice 7.4 wrote no encrypted DOCX or PPTX that way (its
// EncryptionData was ignored), so encrypted.docx and encrypted.pptx
// (password "pw") are report.docx and slides.pptx encrypted as Word and
// PowerPoint do it (ECMA-376 agile encryption) by the npm package
// officecrypto-tool: testdata/src/encrypt.js. The old PowerPoint file is
// report.doc with its WordDocument stream renamed (the .ppt LibreOffice
// wrote of slides.pptx was 472 KB, too large to commit; see renamed).
func TestProtected(t *testing.T) {
	for _, c := range []struct {
		file string
		kind Kind
		want error
		msg  string
	}{
		{"encrypted.odt", ODT, normalize.ErrEncrypted, "encrypted: a password is required"},
		{"encrypted.docx", OLE, normalize.ErrEncrypted, "encrypted: a password is required"},
		{"encrypted.pptx", OLE, normalize.ErrEncrypted, "encrypted: a password is required"},
		{"renamed streams", OLE, normalize.ErrEncrypted, "encrypted: a password is required"},
		{"report.doc", OLE, normalize.ErrUnsupported, "old binary Word format (.doc); save it as .docx"},
		{"old PowerPoint", OLE, normalize.ErrUnsupported, "old binary PowerPoint format (.ppt); save it as .pptx"},
		{"budget.xls", OLE, normalize.ErrUnsupported, "old binary Excel format (.xls); save it as .xlsx"},
	} {
		t.Run(c.file, func(t *testing.T) {
			var data []byte
			switch c.file {
			case "renamed streams": // as the encrypted packages are laid out
				data = renamed(t, "WordDocument", "EncryptionInfo", "1Table", "EncryptedPackage")
			case "old PowerPoint":
				data = renamed(t, "WordDocument", "PowerPoint Document")
			default:
				var err error
				if data, err = os.ReadFile(filepath.Join("testdata", c.file)); err != nil {
					t.Fatal(err)
				}
			}
			k, ok := Detect(data)
			if !ok || k != c.kind {
				t.Fatalf("Detect = %v, %v; want %v", k, ok, c.kind)
			}
			kinds := []Kind{k}
			if k == OLE { // whatever kind the caller guessed from the name
				kinds = append(kinds, DOCX, PPTX, XLSX)
			}
			for _, kind := range kinds {
				_, err := Read(t.Context(), kind, data)
				if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
					t.Errorf("Read as %v: %v; want %v saying %q", kind, err, c.want, c.msg)
				}
			}
		})
	}
}

// TestOLEDamaged cuts and corrupts a compound file: every result is an
// error, never a panic or a loop.
func TestOLEDamaged(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "report.doc"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{8, 511, 512, 1024, 1536, len(data) / 2} {
		if _, err := Read(t.Context(), DOCX, data[:n]); err == nil {
			t.Errorf("%d bytes read", n)
		}
	}
	loop := append([]byte(nil), data...)
	// The directory's first sector chained to itself through the FAT.
	dir := int(le32(loop[0x30:]))
	fat := int(le32(loop[0x4C:]))
	off := (fat+1)*512 + 4*dir
	loop[off], loop[off+1], loop[off+2], loop[off+3] = byte(dir), byte(dir>>8), byte(dir>>16), byte(dir>>24)
	if _, err := Read(t.Context(), DOCX, loop); !errors.Is(err, ErrDamaged) {
		t.Errorf("directory chain loop: %v", err)
	}
}

// renamed is report.doc with streams renamed (from, to, from, to...): with
// WordDocument and 1Table renamed EncryptionInfo and EncryptedPackage, a
// compound file laid out as a password-protected DOCX or PPTX is, which is
// all that tells one apart.
func renamed(t *testing.T, names ...string) []byte {
	data, err := os.ReadFile(filepath.Join("testdata", "report.doc"))
	if err != nil {
		t.Fatal(err)
	}
	rename := func(from, to string) {
		name := func(s string) []byte {
			b := make([]byte, 0, 2*len(s)+2)
			for _, r := range s {
				b = append(b, byte(r), 0)
			}
			return append(b, 0, 0)
		}
		old := name(from)
		for i := 0; i+128 <= len(data); i += 128 {
			if bytes.HasPrefix(data[i:], old) {
				e := data[i : i+128]
				clear(e[:64])
				n := copy(e, name(to))
				e[0x40], e[0x41] = byte(n), 0
				return
			}
		}
		t.Fatalf("no stream %q in report.doc", from)
	}
	for i := 0; i+1 < len(names); i += 2 {
		rename(names[i], names[i+1])
	}
	return data
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// TestTinyOLE checks FuzzReadOLE's seeds are compound files the reader
// reads as what they claim to be.
func TestTinyOLE(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  error
	}{
		{[]string{"EncryptionInfo", "EncryptedPackage"}, normalize.ErrEncrypted},
		{[]string{"WordDocument"}, normalize.ErrUnsupported},
		{[]string{"Workbook"}, normalize.ErrUnsupported},
		{[]string{"__properties_version1.0"}, ErrNotOffice}, // an Outlook message
	} {
		if _, err := Read(t.Context(), DOCX, tinyOLE(c.names...)); !errors.Is(err, c.want) {
			t.Errorf("%q: %v, want %v", c.names, err, c.want)
		}
	}
}
