package office

import (
	"fmt"

	"github.com/cite-rag/cite/normalize"
)

func readEPUB(*zipDoc) (*normalize.Document, error) {
	return nil, fmt.Errorf("%w: EPUB is not read yet", ErrNotOffice)
}
