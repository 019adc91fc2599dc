// Package weaviate keeps a cite index in a Weaviate cluster, for teams
// whose documents outgrow one machine: chunks with their full-text terms
// and vectors in a collection that Weaviate shards, replicates and
// searches (BM25, HNSW vectors and hybrid fusion), so that several
// machines answer from it at once. It is the only home of
// github.com/weaviate/weaviate-go-client in cite.
//
// A [Store] is both sides of cite's store seam: an [index.Reader] that
// package search reads, and an [index.Replica] that the local index
// ([index.Store]) pushes every committed change to. Select it with
// cite --store weaviate://HOST:PORT[?collection=NAME&shards=N&replicas=N]
// or CITE_STORE.
//
// # Layout
//
// A cite index named NAME (default "Cite") is three collections:
// NAMEChunk (one object per chunk: its text, cite's full-text terms,
// heading path, spans in the normalized text and in the source file, its
// document's id, source and path, and the vector of cite's own embedder,
// brought along, so every embedder works and results compare with the
// embedded index); NAMEDocument (one object per document: title, path,
// format, kind, content hash, and the ids of the chunks of its committed
// version); NAMEMeta (the embedder). Object ids are name-based UUIDs of
// cite's chunk and document ids, so writing the same thing twice writes
// the same objects. BM25 runs over the "terms" property, whitespace
// tokenized, without stop words, with k1 1.2 and b 0.75: the terms and the
// parameters of the embedded index.
//
// # Weaviate releases
//
// cite is tested with weaviate-server v1.38.5 ([TestedVersion]), run with
// Weaviate's defaults. Open reads the server's version (/v1/meta): it
// refuses a release older than [MinVersion], the oldest cite's tests have
// run against, saying what to install, and gives a [Store.Warning] for
// one older than v1.38.3 ([FixedVersion]). Those misrank BM25 over
// objects still in Weaviate's memtables, which it flushes by default 60 s
// after the first write into an empty one (with steady ingestion there is
// always such a minute): BlockMax WAND, its default, gave such objects an
// upper bound of zero and pruned them once it had the number of results
// asked for (upstream fix weaviate/weaviate#11780; #12022 fixed k1 and b
// when flushing). Measured on the shared SQuAD half,
// questions asked right after indexing: the README gives the figures.
// v1.39 does not build from the Go module proxy (its dependency
// github.com/weaviate/sroar v0.0.18 is refused).
//
// # Protocol: incremental and crash-safe across two systems
//
// Weaviate has no transaction spanning a document's chunks, so cite keeps
// its promises this way:
//
//  1. The writer's local index (the --index folder) is the manifest. A
//     change (a document written, edited or deleted; vectors added) is
//     committed there first, and in the same SQLite transaction the
//     document is marked pending (a row of its meta table).
//  2. The document is then pushed ([Store.Push]): its chunk objects are
//     upserted; its document object, listing this version's chunk ids, is
//     upserted (the commit point); chunk objects the list does not name
//     are deleted. A deletion removes the document object first, then its
//     chunks ([Store.Remove]).
//  3. Once the push succeeded, the pending mark is removed.
//  4. Every search keeps only chunks whose document object lists them
//     (ChunksByRowid): an old version's chunks and a new version's chunks
//     not yet committed are never returned, so an edited file's old and
//     new chunks never mix in results.
//
// A kill -9 at any moment leaves the local index in its old or new state
// (SQLite), and the replica with the old version visible, or the new one,
// plus at worst unlisted chunk objects; the document stays pending. The
// next write (cite index, which pushes pending documents first) or cite
// check --repair ([index.Store.RepairReplica]) pushes it again, which is
// idempotent and deletes the unlisted chunks. Unchanged files are never
// pushed: an unchanged file makes no local change. cite check compares
// the collection with the manifest: documents pending, missing, stale or
// extra, listed chunks missing, and orphan chunk objects.
//
// # Faults
//
// Reads use consistency level ONE, so they keep working while a node is
// down as long as each shard has a live replica (replication factor 2 or
// more). Writes use QUORUM (with two replicas, both): a write that cannot
// reach a quorum fails, the documents it carried are named in a
// [index.ReplicaError] and stay pending, and the next run completes them;
// QUORUM writes with ONE reads mean an acknowledged write is on every
// replica a read may ask. A cluster that does not answer is an error
// naming its address; nothing is lost locally. Requests time out (30 s)
// and transient failures (connection errors, 429, 502, 503, 504) are
// retried with exponential backoff and jitter; nothing else is retried.
package weaviate
