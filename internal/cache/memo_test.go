package cache

import (
	"strconv"
	"testing"
	"time"
)

// TestMemoKeepsNothingAWriteRaced: a read that began before a write does
// not leave what it read in the memo; one after it does; Forget and
// ForgetAll drop entries; a nil memo (cluster mode) keeps nothing.
func TestMemoKeepsNothingAWriteRaced(t *testing.T) {
	m := NewMemo[string, int](10, time.Minute)
	g := m.Reading("a")
	m.Forget("a") // a write commits while the read is under way
	m.Keep(g, "a", 1)
	if v, ok := m.Get("a"); ok {
		t.Errorf("a read raced by a write was kept: %d", v)
	}
	g = m.Reading("a")
	m.Keep(g, "a", 2)
	m.Keep(m.Reading("b"), "b", 3)
	if v, ok := m.Get("a"); !ok || v != 2 {
		t.Errorf("a read after the write: %d %v; want 2 kept", v, ok)
	}
	m.Forget("a")
	if _, ok := m.Get("a"); ok {
		t.Error("Forget left the entry")
	}
	m.ForgetAll()
	if _, ok := m.Get("b"); ok {
		t.Error("ForgetAll left an entry")
	}
	var none *Memo[string, int]
	none.Keep(none.Reading("a"), "a", 1)
	none.Forget("a")
	if _, ok := none.Get("a"); ok {
		t.Error("a nil memo kept an entry")
	}
}

// TestMemoWriteOfAnotherKey: a write voids the reads under way of its own
// key's stripe only; in a rush some session is written every millisecond,
// and one generation for all keys kept almost nothing.
func TestMemoWriteOfAnotherKey(t *testing.T) {
	m := NewMemo[string, int](10, time.Minute)
	other := ""
	for i := 0; other == ""; i++ {
		if k := "k" + strconv.Itoa(i); m.stripe(k) != m.stripe("a") {
			other = k
		}
	}
	g := m.Reading("a")
	m.Forget(other)
	m.Keep(g, "a", 1)
	if v, ok := m.Get("a"); !ok || v != 1 {
		t.Errorf("a read raced only by another key's write: %d %v; want it kept", v, ok)
	}
	g = m.Reading("a")
	m.ForgetAll()
	m.Keep(g, "a", 2)
	if _, ok := m.Get("a"); ok {
		t.Error("a read raced by ForgetAll was kept")
	}
}
