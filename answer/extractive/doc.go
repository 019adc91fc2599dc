// Package extractive answers a question without a language model: it picks
// the sentences of the given passages that best answer it, and finds each
// one's bytes in its source so that a citation can open that sentence.
// Package answer wraps it as the offline [provider.ChatModel]
// (answer.NewExtractive); cmd/cite uses it when no model is configured.
//
// It is the answer stage's own leaf: it imports citations (the passages are
// [citations.Reference] values), index (term statistics), index/analysis
// and index/embed (the terms and the hash embedder search uses) and
// answer/lexicon, never package answer.
//
// The files follow the steps of [Answerer.Answer]:
//
//   - question.go and cue.go: what the question asks (its weighted terms,
//     the kind of answer: a number, a date, a name, a place);
//   - sentence.go: passages cut into sentences;
//   - features.go: the candidate sentences and their features;
//   - score.go: the terms' weights and the features' weighted sum;
//   - select.go: the choice of the sentences, best first;
//   - present.go, code.go and locate.go: how the answer gives each sentence
//     (its list label, the lines it introduces, its example's code) and
//     where its quote lies in the source.
//
// Scoring: each sentence of each passage is described by features (the
// feat constants) and scored by their weighted sum. The main one is the
// share of the question's weight it contains (its terms as stems, each
// weighted by inverse document frequency, half over the candidate sentences
// and half over the whole index when [Options.TermStats] is set);
// the others add partial credit for words spelled nearly as the question's
// and for synonyms and derived forms of its words ([lexicon.Related]), its
// words in the question's order, the same share weighted by idf over the
// candidates alone and over the passages, what the previous sentence adds
// (more when the sentence opens with "he", "this" or "the"), the BM25 score
// of its paragraph, the cosine of its hash embedding with the question's,
// holding the kind of answer the question asks for (a number for "how
// many", a date for "when", a name for "who", a name after "in" or "at"
// for "where") beyond what the question already says and near its words,
// and the passage's rank; and they penalize long sentences, sentences that
// add nothing to the question and headings. The weights were fitted on
// SQuAD ([defaultWeights]). A question counts as answered when a sentence holds
// MinCoverage of its weight, and, for a question the documents may not
// speak of, two of its terms (of three or more) and a quarter of its
// weight by the index's idf (select.go's onTopic); a sentence can be cited when it and its
// neighbours do. The best sentence comes first. Up to MaxSentences-1 more
// follow, one per passage (a reference carries one quote), if they score
// close to the best or answer a part of the question the chosen ones leave
// out, each holding MinCoverage itself. A sentence that two passages hold
// (overlapping chunks, copies of a document) is a candidate once.
//
// The answer gives a sentence as the documents show it: without its list
// bullet, after its item's label when it is nested under one ("Restricted:
// The default execution policy…"), and with the lines it introduces when it
// ends with a colon (the command after "To create a directory, type:"). A
// heading that scores best stands for the first sentence of its section,
// and the first sentence brings the rest of its paragraph and the Markdown
// code block that follows it (the command of a documentation example), or,
// when none does, the block just before its paragraph that it speaks of (a
// reference page's example gives a heading, the code, then "This
// example…"), or, when the paragraph opens a section, the section's first
// block.
// Quotes cover the same: the heading, the sentence, the code.
//
// [provider.ChatModel]: https://pkg.go.dev/github.com/cite-rag/cite/provider#ChatModel
package extractive
