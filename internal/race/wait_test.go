package race

import "testing"

// The waiting page checks again after 10 s, 20 s, 40 s, then every minute
// (its Refresh header and its text both say waitDelay(n)).
func TestWaitPageBacksOff(t *testing.T) {
	want := []int{10, 20, 40, 60, 60, 60}
	for n, w := range want {
		if got := waitDelay(n); got != w {
			t.Errorf("waitDelay(%d) = %d; want %d", n, got, w)
		}
	}
	if got := waitDelay(-3); got != 10 {
		t.Errorf("waitDelay(-3) = %d; want 10", got)
	}
}
