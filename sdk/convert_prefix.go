package sdk

import (
	"crypto/rand"
	"encoding/binary"
	"slices"
	"sync"

	"github.com/harness-agent/harness/sdk/proto/providerv1"
)

// Prefix reuse (Stream.Request.reuse_prefix, docs/protocol.md): on a
// handle whose PrepareCall announced it, the host names each request with
// a request_id, the plugin keeps that request's whole conversation under
// it, and the next request on the handle sends only the messages after
// the prefix it shares with the kept one, naming it by id and length. The
// host knows what the plugin keeps because it is what the host sent; the
// id rules out any other conversation (a request that never arrived, one
// sent concurrently, a restarted plugin), and a plugin that does not hold
// the named one refuses the request, which the host sends again whole.

// kindPrefixUnknown is the error kind of a request whose reused prefix the
// plugin does not hold. It never leaves the SDK: the host resends the
// request with every message.
const kindPrefixUnknown ErrorKind = "prefix_unknown"

// maxKeptConversations bounds the conversations kept, on either side: one
// per handle, for this many handles (the least recently used goes first).
const maxKeptConversations = 16

// conversation is what one side keeps of the request named id on a
// handle; its slices are never modified below their length.
type conversation[T any] struct {
	handle string
	id     uint64
	msgs   []T
}

// conversations is a small LRU of one conversation per handle, most
// recently used last.
type conversations[T any] []conversation[T]

func (cs conversations[T]) find(handle string) int {
	return slices.IndexFunc(cs, func(c conversation[T]) bool { return c.handle == handle })
}

// put keeps c as its handle's conversation, evicting the least recently
// used one when full.
func (cs conversations[T]) put(c conversation[T]) conversations[T] {
	if i := cs.find(c.handle); i >= 0 {
		cs = slices.Delete(cs, i, i+1)
	} else if len(cs) >= maxKeptConversations {
		cs = slices.Delete(cs, 0, 1)
	}
	return append(cs, c)
}

// sentConversations is the host side: for each handle that announced
// prefix reuse, the converted messages of the last request sent on it.
// The converted messages of the host's cache are never modified, and a
// changed message is converted anew, so a message sent at the same
// position as the same pointer is the same message.
type sentConversations struct {
	mu     sync.Mutex
	nextID uint64
	sent   conversations[*providerv1.Message]
}

// prefixPlan is how one request goes out: named id (0: not kept), its
// first reuse messages those of the request named of.
type prefixPlan struct {
	id, of uint64
	reuse  int
}

// announce records that the plugin keeps conversations for handle.
func (s *sentConversations) announce(handle string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent = s.sent.put(conversation[*providerv1.Message]{handle: handle})
}

// plan names a request of pms (the cache's converted messages) on handle
// and records it as the handle's last; with whole, it reuses nothing. A
// handle that did not announce reuse, or was evicted, gets the zero plan:
// every message, nothing kept.
func (s *sentConversations) plan(handle string, pms []*providerv1.Message, whole bool) prefixPlan {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.sent.find(handle)
	if i < 0 {
		return prefixPlan{}
	}
	prev := s.sent[i]
	if s.nextID == 0 {
		var b [8]byte
		_, _ = rand.Read(b[:])
		s.nextID = binary.LittleEndian.Uint64(b[:])>>1 | 1
	}
	p := prefixPlan{id: s.nextID}
	s.nextID++
	if !whole && prev.id != 0 {
		n := 0
		for n < len(prev.msgs) && n < len(pms) && prev.msgs[n] == pms[n] {
			n++
		}
		if n > 0 {
			p.of, p.reuse = prev.id, n
		}
	}
	s.sent = s.sent.put(conversation[*providerv1.Message]{handle: handle, id: p.id, msgs: pms})
	return p
}

// keptConversations is the plugin side: the conversation of the last
// request on each handle that carried a request_id.
type keptConversations struct {
	mu   sync.Mutex
	kept conversations[Message]
}

// extend returns the conversation of a request on handle: the first n
// messages of the one kept under of (none when n is 0), then tail; false
// when that is not kept or shorter. With id not 0 the result is kept under
// id. The result is shared with what is kept: the caller must not modify
// it. A conversation that only grows is extended in place, so a turn
// copies its new messages, not the conversation.
func (k *keptConversations) extend(handle string, of uint64, n int, id uint64, tail []Message) ([]Message, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	var msgs []Message
	if n > 0 {
		i := k.kept.find(handle)
		if i < 0 || k.kept[i].id != of || n > len(k.kept[i].msgs) {
			return nil, false
		}
		prev := k.kept[i]
		if id != 0 && n == len(prev.msgs) {
			// Grown in place: nothing reads past prev's length, and prev
			// is replaced below, so no other request can grow it. (Only
			// the handle's live conversation owns its array's capacity.)
			msgs = append(prev.msgs, tail...)
		} else {
			// Room to grow, as append leaves: the next turns grow in place.
			msgs = make([]Message, 0, 2*(n+len(tail)))
			msgs = append(append(msgs, prev.msgs[:n]...), tail...)
		}
	} else {
		msgs = tail
	}
	if id != 0 {
		k.kept = k.kept.put(conversation[Message]{handle: handle, id: id, msgs: msgs})
	}
	return msgs, true
}

// reset drops every kept conversation (a new adapter generation).
func (k *keptConversations) reset() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.kept = nil
}
