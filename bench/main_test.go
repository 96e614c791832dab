package bench

import (
	"flag"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/harness-agent/harness/internal/testkit"
)

// Binaries the benchmarks start. bench/run.sh builds them once and names
// them in HARNESS_BIN, BENCH_TESTPLUGIN and BENCH_BAREPLUGIN; missing ones
// are built here.
var (
	harnessBin string // the harness binary: its built-in plugins
	testPlugin string // core/pluginhost/testdata/testplugin: noop and big tools
	barePlugin string // bench/bareplugin: the bare provider stream
)

func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f == nil || f.Value.String() == "" {
		os.Exit(m.Run()) // go test ./... builds nothing here
	}
	for _, b := range []struct {
		out      *string
		env, pkg string
	}{
		{&harnessBin, "HARNESS_BIN", "../cmd/harness"},
		{&testPlugin, "BENCH_TESTPLUGIN", "../core/pluginhost/testdata/testplugin"},
		{&barePlugin, "BENCH_BAREPLUGIN", "./bareplugin"},
	} {
		if *b.out = os.Getenv(b.env); *b.out == "" {
			*b.out = testkit.MustBuild(b.pkg)
		}
	}
	// No leak check: the packages' own tests check for leaks; these only
	// measure.
	code := m.Run()
	testkit.RemoveBuilt()
	os.Exit(code)
}

// timings collects the durations of one measured path.
type timings []time.Duration

// time runs f and records how long it took.
func (t *timings) time(f func()) {
	start := time.Now()
	f()
	*t = append(*t, time.Since(start))
}

// p50 is the median.
func (t timings) p50() time.Duration {
	if len(t) == 0 {
		return 0
	}
	s := slices.Clone(t)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// report adds the medians of paths as metrics NAME-p50-UNIT, and the ratio
// of the first to the second as "ratio".
func report(b *testing.B, unit time.Duration, names []string, paths ...timings) {
	b.Helper()
	suffix := map[time.Duration]string{time.Microsecond: "us", time.Millisecond: "ms"}[unit]
	for i, p := range paths {
		b.ReportMetric(float64(p.p50())/float64(unit), names[i]+"-p50-"+suffix)
	}
	if len(paths) >= 2 && paths[1].p50() > 0 {
		b.ReportMetric(float64(paths[0].p50())/float64(paths[1].p50()), "ratio")
	}
}
