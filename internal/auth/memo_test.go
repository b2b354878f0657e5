package auth

import "testing"

// TestMemoKeepsNothingAWriteRaced: a read that began before a write does
// not leave what it read in the memo; one after it does; forget and
// forgetAll drop entries; a nil memo (cluster mode) keeps nothing.
func TestMemoKeepsNothingAWriteRaced(t *testing.T) {
	m := newMemo[string, int](10)
	g := m.reading()
	m.forget("a") // a write commits while the read is under way
	m.keep(g, "a", 1)
	if v, ok := m.get("a"); ok {
		t.Errorf("a read raced by a write was kept: %d", v)
	}
	g = m.reading()
	m.keep(g, "a", 2)
	m.keep(g, "b", 3)
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
	none.keep(none.reading(), "a", 1)
	none.forget("a")
	if _, ok := none.get("a"); ok {
		t.Error("a nil memo kept an entry")
	}
}
