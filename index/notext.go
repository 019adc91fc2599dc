package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// metaNoText prefixes the meta rows of the files that gave no text (a
// picture of no words read by OCR): metaNoText + the file's SHA-256, and
// the pipeline that read it as the value.
const metaNoText = "no_text:"

// NoText reports whether a file of SHA-256 hash (hex) gave no text when
// pipeline read it, as [Store.SetNoText] recorded: such a file is not
// indexed, and reading it again (OCR of a photo: seconds) would give
// nothing again.
func (s *Store) NoText(ctx context.Context, hash, pipeline string) (bool, error) {
	var v string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, metaNoText+hash).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read no-text mark: %w", dbError(err))
	}
	return v == pipeline, nil
}

// SetNoText records that a file of SHA-256 hash gave no text when
// pipeline read it. The mark is of the content, not a path: a copy of the
// file elsewhere is known too.
func (s *Store) SetNoText(ctx context.Context, hash, pipeline string) error {
	if s.readOnly {
		return fmt.Errorf("mark no text: %w", ErrReadOnly)
	}
	err := s.wrote(func() error {
		_, err := s.db.ExecContext(ctx, `INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)`, metaNoText+hash, pipeline)
		return err
	})
	if err != nil {
		return fmt.Errorf("mark no text: %w", dbError(err))
	}
	return nil
}
