package tools

import (
	"fmt"
	"sync"
	"unicode/utf8"
)

// DefaultProgressStoreBytes bounds the tool.progress output one call
// records: a command that prints 300 MB leaves its first and last half MiB
// in the store, not 300 MB. The model's view is the tool's own result.
const DefaultProgressStoreBytes = 1 << 20

// progressKeeper records a call's progress while it fits the head half of
// the budget, then keeps only the newest tail half in memory; flush records
// that tail after a note saying exactly how many bytes were not kept.
type progressKeeper struct {
	mu       sync.Mutex
	headLeft int // bytes the head may still record
	tailCap  int // bytes of tail kept
	tail     []chunk
	tailLen  int   // bytes in tail
	dropped  int64 // bytes neither recorded in the head nor kept in the tail
	none     bool  // the budget is 0
}

type chunk struct{ stream, text string }

func newProgressKeeper(budget int64) *progressKeeper {
	return &progressKeeper{headLeft: int(budget - budget/2), tailCap: int(budget / 2), none: budget <= 0}
}

// add returns what of a chunk to record now; the rest goes to the tail.
func (k *progressKeeper) add(stream, text string) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.none {
		return "" // a budget of none: no progress is kept, and no note
	}
	if k.tail == nil && len(text) <= k.headLeft {
		k.headLeft -= len(text)
		return text
	}
	now := ""
	if k.tail == nil {
		cut := runeBoundary(text, k.headLeft)
		now, text = text[:cut], text[cut:]
		k.headLeft = 0
	}
	k.tail = append(k.tail, chunk{stream, text})
	k.tailLen += len(text)
	for k.tailLen > k.tailCap && len(k.tail) > 0 {
		over := k.tailLen - k.tailCap
		first := &k.tail[0]
		if over >= len(first.text) {
			k.dropped += int64(len(first.text))
			k.tailLen -= len(first.text)
			k.tail = k.tail[1:]
			continue
		}
		cut := runeBoundaryUp(first.text, over)
		k.dropped += int64(cut)
		k.tailLen -= cut
		first.text = first.text[cut:]
	}
	return now
}

// flush returns the progress events still to record: a note when bytes
// were dropped, then the tail.
func (k *progressKeeper) flush() []chunk {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []chunk
	if k.dropped > 0 {
		stream := "stdout"
		if len(k.tail) > 0 {
			stream = k.tail[0].stream
		}
		out = append(out, chunk{stream, fmt.Sprintf("\n[… %d bytes of output not kept in the session store (permissions.terminal_store_bytes) …]\n", k.dropped)})
	}
	for _, c := range k.tail {
		if c.text != "" {
			out = append(out, c)
		}
	}
	k.tail, k.tailLen, k.dropped = nil, 0, 0
	return out
}

// runeBoundary moves i back to the start of the rune it falls in.
func runeBoundary(s string, i int) int {
	i = min(i, len(s))
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// runeBoundaryUp moves i forward to the start of the next rune.
func runeBoundaryUp(s string, i int) int {
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}
