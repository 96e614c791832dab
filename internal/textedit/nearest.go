package textedit

import (
	"sort"
	"strings"
	"unicode/utf8"
)

const (
	maxCandidates     = 3
	maxCandidateBytes = 200
	// minSimilarity is the bigram similarity below which a line is not a candidate.
	minSimilarity = 0.5
)

// nearest returns the places in text that most resemble old: first where
// old matches but for whitespace, else the lines most similar to old's
// first non-blank line.
func nearest(text, old string) []Candidate {
	lines := strings.Split(text, "\n")
	oldLines := strings.Split(strings.TrimSuffix(old, "\n"), "\n")
	if c := whitespaceMatches(lines, oldLines); len(c) > 0 {
		return c
	}
	first := ""
	for _, l := range oldLines {
		if first = squash(l); first != "" {
			break
		}
	}
	if first == "" {
		return nil
	}
	want := bigrams(first)
	type scored struct {
		Candidate
		score float64
	}
	var best []scored
	for i, l := range lines {
		s := dice(want, bigrams(squash(l)))
		if s >= minSimilarity {
			best = append(best, scored{Candidate{Line: i + 1, Text: cut(strings.TrimRight(l, "\r")), Why: "similar"}, s})
		}
	}
	sort.SliceStable(best, func(i, j int) bool { return best[i].score > best[j].score })
	var out []Candidate
	for _, s := range best[:min(len(best), maxCandidates)] {
		out = append(out, s.Candidate)
	}
	return out
}

// whitespaceMatches returns where the lines of old match lines of the
// text once runs of whitespace are collapsed and the ends trimmed.
func whitespaceMatches(lines, old []string) []Candidate {
	if len(old) > len(lines) {
		return nil
	}
	norm := make([]string, len(old))
	for i, l := range old {
		norm[i] = squash(l)
	}
	var out []Candidate
	for i := 0; i+len(old) <= len(lines) && len(out) < maxCandidates; i++ {
		match := true
		for j := range old {
			if squash(lines[i+j]) != norm[j] {
				match = false
				break
			}
		}
		if match {
			out = append(out, Candidate{Line: i + 1, Text: cut(strings.TrimRight(lines[i], "\r")), Why: "differs in whitespace only"})
		}
	}
	return out
}

// squash trims s and collapses its runs of whitespace to one space.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

func cut(s string) string {
	if len(s) <= maxCandidateBytes {
		return s
	}
	n := maxCandidateBytes
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// bigrams counts the pairs of adjacent bytes of s.
func bigrams(s string) map[string]int {
	m := make(map[string]int, len(s))
	for i := 0; i+2 <= len(s); i++ {
		m[s[i:i+2]]++
	}
	return m
}

// dice is the Sørensen–Dice similarity of two bigram multisets, in [0, 1].
func dice(a, b map[string]int) float64 {
	na, nb, common := 0, 0, 0
	for k, n := range a {
		na += n
		common += min(n, b[k])
	}
	for _, n := range b {
		nb += n
	}
	if na+nb == 0 {
		return 0
	}
	return 2 * float64(common) / float64(na+nb)
}
