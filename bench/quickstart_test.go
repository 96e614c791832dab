package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harness-agent/harness/internal/testkit"
)

// BenchmarkQuickstartRSS runs the offline quickstart (harness run
// examples/quickstart/agent.hcl) in a copy of it and samples the memory of
// the harness process tree every millisecond:
//
//   - core+plugins: the peak resident set (VmHWM) of harness itself and of
//     each plugin process, summed. The sum of peaks is an upper bound of the
//     peak of the sum, and it counts the pages of the harness binary that
//     the processes share once per process;
//   - pss: the highest sum, at one sample, of the proportional set sizes
//     (shared pages divided among the processes that map them) of every
//     process of the tree: what the run costs the machine;
//     pss-anon and pss-file split it into private memory (heaps, stacks)
//     and the pages of files (the binary, shared among the processes);
//   - helpers: the terminal's per-command supervisor and the commands it
//     runs (wc, ls), apart.
//
// Wall time is hyperfine's business (bench/run.sh): the sampling costs CPU.
func BenchmarkQuickstartRSS(b *testing.B) {
	dir := b.TempDir()
	testkit.CopyTree(b, "../examples/quickstart", dir, ".harness", "out")
	var total, core, plugins, helpers, pss, anon, file []float64
	var last []peak
	var lastProcs []procPSS
	// A b.Loop loop here makes Go 1.26.8's escape analysis crash (internal
	// compiler error); the benchmark runs a fixed count (-benchtime Nx) anyway.
	for range b.N {
		cmd := exec.Command(harnessBin, "run", "--no-input", "agent.hcl", "Summarize the open TODOs")
		cmd.Dir = dir
		// The runs' sessions stay out of the user's store.
		cmd.Env = append(os.Environ(), "HARNESS_STATE_DIR="+filepath.Join(dir, "state"))
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		peaks, peakPSS, procs := sampleTree(cmd.Process.Pid, cmd.Wait)
		var c, p, x float64
		for _, pk := range peaks {
			switch {
			case pk.pid == cmd.Process.Pid:
				c += pk.mib
			case strings.Contains(pk.cmdline, " plugin serve "):
				p += pk.mib
			default:
				x += pk.mib
			}
		}
		if c == 0 || p == 0 {
			b.Fatalf("sampled no harness or no plugin: %+v", peaks)
		}
		var a, f float64
		for _, pr := range procs {
			a, f = a+pr.anon, f+pr.file
		}
		total, core, plugins, helpers, pss = append(total, c+p), append(core, c), append(plugins, p), append(helpers, x), append(pss, peakPSS)
		anon, file = append(anon, a), append(file, f)
		last, lastProcs = peaks, procs
	}
	slices.SortFunc(last, func(a, b peak) int { return a.pid - b.pid })
	for _, pk := range last {
		b.Logf("%6.1f MiB  %s", pk.mib, pk.cmdline)
	}
	b.Logf("at the peak of the summed PSS (MiB):   PSS   anon   file")
	for _, pr := range lastProcs {
		b.Logf("  %-40.40s %6.1f %6.1f %6.1f", pr.cmdline, pr.pss, pr.anon, pr.file)
	}
	b.ReportMetric(median(total), "core+plugins-MiB")
	b.ReportMetric(median(core), "core-MiB")
	b.ReportMetric(median(plugins), "plugins-MiB")
	b.ReportMetric(median(helpers), "helpers-MiB")
	b.ReportMetric(median(pss), "pss-MiB")
	b.ReportMetric(median(anon), "pss-anon-MiB")
	b.ReportMetric(median(file), "pss-file-MiB")
	b.ReportMetric(float64(len(last)), "processes")
}

type peak struct {
	pid     int
	cmdline string
	mib     float64
}

// sampleTree polls the process tree under root until wait returns. It keeps
// each process's highest VmHWM, and the sample with the highest sum of PSS
// (each process's PSS in it). A process is known by pid and command line:
// between fork and exec a child still shows its parent's command line and
// memory, which is not its own.
func sampleTree(root int, wait func() error) ([]peak, float64, []procPSS) {
	seen := map[string]*peak{}
	var peakPSS float64
	var atPeak []procPSS
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = wait()
	}()
	rootCmd := cmdline(root)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		var sum float64
		var procs []procPSS
		for _, pid := range descendants(root) {
			cl := cmdline(pid)
			if cl == "" || pid != root && cl == rootCmd {
				continue
			}
			st := status(pid)
			if st.hwm == 0 {
				continue
			}
			sum += st.pss
			procs = append(procs, procPSS{cmdline: cl, memStatus: st})
			key := strconv.Itoa(pid) + " " + cl
			pk := seen[key]
			if pk == nil {
				pk = &peak{pid: pid, cmdline: cl}
				seen[key] = pk
			}
			pk.mib = max(pk.mib, st.hwm)
		}
		if sum > peakPSS {
			peakPSS, atPeak = sum, procs
		}
		select {
		case <-done:
			var out []peak
			for _, pk := range seen {
				out = append(out, *pk)
			}
			return out, peakPSS, atPeak
		case <-tick.C:
		}
	}
}

// procPSS is one process of a sample.
type procPSS struct {
	cmdline string
	memStatus
}

func cmdline(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}

// descendants returns root and every process below it, from the children
// lists of all their threads (a Go program forks from any thread).
func descendants(root int) []int {
	out := []int{root}
	for i := 0; i < len(out); i++ {
		tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(out[i]) + "/task/*/children")
		for _, t := range tasks {
			b, _ := os.ReadFile(t)
			for _, f := range strings.Fields(string(b)) {
				if pid, err := strconv.Atoi(f); err == nil {
					out = append(out, pid)
				}
			}
		}
	}
	return out
}

type memStatus struct{ hwm, pss, anon, file float64 } // MiB: VmHWM, Pss, Pss_Anon, Pss_File

// status returns the peak resident set and the proportional set size of
// pid; zeros when it is gone.
func status(pid int) memStatus {
	var st memStatus
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return st
	}
	st.hwm = field(string(b), "VmHWM:")
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup"); err == nil {
		st.pss = field(string(b), "Pss:")
		st.anon, st.file = field(string(b), "Pss_Anon:"), field(string(b), "Pss_File:")
	}
	return st
}

// field returns the "NAME:  123 kB" value of a /proc file in MiB.
func field(text, name string) float64 {
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(line, name); ok {
			kib, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return float64(kib) / 1024
		}
	}
	return 0
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	t := make(timings, len(v))
	for i, x := range v {
		t[i] = time.Duration(x * 1e6)
	}
	return float64(t.p50()) / 1e6
}
