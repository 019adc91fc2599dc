package office

import (
	"fmt"

	"github.com/cite-rag/cite/normalize"
)

func readODT(*zipDoc) (*normalize.Document, error) {
	return nil, fmt.Errorf("%w: ODT is not read yet", ErrNotOffice)
}

func readEPUB(*zipDoc) (*normalize.Document, error) {
	return nil, fmt.Errorf("%w: EPUB is not read yet", ErrNotOffice)
}
