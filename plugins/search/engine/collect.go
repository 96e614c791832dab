package engine

import (
	"slices"
	"sync"
)

// collector gathers the results of all workers. It counts every match but
// keeps hits only for the files that can still be among the first
// max hits in path order, so memory stays bounded by max plus one file's
// hits whatever the number of matches, and the output does not depend on
// which worker finished first.
type collector struct {
	max      int
	mu       sync.Mutex
	total    int
	files    int
	kept     []fileHits // sorted by path
	keptHits int
	skipped  []string // files over MaxFileBytes, not searched
}

type fileHits struct {
	path string
	hits []Hit
}

func newCollector(max int) *collector { return &collector{max: max} }

// budget returns how many hits of the file at path are worth keeping: all
// up to max while the first max are not known yet or the path sorts before
// the last kept file, none otherwise.
func (c *collector) budget(path string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.keptHits < c.max || comparePaths(path, c.kept[len(c.kept)-1].path) < 0 {
		return c.max
	}
	return 0
}

// add records a file's match count and kept hits.
func (c *collector) add(path string, total int, hits []Hit) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += total
	c.files++
	if len(hits) == 0 {
		return
	}
	i, _ := slices.BinarySearchFunc(c.kept, path, func(f fileHits, p string) int { return comparePaths(f.path, p) })
	c.kept = slices.Insert(c.kept, i, fileHits{path: path, hits: hits})
	c.keptHits += len(hits)
	// Drop the last files while the others still hold max hits.
	for last := len(c.kept) - 1; last > 0 && c.keptHits-len(c.kept[last].hits) >= c.max; last-- {
		c.keptHits -= len(c.kept[last].hits)
		c.kept = c.kept[:last]
	}
}

// skip records a file that was not searched for its size.
func (c *collector) skip(path string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.skipped = append(c.skipped, path)
}

func (c *collector) result() Result {
	slices.SortFunc(c.skipped, comparePaths)
	r := Result{Total: c.total, Files: c.files, Skipped: c.skipped}
	for _, f := range c.kept {
		r.Hits = append(r.Hits, f.hits...)
	}
	if len(r.Hits) > c.max {
		r.Hits = r.Hits[:c.max]
	}
	r.Truncated = r.Total > len(r.Hits)
	return r
}

// comparePaths orders slash paths segment by segment, the order of
// rg --sort path: "a/b" sorts before "a.b" because the segment "a" sorts
// before "a.b". Comparing bytes with '/' taken as the smallest byte gives
// exactly that order.
func comparePaths(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		if x == '/' {
			return -1
		}
		if y == '/' {
			return 1
		}
		if x < y {
			return -1
		}
		return 1
	}
	return len(a) - len(b)
}
