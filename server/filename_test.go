package server

import (
	"mime"
	"strings"
	"testing"
	"unicode"
)

// fileNameCases are Content-Disposition headers of file parts and the name
// their senders meant ("" with an error).
var fileNameCases = []struct {
	name, cd, want string
}{
	{"plain", `form-data; name="file"; filename="Q3 report.pdf"`, "Q3 report.pdf"},
	{"percent-encoded whole (RFC 7578 4.2)", `form-data; name="file"; filename="Q3%20report.pdf"`, "Q3 report.pdf"},
	{"percent-encoded UTF-8", `form-data; name="file"; filename="Caf%C3%A9%20notes.md"`, "Café notes.md"},
	{"lower-case escapes", `form-data; name="file"; filename="a%2db.md"`, "a-b.md"},
	{"a % that is no escape: as sent", `form-data; name="file"; filename="100%.md"`, "100%.md"},
	{"not UTF-8 once decoded: as sent", `form-data; name="file"; filename="caf%E9.md"`, "caf%E9.md"},
	{"decoded once", `form-data; name="file"; filename="a%2520b.md"`, "a%20b.md"},
	{"HTML's escapes in a UTF-8 name", `form-data; name="file"; filename="Café %22quoted%22.md"`, `Café "quoted".md`},
	{"HTML's escapes only, in a UTF-8 name", `form-data; name="file"; filename="Café%20100%25.md"`, "Café%20100%25.md"},
	{"filename* UTF-8 wins", `form-data; name="file"; filename="rates.md"; filename*=UTF-8''%E2%82%AC%20rates.md`, "€ rates.md"},
	{"filename* first", `form-data; name="file"; filename*=utf-8''%E2%82%AC.md; filename="e.md"`, "€.md"},
	{"filename* quoted", `form-data; name="file"; filename*="UTF-8''a%20b.md"`, "a b.md"},
	{"filename* with a language", `form-data; name="file"; filename*=UTF-8'en'notes%20v2.md`, "notes v2.md"},
	{"filename* ISO-8859-1", `form-data; name="file"; filename*=ISO-8859-1''caf%E9.md`, "café.md"},
	{"filename* of another charset", `form-data; name="file"; filename*=windows-1252''caf%E9.md`, ""},
	{"filename* not UTF-8", `form-data; name="file"; filename*=UTF-8''caf%E9.md`, ""},
	{"filename* without its charset", `form-data; name="file"; filename*=caf%C3%A9.md`, ""},
	{"filename* with a bad escape", `form-data; name="file"; filename*=UTF-8''a%G1.md`, ""},
	// What uploadName then refuses: a name that would leave the uploads
	// folder, or hold a control character.
	{"traversal encoded", `form-data; name="file"; filename="..%2Fevil.md"`, "../evil.md"},
	{"traversal encoded in filename*", `form-data; name="file"; filename*=UTF-8''..%2F..%2Fevil.md`, "../../evil.md"},
	{"NUL encoded", `form-data; name="file"; filename="a%00b.md"`, "a\x00b.md"},
	{"line feed encoded by a browser", `form-data; name="file"; filename="é%0Ab.md"`, "é\nb.md"},
}

func TestPartFileName(t *testing.T) {
	for _, tc := range fileNameCases {
		t.Run(tc.name, func(t *testing.T) {
			_, params, err := mime.ParseMediaType(tc.cd)
			if err != nil {
				t.Fatal(err)
			}
			got, err := partFileName(tc.cd, params["filename"])
			if got != tc.want || (err != nil) != (tc.want == "") {
				t.Errorf("partFileName(%q) = %q, %v; want %q", tc.cd, got, err, tc.want)
			}
		})
	}
}

// FuzzPartFileName reads any Content-Disposition header: a name that
// passes uploadName is a plain name, one element of a path, without
// control characters, whatever the header's escapes.
func FuzzPartFileName(f *testing.F) {
	for _, tc := range fileNameCases {
		f.Add(tc.cd)
	}
	f.Add(`form-data; name="file"; filename="%2e%2e%2f%2e%2e%2fetc%2fpasswd.md"`)
	f.Add(`form-data; name="file"; filename*=UTF-8''%2e%2e.md`)
	f.Add(`form-data; name="file"; filename="a\\b.md"; x="; filename*=UTF-8''..%2Fx.md"`)
	f.Fuzz(func(t *testing.T, cd string) {
		_, params, err := mime.ParseMediaType(cd)
		if err != nil {
			return
		}
		name, err := partFileName(cd, params["filename"])
		if err != nil {
			return
		}
		name, err = uploadName(name, true)
		if err != nil {
			return
		}
		if strings.ContainsAny(name, `/\`) || name == "." || name == ".." || strings.HasPrefix(name, ".") || strings.IndexFunc(name, unicode.IsControl) >= 0 {
			t.Errorf("%q gives the name %q", cd, name)
		}
	})
}
