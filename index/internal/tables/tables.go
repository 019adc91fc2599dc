// Package tables is the key that opens the index's database to the
// packages under index that keep tables of their own in it (index/session,
// cite serve's sessions). Being internal to index, it can be named only
// there: everything else reads and writes the index through [index.Store]'s
// methods, and package index stays the only home of SQLite.
package tables

// Key is the argument of [index.Store.Tables]. Its zero value is the key;
// a type of the same shape declared elsewhere is another type.
type Key struct{ private struct{} }
