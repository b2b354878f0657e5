package auth

import (
	"strconv"
	"testing"
	"time"
)

// TestMemoKeepsNothingAWriteRaced: a read that began before a write does
// not leave what it read in the memo; one after it does; forget and
// forgetAll drop entries; a nil memo (cluster mode) keeps nothing.
func TestMemoKeepsNothingAWriteRaced(t *testing.T) {
	m := newMemo[string, int](10, time.Minute)
	g := m.reading("a")
	m.forget("a") // a write commits while the read is under way
	m.keep(g, "a", 1)
	if v, ok := m.get("a"); ok {
		t.Errorf("a read raced by a write was kept: %d", v)
	}
	g = m.reading("a")
	m.keep(g, "a", 2)
	m.keep(m.reading("b"), "b", 3)
	if v, ok := m.get("a"); !ok || v != 2 {
		t.Errorf("a read after the write: %d %v; want 2 kept", v, ok)
	}
	m.forget("a")
	if _, ok := m.get("a"); ok {
		t.Error("forget left the entry")
	}
	m.forgetAll()
	if _, ok := m.get("b"); ok {
		t.Error("forgetAll left an entry")
	}
	var none *memo[string, int]
	none.keep(none.reading("a"), "a", 1)
	none.forget("a")
	if _, ok := none.get("a"); ok {
		t.Error("a nil memo kept an entry")
	}
}

// TestMemoWriteOfAnotherKey: a write voids the reads under way of its own
// key's stripe only; in a rush some session is written every millisecond,
// and one generation for all keys kept almost nothing.
func TestMemoWriteOfAnotherKey(t *testing.T) {
	m := newMemo[string, int](10, time.Minute)
	other := ""
	for i := 0; other == ""; i++ {
		if k := "k" + strconv.Itoa(i); m.stripe(k) != m.stripe("a") {
			other = k
		}
	}
	g := m.reading("a")
	m.forget(other)
	m.keep(g, "a", 1)
	if v, ok := m.get("a"); !ok || v != 1 {
		t.Errorf("a read raced only by another key's write: %d %v; want it kept", v, ok)
	}
	g = m.reading("a")
	m.forgetAll()
	m.keep(g, "a", 2)
	if _, ok := m.get("a"); ok {
		t.Error("a read raced by forgetAll was kept")
	}
}
