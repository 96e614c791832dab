package sdk

import (
	"fmt"
	"slices"
	"testing"
)

// FuzzKeptConversations drives the plugin side of reuse_prefix with any
// sequence of requests (handles past the bound, right and wrong ids,
// prefixes longer than kept, requests kept or not) against a model of the
// rule: each is refused exactly when its prefix is not kept, else yields
// the kept prefix and its own messages; and no conversation handed out
// ever changes afterwards, whatever later requests grow in place.
func FuzzKeptConversations(f *testing.F) {
	f.Add([]byte{0, 0, 1, 1, 0, 2, 1, 1, 0, 3, 1, 2})
	f.Add([]byte{5, 0, 1, 2, 5, 3, 1, 1, 5, 3, 1, 1, 5, 9, 0, 1})
	f.Add(slices.Repeat([]byte{1, 0, 1, 1, 2, 0, 1, 1, 3, 0, 1, 1, 4, 0, 1, 1, 17, 0, 1, 1}, 4))
	f.Fuzz(func(t *testing.T, ops []byte) {
		type kept struct {
			id   uint64
			msgs []string
		}
		var (
			k       keptConversations
			model   []string // handles, least recently kept first
			byName  = map[string]kept{}
			handed  [][]Message // every conversation returned
			wants   [][]string  // what each held when returned
			nextID  uint64      = 1
			counter int
		)
		for len(ops) >= 4 {
			op := ops[:4]
			ops = ops[4:]
			handle := fmt.Sprint("h", op[0]%20)
			prev, isKept := byName[handle]
			of := prev.id
			if op[1]%4 == 3 {
				of += 1 + uint64(op[1]) // a conversation this handle does not keep
			}
			n := int(op[1] % 8)
			if op[1]%5 == 4 {
				n = len(prev.msgs) // the whole kept conversation: grown in place
			}
			id := uint64(0)
			if op[2]%4 != 0 {
				id, nextID = nextID, nextID+1
			}
			var tail []Message
			var tailText []string
			for range op[3] % 3 {
				counter++
				text := fmt.Sprint("m", counter)
				tail, tailText = append(tail, Message{Role: RoleUser, Content: text}), append(tailText, text)
			}
			got, ok := k.extend(handle, of, n, id, tail)
			wantOK := n == 0 || isKept && prev.id == of && n <= len(prev.msgs)
			if ok != wantOK {
				t.Fatalf("request on %s naming %d with %d reused: ok %v, want %v (kept %d of %d)", handle, of, n, ok, wantOK, len(prev.msgs), prev.id)
			}
			if !ok {
				continue
			}
			var want []string
			if n > 0 {
				want = slices.Clone(prev.msgs[:n])
			}
			want = append(want, tailText...)
			if !sameTexts(got, want) {
				t.Fatalf("request on %s: got %v, want %v", handle, texts(got), want)
			}
			handed, wants = append(handed, got), append(wants, want)
			if id != 0 {
				model = slices.DeleteFunc(model, func(h string) bool { return h == handle })
				if len(model) >= maxKeptConversations {
					delete(byName, model[0])
					model = model[1:]
				}
				model = append(model, handle)
				byName[handle] = kept{id: id, msgs: want}
			}
			for i, h := range handed {
				if !sameTexts(h, wants[i]) {
					t.Fatalf("conversation %d changed after it was handed out: %v, was %v", i, texts(h), wants[i])
				}
			}
		}
	})
}

func texts(msgs []Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Content
	}
	return out
}

func sameTexts(msgs []Message, want []string) bool { return slices.Equal(texts(msgs), want) }
