package engine

import (
	"regexp/syntax"
	"unicode/utf8"
)

// piece is a literal that every match of a regexp contains.
type piece struct {
	text []byte
	fold bool // matched case-insensitively ((?i))
}

// requiredPieces lists literals that must appear in any match of re: the
// literal runs of a concatenation and, recursively, those of its parts that
// must occur at least once (captures, x+, x{n,} with n ≥ 1). Alternations,
// optional parts and classes contribute nothing.
func requiredPieces(re *syntax.Regexp) []piece {
	switch re.Op {
	case syntax.OpLiteral:
		return []piece{literalPiece(re)}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredPieces(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredPieces(re.Sub[0])
		}
	case syntax.OpConcat:
		return concatPieces(re.Sub)
	}
	return nil
}

// concatPieces joins adjacent literals of equal case sensitivity into one
// piece, since they must appear next to each other.
func concatPieces(subs []*syntax.Regexp) []piece {
	var out []piece
	var run *piece
	for _, sub := range subs {
		if sub.Op != syntax.OpLiteral {
			run = nil
			out = append(out, requiredPieces(sub)...)
			continue
		}
		p := literalPiece(sub)
		if run != nil && run.fold == p.fold {
			run.text = append(run.text, p.text...)
			continue
		}
		out = append(out, p)
		run = &out[len(out)-1]
	}
	return out
}

func literalPiece(re *syntax.Regexp) piece {
	var text []byte
	for _, r := range re.Rune {
		text = utf8.AppendRune(text, r)
	}
	return piece{text: text, fold: re.Flags&syntax.FoldCase != 0}
}

// hasNewline reports whether the regexp contains a literal line feed, which
// can never match inside a line (ripgrep refuses such patterns too).
func hasNewline(re *syntax.Regexp) bool {
	if re.Op == syntax.OpLiteral {
		for _, r := range re.Rune {
			if r == '\n' {
				return true
			}
		}
	}
	for _, sub := range re.Sub {
		if hasNewline(sub) {
			return true
		}
	}
	return false
}

// bestFinder picks, among the required pieces, the one whose finder should
// stop least often: the piece with the rarest byte (for a case-insensitive
// piece, its rarest anchor byte counting both cases), longer pieces first on
// a tie. It returns nil when no piece can be searched for.
func bestFinder(pieces []piece) finder {
	bestRank, bestLen := 256, 0
	var best finder
	for _, p := range pieces {
		rank, f := pieceFinder(p)
		if f == nil {
			continue
		}
		if rank < bestRank || rank == bestRank && len(p.text) > bestLen {
			bestRank, bestLen, best = rank, len(p.text), f
		}
	}
	return best
}

func pieceFinder(p piece) (int, finder) {
	if p.fold {
		a, b, ok := caselessAnchor(p.text)
		if !ok {
			return 0, nil
		}
		rank := int(max(byteRank[a], byteRank[b]))
		if f := newCaselessLiteralFinder(p.text); f != nil {
			return rank, f
		}
		return rank, &caselessFinder{one: a, other: b}
	}
	switch len(p.text) {
	case 0:
		return 0, nil
	case 1:
		return int(byteRank[p.text[0]]), byteFinder{b: p.text[0]}
	}
	f := newLiteralFinder(p.text)
	return int(byteRank[f.rare1]), f
}
