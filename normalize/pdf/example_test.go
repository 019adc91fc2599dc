package pdf_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/cite-rag/cite/normalize/pdf"
)

func Example() {
	data, err := os.ReadFile("testdata/report.pdf")
	if err != nil {
		fmt.Println(err)
		return
	}
	r := &pdf.Reader{MaxPages: 1000, OCR: pdf.OCRAuto}
	doc, rep, err := r.Read(context.Background(), data)
	switch {
	case errors.Is(err, pdf.ErrEncrypted):
		fmt.Println("skipped report.pdf:", err)
		return
	case err != nil:
		fmt.Println("report.pdf:", err)
		return
	}
	for _, h := range doc.Headings {
		fmt.Printf("page %d: %s\n", doc.PageAt(h.Offset), h.Text)
	}
	fmt.Println(len(rep.Dropped), "running headers, footers and page numbers left out")
	// Output:
	// page 1: Report on Lighthouses
	// page 1: Origins
	// page 1: Engineering
	// page 2: Keepers and Their Lives
	// page 2: Daily routine
	// 12 running headers, footers and page numbers left out
}
