package office_test

import (
	"context"
	"fmt"
	"os"

	"github.com/cite-rag/cite/normalize/office"
)

func Example() {
	data, err := os.ReadFile("testdata/report.docx") // made by pandoc
	if err != nil {
		panic(err)
	}
	kind, ok := office.Detect(data)
	if !ok {
		fmt.Println("not an office document")
		return
	}
	doc, err := office.Read(context.Background(), kind, data)
	if err != nil {
		panic(err)
	}
	fmt.Println(kind, doc.Title)
	for _, h := range doc.Headings[:3] {
		fmt.Println(h.Level, h.Text)
	}
	// Output:
	// DOCX Quarterly Report
	// 1 Quarterly Report
	// 1 Summary
	// 2 Regions
}
