package ingest

import (
	"io/fs"
	"os"
	"strings"
)

// osFS is the operating system's file system from its root, like
// os.DirFS("/"), except that names need not be UTF-8: os.DirFS refuses them
// (fs.ValidPath), so a file whose name is, say, Latin-1 could not be
// indexed. Names are otherwise fs.FS names: unrooted, slash-separated,
// without . or .. elements.
type osFS struct{}

var (
	_ fs.StatFS     = osFS{}
	_ fs.ReadDirFS  = osFS{}
	_ fs.ReadLinkFS = osFS{}
)

func (osFS) path(op, name string) (string, error) {
	if !validName(name) {
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return "/", nil
	}
	return "/" + name, nil
}

func (fsys osFS) Open(name string) (fs.File, error) {
	p, err := fsys.path("open", name)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err // a *fs.PathError; callers drop its path
	}
	return f, nil
}

func (fsys osFS) Stat(name string) (fs.FileInfo, error) {
	p, err := fsys.path("stat", name)
	if err != nil {
		return nil, err
	}
	return os.Stat(p)
}

func (fsys osFS) Lstat(name string) (fs.FileInfo, error) {
	p, err := fsys.path("lstat", name)
	if err != nil {
		return nil, err
	}
	return os.Lstat(p)
}

func (fsys osFS) ReadLink(name string) (string, error) {
	p, err := fsys.path("readlink", name)
	if err != nil {
		return "", err
	}
	return os.Readlink(p)
}

func (fsys osFS) ReadDir(name string) ([]fs.DirEntry, error) {
	p, err := fsys.path("readdir", name)
	if err != nil {
		return nil, err
	}
	return os.ReadDir(p)
}

// validName is fs.ValidPath without its UTF-8 check, and refusing NUL,
// which no file name can hold.
func validName(name string) bool {
	if name == "." {
		return true
	}
	if strings.IndexByte(name, 0) >= 0 {
		return false
	}
	for elem := range strings.SplitSeq(name, "/") {
		if elem == "" || elem == "." || elem == ".." {
			return false
		}
	}
	return true
}
