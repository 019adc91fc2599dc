package eval

import (
	"path/filepath"
	"testing"

	"github.com/cite-rag/cite/answer"
	"github.com/cite-rag/cite/internal/testenv"
)

// TestExtractiveOffTopic measures how often the extractive answerer answers
// a question the documents do not speak of, which it should not: the SQuAD
// sample of TestExtractiveSQuAD (1,080 questions) asked of an index of the
// PowerShell 7.4 reference, and the reference's how-to questions
// (TestExtractiveHowTo's, 1,318) asked of SQuAD's. Any answer is wrong
// there, however exactly it quotes its sentence ("What seed was the Denver
// Broncos?": "Caution: Setting the seed results in non-random behavior.").
// Measured: 0.327 and 0.866 answered before the answerer asked a sentence
// to hold two of a longer question's terms and a quarter of its weight by
// the index's idf (extractive's onTopic), 0.093 and 0.502 after. It
// enforces ceilings above those, and skips as TestExtractiveSQuAD does.
func TestExtractiveOffTopic(t *testing.T) {
	if testenv.Race || testing.Short() {
		t.Skip("slow quality measurement")
	}
	squad, sqSt, sqS := openSet(t, testenv.SharedData(t, "squad"), nil)
	var sample []Question
	for i, q := range squad.Questions {
		if i%5 == 0 {
			sample = append(sample, q)
		}
	}
	squad.Questions = sample
	howto := howToSet(t, filepath.Join(testenv.SharedData(t, "markdown"), "reference", "7.4"))
	psSt, psS := indexSet(t, howto, nil)
	for _, tc := range []struct {
		name    string
		set     *Set
		answers func() (AnswerMetrics, error)
		ceiling float64
	}{
		{"SQuAD asked of the PowerShell docs", squad, func() (AnswerMetrics, error) {
			return RunAnswers(t.Context(), squad, psS, answer.NewExtractive(answer.ExtractiveOptions{TermStats: psSt.TermStats}), AnswerOptions{})
		}, 0.12},
		{"the docs' how-to asked of SQuAD", howto, func() (AnswerMetrics, error) {
			return RunAnswers(t.Context(), howto, sqS, answer.NewExtractive(answer.ExtractiveOptions{TermStats: sqSt.TermStats}), AnswerOptions{})
		}, 0.55},
	} {
		m, err := tc.answers()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d questions, answered %.3f, violations %d", tc.name, m.Questions, m.Answered, m.Violations)
		if m.Violations != 0 {
			t.Errorf("%s: %d contract violations: %v", tc.name, m.Violations, m.Examples)
		}
		if m.Answered > tc.ceiling {
			t.Errorf("%s: answered %.3f of the questions, want ≤ %.2f: the documents do not speak of them", tc.name, m.Answered, tc.ceiling)
		}
	}
}
