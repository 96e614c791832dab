package bench

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkQuickstartRSS runs the offline quickstart (harness run
// examples/quickstart/agent.hcl) in a copy of it and samples the memory of
// the harness process tree every millisecond: the peak resident set
// (VmHWM) of harness itself and of each plugin process, summed. The sum of
// peaks is an upper bound of the peak of the sum, and it counts the pages
// of the harness binary that the processes share once per process. The
// commands the terminal tool runs (wc, ls) are reported apart. Wall time is
// hyperfine's business (bench/run.sh): the sampling costs CPU.
func BenchmarkQuickstartRSS(b *testing.B) {
	dir := b.TempDir()
	copyTree(b, "../examples/quickstart", dir)
	var total, core, plugins, commands []float64
	var procs int
	// A b.Loop loop here makes Go 1.26.8's escape analysis crash (internal
	// compiler error); the benchmark runs a fixed count (-benchtime Nx) anyway.
	for range b.N {
		cmd := exec.Command(harnessBin, "run", "--no-input", "agent.hcl", "Summarize the open TODOs")
		cmd.Dir = dir
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		peaks := sampleTree(cmd.Process.Pid, func() error { return cmd.Wait() })
		var c, p, x float64
		for _, pk := range peaks {
			switch {
			case pk.pid == cmd.Process.Pid:
				c += pk.mib
			case strings.Contains(pk.cmdline, "plugin serve"):
				p += pk.mib
			default:
				x += pk.mib
			}
		}
		if c == 0 || p == 0 {
			b.Fatalf("sampled no harness or no plugin: %+v", peaks)
		}
		total, core, plugins, commands = append(total, c+p), append(core, c), append(plugins, p), append(commands, x)
		procs = len(peaks)
	}
	b.ReportMetric(median(total), "core+plugins-MiB")
	b.ReportMetric(median(core), "core-MiB")
	b.ReportMetric(median(plugins), "plugins-MiB")
	b.ReportMetric(median(commands), "commands-MiB")
	b.ReportMetric(float64(procs), "processes")
}

type peak struct {
	pid     int
	cmdline string
	mib     float64
}

// sampleTree polls the process tree under root until wait returns and keeps
// each process's highest VmHWM.
func sampleTree(root int, wait func() error) []peak {
	seen := map[int]*peak{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = wait()
	}()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		for _, pid := range descendants(root) {
			kib := vmHWM(pid)
			if kib == 0 {
				continue
			}
			pk := seen[pid]
			if pk == nil {
				cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
				pk = &peak{pid: pid, cmdline: strings.ReplaceAll(string(cmdline), "\x00", " ")}
				seen[pid] = pk
			}
			pk.mib = max(pk.mib, float64(kib)/1024)
		}
		select {
		case <-done:
			var out []peak
			for _, pk := range seen {
				out = append(out, *pk)
			}
			return out
		case <-tick.C:
		}
	}
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

// vmHWM returns the peak resident set of pid in KiB, 0 when it is gone.
func vmHWM(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return kib
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

// copyTree copies src to dst, leaving out a previous run's store and output.
func copyTree(b *testing.B, src, dst string) {
	b.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			if d.Name() == ".harness" || d.Name() == "out" {
				return filepath.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		b.Fatal(err)
	}
}
