package auth

import (
	"context"
	"strings"
	"testing"
)

func TestPasswordHash(t *testing.T) {
	h, err := HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Errorf("hash %q; want the PHC argon2id prefix with OWASP parameters", h)
	}
	h2, _ := HashPassword("correct horse battery")
	if h == h2 {
		t.Error("two hashes of one password are equal; want distinct salts")
	}
	cases := []struct {
		name, hash, pw string
		want           bool
	}{
		{"right", h, "correct horse battery", true},
		{"other salt, right", h2, "correct horse battery", true},
		{"wrong", h, "correct horse batterY", false},
		{"empty", h, "", false},
		{"malformed", "$argon2id$v=19$m=19456,t=2,p=1$x", "correct horse battery", false},
		{"other algorithm", "$2a$10$abcdefghijklmnopqrstuv", "x", false},
		{"huge memory refused", "$argon2id$v=19$m=99999999,t=2,p=1$c2FsdHNhbHRzYWx0$" + strings.Repeat("A", 43), "x", false},
		{"empty hash", "", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := CheckPassword(c.hash, c.pw); got != c.want {
				t.Errorf("CheckPassword = %v; want %v", got, c.want)
			}
		})
	}
}

func TestPasswordHashRespectsContext(t *testing.T) {
	// Fill every slot, then a hash must give up when its context ends.
	for i := 0; i < cap(hashSlots); i++ {
		hashSlots <- struct{}{}
	}
	defer func() {
		for i := 0; i < cap(hashSlots); i++ {
			<-hashSlots
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := hashPassword(ctx, "whatever1"); err == nil {
		t.Error("hash with every slot taken and a cancelled context: nil error; want ctx error")
	}
	if _, err := checkPassword(ctx, "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$"+strings.Repeat("A", 43), "x"); err == nil {
		t.Error("check with every slot taken and a cancelled context: nil error; want ctx error")
	}
}

// BenchmarkHashPassword is one argon2id hash at the parameters users get:
// its time bounds the logins and sign-ups a core can take a second.
func BenchmarkHashPassword(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := HashPassword("correct horse battery staple"); err != nil {
			b.Fatal(err)
		}
	}
}
