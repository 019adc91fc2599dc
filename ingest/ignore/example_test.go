package ignore_test

import (
	"fmt"

	"github.com/cite-rag/cite/ingest/ignore"
)

func Example() {
	root, _ := ignore.Parse([]byte("node_modules/\n*.log\n/build\n"), "")
	docs, _ := ignore.Parse([]byte("drafts/\n!keep.log\n"), "docs")
	var rules *ignore.Rules // nil ignores nothing
	rules = rules.Add(ignore.GitIgnore, root).Add(ignore.GitIgnore, docs)
	for _, p := range []struct {
		path  string
		isDir bool
	}{
		{"node_modules", true},
		{"src/node_modules", true},
		{"build", true},
		{"src/build", true},
		{"a.log", false},
		{"docs/keep.log", false},
		{"docs/drafts", true},
		{"drafts", true},
	} {
		fmt.Println(p.path, rules.Ignored(p.path, p.isDir))
	}
	_, problems := ignore.Parse([]byte("ok.md\n[unclosed\n"), "")
	fmt.Println(problems)
	// Output:
	// node_modules true
	// src/node_modules true
	// build true
	// src/build false
	// a.log true
	// docs/keep.log false
	// docs/drafts true
	// drafts false
	// [line 2: "[unclosed": syntax error in pattern: left out]
}
