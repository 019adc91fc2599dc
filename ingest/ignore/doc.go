// Package ignore reads ignore files (.gitignore, and ripgrep's .ignore of
// the same syntax) and tells whether a path is ignored by them, with git's
// rules: patterns relative to the folder of their file, "!" re-including,
// a leading or inner "/" anchoring, a trailing "/" matching folders only,
// "**" any number of folders, the last matching line of a file winning.
//
// Stage and imports: a helper of package ingest, which walks folders and
// asks it about each entry; it knows nothing of files or the index, and
// is the only home of github.com/go-git/go-git/v5/plumbing/format/gitignore
// in cite (its patterns are matched as that package matches them, with
// three of its departures from git put right here: a name pattern is
// matched against the last element of a path only, so that "!keep/"
// does not re-include everything below a folder named keep; "dir/**"
// matches what is inside dir but not dir itself, so that a later
// "!dir/file" can re-include a file; and a pattern with a "/" but no "**"
// matches a path only, not the paths below it ("/build" does not match
// build/out.md), so that a folder named though its parent's rules ignore
// it is walked: a walk never enters an ignored folder anyway).
//
// # Usage
//
//	root, problems := ignore.Parse(gitignoreBytes, "")   // the walked folder's .gitignore
//	sub, _ := ignore.Parse(subGitignoreBytes, "docs")      // docs/.gitignore
//	var r *ignore.Rules                                     // nil: nothing ignored
//	r = r.Add(ignore.GitIgnore, root).Add(ignore.GitIgnore, sub)
//	if r.Ignored("docs/drafts/a.md", false) { ... }
//
// Paths are slash-separated and relative to the folder the rules start
// from ("" in Parse). Each line that cannot be a pattern (a "[" never
// closed) is left out and reported as a *LineError; a file with NUL bytes
// is not an ignore file, and is reported and left out whole.
//
// Precedence follows ripgrep: a match in any .ignore file wins over the
// .gitignore files, which win over the repository's .git/info/exclude,
// which wins over git's global excludes file ([ExcludesConfig] reads what
// names it in a git config file: core.excludesFile and includes);
// among files of one kind the deepest folder's wins. A folder that is
// ignored is not walked into, so nothing below it can be re-included (as
// in git); that is the caller's walk to do.
package ignore
