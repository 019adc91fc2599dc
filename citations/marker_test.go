package citations

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// markers returns Parse(text) as "N@group" strings, "!@group" for malformed
// groups.
func markers(text string) []string {
	var out []string
	for _, m := range Parse(text) {
		n := strconv.Itoa(m.Index)
		if m.Malformed {
			n = "!"
		}
		out = append(out, n+"@"+text[m.Span.Start:m.Span.End])
	}
	return out
}

func TestParseSyntax(t *testing.T) {
	long := "[doc:1" + strings.Repeat(", doc:1", 40) + "]"
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"canonical", "a [doc:3] b", []string{"3@[doc:3]"}},
		{"first index", "[doc:1]", []string{"1@[doc:1]"}},
		{"spaces", "a [doc: 3] [ doc : 4 ] [doc:\t5 ]", []string{"3@[doc: 3]", "4@[ doc : 4 ]", "5@[doc:\t5 ]"}},
		{"case", "[Doc:1][DOC:2][dOc:3]", []string{"1@[Doc:1]", "2@[DOC:2]", "3@[dOc:3]"}},
		{"no colon", "[doc3] [doc 4]", []string{"3@[doc3]", "4@[doc 4]"}},
		{"comma joined", "[doc:3, doc:5]", []string{"3@[doc:3, doc:5]", "5@[doc:3, doc:5]"}},
		{"semicolon joined", "[doc:3;doc:5]", []string{"3@[doc:3;doc:5]", "5@[doc:3;doc:5]"}},
		{"bare numbers", "[doc:3,5, 7]", []string{"3@[doc:3,5, 7]", "5@[doc:3,5, 7]", "7@[doc:3,5, 7]"}},
		{"later items without colon", "[doc:3, doc5]", []string{"3@[doc:3, doc5]", "5@[doc:3, doc5]"}},
		{"wide brackets", "a 【doc:3】 b", []string{"3@【doc:3】"}},
		{"adjacent", "[doc:1][doc:2]", []string{"1@[doc:1]", "2@[doc:2]"}},
		{"leading zeros", "[doc:007]", []string{"7@[doc:007]"}},
		{"nine digits", "[doc:999999999]", []string{"999999999@[doc:999999999]"}},
		{"zero", "[doc:0]", []string{"0@[doc:0]"}},
		{"long valid group", long, []string{"!@" + long[:maxGroupLen]}},

		{"ten digits", "[doc:1234567890]", []string{"!@[doc:1234567890]"}},
		{"range", "[doc:3-5]", []string{"!@[doc:3-5]"}},
		{"empty", "[doc:]", []string{"!@[doc:]"}},
		{"word", "[doc:abc]", []string{"!@[doc:abc]"}},
		{"negative", "[doc:-1]", []string{"!@[doc:-1]"}},
		{"trailing comma", "[doc:1,]", []string{"!@[doc:1,]"}},
		{"wrong closer", "【doc:3] x", []string{"!@【doc:3"}},
		{"cut by line end", "see [doc:3\nmore", []string{"!@[doc:3"}},
		{"cut by end", "see [doc:3, doc:", []string{"!@[doc:3, doc:"}},
		{"cut by end after prefix", "see [doc", nil},
		{"bad content cut by line end", "[doc:x\n]", []string{"!@[doc:"}},
		{"bad content cut by a code span", "[doc:`x`]", []string{"!@[doc:"}},
		{"too long", "[doc:" + strings.Repeat("x", 300) + "]", []string{"!@[doc:"}},

		{"no bracket", "doc:3 and (doc:3)", nil},
		{"other word", "[docs] [document] [dock:1] [do:1]", nil},
		{"other label", "[source: doc:3] [ref:1] [1]", nil},
		{"footnote", "[^doc:1]", nil},
		{"escaped bracket still cites", `\[doc:1]`, []string{"1@[doc:1]"}},
		{"link text", "[see [doc:1]](http://x)", []string{"1@[doc:1]"}},
		{"cjk text", "引用【doc:2】です。", []string{"2@【doc:2】"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := markers(tt.text); !slices.Equal(got, tt.want) {
				t.Errorf("Parse(%q)\n got %q\nwant %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestParseCode(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"inline code", "`[doc:1]` [doc:2]", []string{"2@[doc:2]"}},
		{"double backticks", "``a ` [doc:1]`` [doc:2]", []string{"2@[doc:2]"}},
		{"run lengths must match", "``a [doc:1]` b`` [doc:2]", []string{"2@[doc:2]"}},
		{"unclosed backtick is text", "a ` b [doc:1]", []string{"1@[doc:1]"}},
		{"unclosed run, shorter runs inside", "``a `b [doc:1]` c", nil},
		{"escaped backtick", "\\`[doc:1]\\`", []string{"1@[doc:1]"}},
		{"escaped backslash then code", "\\\\`[doc:1]`", nil},
		{"span across lines", "a `b\n[doc:1] c` [doc:2]", []string{"2@[doc:2]"}},
		{"span ends at blank line", "a `b\n\n[doc:1] c` d", []string{"1@[doc:1]"}},
		{"span ends at heading", "a `b\n# [doc:1] `", []string{"1@[doc:1]"}},
		{"heading is one line", "# a `b [doc:1]\nc` [doc:2]", []string{"1@[doc:1]", "2@[doc:2]"}},
		{"span ends at list item", "a `b\n- [doc:1]` c", []string{"1@[doc:1]"}},
		{"ordered 2 does not interrupt", "a `b\n2. [doc:1]` c", nil},
		{"ordered 2 in a list is an item", "1. a `b\n2. [doc:1]` c", []string{"1@[doc:1]"}},
		{"span ends at setext underline", "a `b\n---\n[doc:1]` c", []string{"1@[doc:1]"}},
		{"span ends at deeper quote", "a `b\n> [doc:1]` c", []string{"1@[doc:1]"}},
		{"span continues in lazy quote line", "> a `b\n[doc:1]` c", nil},
		{"span ends at fence", "a `b\n```\n[doc:1]`\n```\n[doc:2]", []string{"2@[doc:2]"}},
		{"backticks in code block", "```\n`\n```\n[doc:1] `x`", []string{"1@[doc:1]"}},

		{"fence", "```\n[doc:1]\n```\n[doc:2]", []string{"2@[doc:2]"}},
		{"fence info string", "```go [doc:1]\nx\n```", nil},
		{"backtick in the info string: no fence", "``` `x` [doc:1]\n[doc:2]", []string{"1@[doc:1]", "2@[doc:2]"}},
		{"code span of three backticks, no fence", "``` ``[0] ``` [doc:1]", []string{"1@[doc:1]"}},
		{"tilde fence info may hold a backtick", "~~~ `x` [doc:1]\n[doc:2]\n~~~\n[doc:3]", []string{"3@[doc:3]"}},
		{"tilde fence", "~~~\n[doc:1]\n~~~\n[doc:2]", []string{"2@[doc:2]"}},
		{"short fence does not close", "````\n[doc:1]\n```\n[doc:2]\n````\n[doc:3]", []string{"3@[doc:3]"}},
		{"other fence char does not close", "```\n~~~\n[doc:1]\n```\n[doc:2]", []string{"2@[doc:2]"}},
		{"closing fence with text is code", "```\n``` x [doc:1]\n```\n[doc:2]", []string{"2@[doc:2]"}},
		{"unclosed fence", "```\n[doc:1]\n", nil},
		{"fence in list item", "1. a\n\n   ```sh\n   [doc:1]\n   ```\n\n   [doc:2]", []string{"2@[doc:2]"}},
		{"fence in quote", "> ```\n> [doc:1]\n> ```\n> [doc:2]", []string{"2@[doc:2]"}},
		{"fence with CRLF", "```\r\n[doc:1]\r\n```\r\n[doc:2]", []string{"2@[doc:2]"}},
		{"indented code", "a\n\n    [doc:1]\n\nb [doc:2]", []string{"2@[doc:2]"}},
		{"indented code with tab", "\t[doc:1]", nil},
		{"indented code at start", "    x [doc:1]\n    y [doc:2]\nz [doc:3]", []string{"3@[doc:3]"}},
		{"indented paragraph continuation", "a\n    [doc:1]", []string{"1@[doc:1]"}},
		{"indented code after heading", "# h\n    [doc:1]", nil},
		{"list continuation is not code", "- a\n\n    b [doc:1]", []string{"1@[doc:1]"}},
		{"code in list item", "- a\n\n      [doc:1]", nil},
		{"nested list", "1. a\n   - b [doc:1]\n     - c [doc:2]", []string{"1@[doc:1]", "2@[doc:2]"}},
		{"list paragraph after list code", "- a\n\n      x\n\n    [doc:1]", []string{"1@[doc:1]"}},
		{"list ended by outdent", "- a\n\nb\n\n    [doc:1]", nil},
		{"quote code", ">     [doc:1]", nil},
		{"table row", "| a | [doc:1] |", []string{"1@[doc:1]"}},
		{"thematic break", "***\n[doc:1]", []string{"1@[doc:1]"}},

		// CommonMark's container blocks.
		{"fence ends with its quote", "> ```\n> PRAGMA journal_mode=WAL;\nReaders [doc:1].", []string{"1@[doc:1]"}},
		{"fence ends with its list item, unindented fence opens", "1. Enable WAL:\n   ```sql\n   PRAGMA;\n```\n\nReaders [doc:1].", nil},
		{"fence in quote ended by an unquoted fence", "> Note:\n> ```\n> x\n```\n[doc:1]", nil},
		{"indented fence continues a paragraph", "Run this\n    ```\nReaders [doc:1].\n```", []string{"1@[doc:1]"}},
		{"closing fence indented four is code", "  ```\ncode\n    ```\ntext [doc:1]", nil},
		{"list item starting with indented code", "-     code [doc:1]", nil},
		{"empty item ended by a blank line", "1.\n\n\tcode2 [doc:1]", nil},
		{"setext underline only in the same containers", ">`\n=\n[doc7]`", nil},
		{"empty item then content", "-\n  foo [doc:1]", []string{"1@[doc:1]"}},
		{"blank line keeps a fence in a list item", "- a\n\n  ```\n  x [doc:1]\n\n  ```\n[doc:2]", []string{"2@[doc:2]"}},
		{"lazy line in nested quote", "> > a `b\n[doc:1]` c [doc:2]", []string{"2@[doc:2]"}},
		{"ordered 2 after a lazy quote line", "> a `b\n2. [doc:1]` c", []string{"1@[doc:1]"}},
		{"nested list code", "- a\n - b\n  - c\n\n        code [doc:1]\n\n    [doc:2]", []string{"2@[doc:2]"}},
		{"tab after quote marker", ">\t```\n>\t[doc:1]\n>\t```\n>\t[doc:2]", []string{"2@[doc:2]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := markers(tt.text); !slices.Equal(got, tt.want) {
				t.Errorf("Parse(%q)\n got %q\nwant %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestParseGroupIncremental(t *testing.T) {
	// Every proper prefix of a group is undecided until the end of input;
	// at the end it is text (before the reserved prefix) or cut.
	for _, group := range []string{"[doc:12]", "[ Doc : 3 , doc4 ; 5 ]", "【doc:2】"} {
		b := []byte(group)
		for n := 1; n < len(b); n++ {
			st, _, _ := parseGroup(b[:n], 0, false, nil)
			if st != groupMore {
				t.Errorf("parseGroup(%q) not final = %d, want groupMore", b[:n], st)
			}
			st, _, _ = parseGroup(b[:n], 0, true, nil)
			if st != groupNone && st != groupCut && st != groupOK {
				t.Errorf("parseGroup(%q) final = %d, want none, cut or ok", b[:n], st)
			}
		}
	}
	if st, end, idx := parseGroup([]byte("[doc:1, 2]x"), 0, false, nil); st != groupOK || end != 10 || !slices.Equal(idx, []int{1, 2}) {
		t.Errorf("parseGroup = %d %d %v", st, end, idx)
	}
}

func TestKey(t *testing.T) {
	if got := Key(7); got != "[doc:7]" {
		t.Errorf("Key(7) = %q", got)
	}
	if got := (Reference{Index: 12}).Key(); got != "[doc:12]" {
		t.Errorf("Key = %q", got)
	}
	if got := markers(Key(42)); !slices.Equal(got, []string{"42@[doc:42]"}) {
		t.Errorf("Parse(Key(42)) = %q", got)
	}
}
