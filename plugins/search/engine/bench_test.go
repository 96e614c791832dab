package engine

import (
	"context"
	"testing"
)

// The benchmarks search Go's source tree like the ripgrep comparison does
// (see compare_rg.sh): a literal, and a regexp with a required literal.

func BenchmarkSearchGoSrcLiteral(b *testing.B) { benchmarkGoSrc(b, benchQueries[0]) }

func BenchmarkSearchGoSrcRegex(b *testing.B) { benchmarkGoSrc(b, benchQueries[1]) }

func benchmarkGoSrc(b *testing.B, q Query) {
	src := goSource(b)
	var res Result
	for b.Loop() {
		var err error
		if res, err = Search(context.Background(), src, q); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(res.Total), "hits")
}
