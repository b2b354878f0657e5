package db

import "testing"

func TestIdent(t *testing.T) {
	for _, ok := range []string{"roar_likes", "t2", "_x"} {
		if got := Ident(ok); got != ok {
			t.Errorf("Ident(%q) = %q; want it unchanged", ok, got)
		}
	}
	for _, bad := range []string{"", "2t", "roar likes", "x;DROP TABLE users", "Roars", "a-b", "x\"y"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Ident(%q) did not panic", bad)
				}
			}()
			Ident(bad)
		}()
	}
}
