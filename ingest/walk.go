package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"path"
	"strings"
	"syscall"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/cite-rag/cite/index"
)

// File is a file found by [Walk].
type File struct {
	Name string      // slash-separated path in the walked file system
	Info fs.FileInfo // from the walk; Stat for symbolic links
	Skip string      // why the file is not indexed, when it is not
	// Gone says the file (or folder) was deleted between its folder's
	// listing and its reading.
	Gone bool
	// Ignored says the file or folder is left out by ignore files or
	// [Options.Exclude]; a folder's files are not walked.
	Ignored bool
}

// goneReason is the reason given for a file that is gone ([Gone]).
const goneReason = "deleted during the run"

// errSymlinkLoop is the error of a path whose symbolic links lead back
// to themselves.
var errSymlinkLoop = errors.New("symlink loop: its symbolic links lead back to themselves")

// isLoop reports whether err says a path's symbolic links form a loop
// (the operating system's "too many levels of symbolic links").
func isLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }

// PathError reports a path argument or file that could not be used.
type PathError struct {
	Path string
	Err  error
}

// Error names the path escaped by [index.EscapePath].
func (e *PathError) Error() string { return index.EscapePath(e.Path) + ": " + e.Err.Error() }
func (e *PathError) Unwrap() error { return e.Err }

// Walk yields the files named by patterns in fsys, each once: a file, every
// file under a folder (recursively, leaving out folders and files whose name
// starts with a dot, such as .git and .cite, unless named directly), or
// the matches of a glob pattern (with ** for any depth). A pattern that
// matches nothing yields a *PathError. Files that are not regular files
// (devices, sockets, pipes, links to folders, symlink loops) are yielded
// with a Skip reason, and files and folders deleted while they are walked
// as Gone. It reads no ignore files: [Indexer.Index] does.
func Walk(ctx context.Context, fsys fs.FS, patterns []string) iter.Seq2[File, error] {
	return walk(ctx, fsys, patterns, nil, nil)
}

// walk is [Walk], leaving out what f says (nil: nothing) as Ignored files.
// A pattern below one of roots ([Options.Roots]: a watcher's changed path)
// is taken as that root's walk would find it: a symbolic link to a folder
// is skipped, not followed.
func walk(ctx context.Context, fsys fs.FS, patterns []string, f *filter, roots []string) iter.Seq2[File, error] {
	return func(yield func(File, error) bool) {
		seen := make(map[string]bool)
		emit := func(f File) bool {
			if seen[f.Name] {
				return true
			}
			seen[f.Name] = true
			return yield(f, nil)
		}
		for _, p := range patterns {
			if ctx.Err() != nil {
				yield(File{}, ctx.Err())
				return
			}
			name := path.Clean(p)
			_, err := fs.Stat(fsys, name)
			if err != nil && hasMeta(name) {
				matches, gerr := doublestar.Glob(fsys, name, doublestar.WithFilesOnly(), doublestar.WithNoFollow())
				if gerr != nil {
					if !yield(File{}, &PathError{p, fmt.Errorf("bad pattern: %w", gerr)}) {
						return
					}
					continue
				}
				if len(matches) == 0 && !yield(File{}, &PathError{p, errors.New("no files match")}) {
					return
				}
				var t *tree
				if f != nil {
					t = f.tree(globBase(name))
				}
				for _, m := range matches {
					if hiddenMatch(name, m) {
						continue
					}
					if t != nil && t.ignored(m, false) {
						if !emit(File{Name: m, Ignored: true}) {
							return
						}
						continue
					}
					if !walkOne(ctx, fsys, m, emit, nil) {
						return
					}
				}
				continue
			}
			if isLoop(err) {
				err = errSymlinkLoop
			}
			if err != nil {
				if !yield(File{}, &PathError{p, unwrapPathErr(err)}) {
					return
				}
				continue
			}
			var t *tree
			if f != nil {
				base, explicit := f.base(name)
				t = f.tree(base)
				if !explicit {
					info, err := fs.Stat(fsys, name)
					if t.ignored(name, err == nil && info.IsDir()) {
						if !emit(File{Name: name, Ignored: true}) {
							return
						}
						continue
					}
				}
			}
			if folderLink(fsys, name, roots) {
				if !emit(File{Name: name, Skip: folderLinkSkip}) {
					return
				}
				continue
			}
			if !walkOne(ctx, fsys, name, emit, t) {
				return
			}
		}
	}
}

