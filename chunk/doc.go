// Package chunk cuts normalized text into token windows for embedding and
// citation: at most 500 tokens of GPT-4o's o200k_base encoding per chunk,
// 50 tokens shared by consecutive chunks (both configurable), each chunk
// carrying its byte span in the text and the heading path it sits under.
//
// This is the second stage of cite's ingest pipeline: it takes the text and
// headings of package normalize (as plain values; it imports nothing of
// cite) and its [Chunk] values are what package index stores.
//
// # Guarantees
//
// For any text, [Splitter.Split] returns chunks that
//   - never exceed the size limit, counting each chunk's text encoded on its
//     own (what an embedding model or LLM sees);
//   - never cut a UTF-8 character;
//   - cover every byte: the first starts at 0, the last ends at len(text),
//     each starts at or before the previous one's end and ends after it, so
//     no chunk is wholly inside another; with a positive overlap,
//     consecutive chunks share at least one byte and at most Overlap tokens
//     (counted on their own), or a single character when that character
//     alone is more, except where a chunk ends a pre-token piece of more
//     than 256 bytes (a run of letters or symbols without a break), after
//     which the next one starts;
//   - end, when such a point lies near the size limit, before a heading, at
//     a paragraph break, a line break, the end of a sentence or between
//     words, and start their overlap at a paragraph, line, sentence or word;
//   - carry a heading path of at most [MaxPathBytes] bytes, each heading in
//     it at most [MaxHeadingBytes] ([Clip]): a heading's whole text is in
//     the chunks that hold it, and the path under it costs a bounded size.
//
// # Tokenization
//
// [Tokenizer] gives exactly the tokens of OpenAI's tiktoken for o200k_base
// (the tests compare it with tiktoken-go token for token, on a real corpus
// and under fuzzing), from a rank table embedded in the binary, generated
// from the one github.com/pkoukk/tiktoken-go-loader embeds (go generate;
// the file is committed): it never touches the network. It is
// about 30 times faster than tiktoken-go's Encode (BenchmarkTokenizer,
// 29-44 times in three runs on a loaded machine), because it pre-tokenizes
// with a hand-written scanner instead of regexp2, caches the byte-pair
// encoding of pieces that are not single tokens, and keeps the tokens of
// the pieces it met last in a small cache of each call's own. A document
// is tokenized once; chunk counts are derived from its tokens, re-encoding
// only the part of a pre-token that a cut splits.
//
// # The piece cap
//
// One deviation from tiktoken is deliberate: a pre-token piece longer than
// [MaxPiece] (1,024) bytes, such as a run of thousands of letters or of
// punctuation without a space, is encoded as consecutive pieces of MaxPiece
// bytes (each cut backed off to a character start) and a shorter last one.
// Byte-pair encoding one huge piece, and chunking inside it, would
// otherwise cost time far out of proportion to its size. Only token
// boundaries inside such runs change; ordinary text never has a piece near
// the cap (the longest o200k_base token is 128 bytes), and its tokens are
// tiktoken's exactly. Counts, sizes and every guarantee above are in terms
// of this Tokenizer.
//
// Costs: time and memory are linear in the text, pathological text
// included (BenchmarkPathological in package ingest). The rank table
// (3.3 MB in the binary, package ranktable's layout: a perfect hash over
// the tokens' bytes) is read in place, so loading the tokenizer builds
// nothing: in a fresh process under a CPU-millisecond and a few page
// faults, where parsing tiktoken's file into a map took about 0.1
// CPU-seconds, 2,900 faults and 12 MB (BenchmarkO200kLoad); a lookup
// costs less than the map's (BenchmarkRankLookup). The first
// piece over 256 bytes sorts the tokens for longest match (about 60 ms and
// 3 MB more); each encoding call in progress has a piece cache of 512 KB
// (one per core is kept between calls); Split holds one 4-byte token record
// per token of the text, in blocks that grow without copying.
package chunk
