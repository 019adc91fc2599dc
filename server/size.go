package server

import (
	"fmt"

	"github.com/cite-rag/cite/ingest"
)

// limitSize writes a size limit as people read it: exactly when it is a
// whole number of its largest unit (1 MiB, 10 MB, 8 KiB, 2 kB), else as
// cite prints sizes elsewhere (SI, rounded: 1.5 MB). Messages give the
// flag's value in bytes beside it, as the flag takes it.
func limitSize(n int64) string {
	for _, u := range []struct {
		bin, si         int64
		binName, siName string
	}{{1 << 30, 1e9, "GiB", "GB"}, {1 << 20, 1e6, "MiB", "MB"}, {1 << 10, 1e3, "KiB", "kB"}} {
		switch {
		case n < u.si:
			continue
		case n >= u.bin && n%u.bin == 0:
			return fmt.Sprintf("%d %s", n/u.bin, u.binName)
		case n%u.si == 0:
			return fmt.Sprintf("%d %s", n/u.si, u.siName)
		}
		break
	}
	return ingest.FormatSize(n)
}

// overLimit says that something is over a limit a flag sets: "over 1 MiB
// (cite serve --max-body 1048576)".
func overLimit(limit int64, flag string) string {
	return fmt.Sprintf("over %s (cite serve %s %d)", limitSize(limit), flag, limit)
}