// folderLinkSkip is the reason a symbolic link to a folder found walking
// is skipped.
const folderLinkSkip = "symbolic link to a folder (not followed)"

// folderLink reports whether name, below one of roots, is a symbolic link
// to a folder, which the root's walk does not follow (fsys must be an
// [fs.ReadLinkFS] to tell).
func folderLink(fsys fs.FS, name string, roots []string) bool {
	below := false
	for _, r := range roots {
		if name != r && within(name, r) {
			below = true
			break
		}
	}
	if !below {
		return false
	}
	li, err := fs.Lstat(fsys, name)
	if err != nil || li.Mode()&fs.ModeSymlink == 0 {
		return false
	}
	info, err := fs.Stat(fsys, name)
	return err == nil && info.IsDir()
}

// walkOne yields the file name, or the files under the folder name, less
// those t leaves out (nil: none).
func walkOne(ctx context.Context, fsys fs.FS, name string, emit func(File) bool, t *tree) bool {
	keepGoing := true
	err := fs.WalkDir(fsys, name, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == name && d == nil {
				return err
			}
			f := File{Name: p, Skip: "unreadable: " + unwrapPathErr(err).Error()}
			if errors.Is(err, fs.ErrNotExist) { // a folder deleted since its parent was listed
				f = File{Name: p, Gone: true}
			}
			keepGoing = emit(f)
			if !keepGoing {
				return fs.SkipAll
			}
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if p != name && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if p != name && t != nil && t.ignored(p, d.IsDir()) {
			if !emit(File{Name: p, Ignored: true}) {
				keepGoing = false
				return fs.SkipAll
			}
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		f := File{Name: p}
		if d.Type()&fs.ModeSymlink != 0 {
			info, err := fs.Stat(fsys, p) // follow the link
			switch {
			case isLoop(err):
				f.Skip = errSymlinkLoop.Error()
			case err != nil:
				if _, lerr := d.Info(); errors.Is(lerr, fs.ErrNotExist) {
					f.Gone = true // the link itself
					break
				}
				f.Skip = "broken symbolic link"
			case info.IsDir():
				f.Skip = folderLinkSkip
			default:
				f.Info = info
			}
		} else {
			info, err := d.Info()
			switch {
			case errors.Is(err, fs.ErrNotExist):
				f.Gone = true
			case err != nil:
				f.Skip = "unreadable: " + unwrapPathErr(err).Error()
			}
			f.Info = info
		}
		if f.Skip == "" && !f.Gone && !f.Info.Mode().IsRegular() {
			f.Skip = "not a regular file"
		}
		if !emit(f) {
			keepGoing = false
			return fs.SkipAll
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.SkipAll) {
		if errors.Is(err, fs.ErrNotExist) { // deleted since the walk began
			return emit(File{Name: name, Gone: true})
		}
		return emit(File{Name: name, Skip: "unreadable: " + unwrapPathErr(err).Error()})
	}
	return keepGoing
}

// hiddenMatch reports whether a glob match passes through a dot-file or
// dot-folder that the pattern does not name, as shells leave those out.
func hiddenMatch(pattern, match string) bool {
	for c := range strings.SplitSeq(match, "/") {
		if strings.HasPrefix(c, ".") && c != "." && c != ".." && !strings.Contains(pattern, c) {
			return true
		}
	}
	return false
}

func hasMeta(p string) bool { return strings.ContainsAny(p, metaChars) }

// metaChars are the characters that make a name a pattern.
const metaChars = `*?[{\`

// unwrapPathErr drops the *fs.PathError wrapper, whose path the caller
// prints already.
func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
