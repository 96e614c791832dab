package sdk

import (
	"crypto/rand"
	"encoding/binary"
	"slices"
	"sync"
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

// conversation is the messages of one request, named by its request_id.
// Its slices are never modified.
type conversation struct {
	handle string
	id     uint64
	msgs   []Message
}

// conversations is a small LRU of one conversation per handle, most
// recently used last.
type conversations []conversation

func (cs conversations) find(handle string) int {
	return slices.IndexFunc(cs, func(c conversation) bool { return c.handle == handle })
}

// put keeps c as its handle's conversation, evicting the least recently
// used one when full.
func (cs conversations) put(c conversation) conversations {
	if i := cs.find(c.handle); i >= 0 {
		cs = slices.Delete(cs, i, i+1)
	} else if len(cs) >= maxKeptConversations {
		cs = slices.Delete(cs, 0, 1)
	}
	return append(cs, c)
}

// sentConversations is the host side: for each handle that announced
// prefix reuse, the conversation of the last request sent on it.
type sentConversations struct {
	mu     sync.Mutex
	nextID uint64
	sent   conversations
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
	s.sent = s.sent.put(conversation{handle: handle})
}

// plan names a request of msgs (converted copies, never modified) on
// handle and records it as the handle's last; with whole, it reuses
// nothing. A handle that did not announce reuse, or was evicted, gets the
// zero plan: every message, nothing kept.
func (s *sentConversations) plan(handle string, msgs []Message, whole bool) prefixPlan {
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
		for n < len(prev.msgs) && n < len(msgs) && SameMessage(prev.msgs[n], msgs[n]) {
			n++
		}
		if n > 0 {
			p.of, p.reuse = prev.id, n
		}
	}
	s.sent = s.sent.put(conversation{handle: handle, id: p.id, msgs: msgs})
	return p
}

// keptConversations is the plugin side: the conversation of the last
// request on each handle that carried a request_id.
type keptConversations struct {
	mu   sync.Mutex
	kept conversations
}

// prefix returns the first n messages of the conversation kept for handle
// under id; false when it is not kept or shorter.
func (k *keptConversations) prefix(handle string, id uint64, n int) ([]Message, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	i := k.kept.find(handle)
	if i < 0 || k.kept[i].id != id || n > len(k.kept[i].msgs) {
		return nil, false
	}
	return k.kept[i].msgs[:n], true
}

// keep records msgs, which the caller no longer modifies, as handle's
// conversation under id.
func (k *keptConversations) keep(handle string, id uint64, msgs []Message) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.kept = k.kept.put(conversation{handle: handle, id: id, msgs: msgs})
}

// reset drops every kept conversation (a new adapter generation).
func (k *keptConversations) reset() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.kept = nil
}
