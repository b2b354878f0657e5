package auth

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
)

// person signs up username with display name, through the service.
func person(t testing.TB, s *Service, username, display string) *User {
	t.Helper()
	ctx := context.Background()
	u, err := s.CreateWithHash(ctx, Signup{Username: username, Email: username + "@example.com"}, "x")
	if err != nil {
		t.Fatalf("sign up %s: %v", username, err)
	}
	if display != "" {
		if _, err := s.store.updateProfile(ctx, u.ID, Profile{DisplayName: display}, nil); err != nil {
			t.Fatal(err)
		}
	}
	return u
}

func TestFindPeople(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := newTestService(t, d)
		zoe := person(t, s, "zoe_b", "Zoë Brontë")
		person(t, s, "obrien", "Conan O'Brien")
		person(t, s, "marta", "Marta Nuñez-Smith")
		person(t, s, "near_andy", `Andy "Star" NEAR`)
		person(t, s, "zed", "")
		gone := person(t, s, "zola", "Émile Zola")
		find := func(q string) []string {
			t.Helper()
			ps, next, err := s.FindPeople(ctx, q, 10, db.Cursor{})
			if err != nil {
				t.Fatalf("FindPeople(%q): %v", q, err)
			}
			if !next.IsZero() {
				t.Errorf("FindPeople(%q): a next page %v; want none", q, next)
			}
			var names []string
			for _, p := range ps {
				names = append(names, p.Username)
			}
			return names
		}
		for _, tc := range []struct {
			q    string
			want []string
		}{
			{"zoe", []string{"zoe_b"}},
			{"Zoë", []string{"zoe_b"}},
			{"ZO", []string{"zoe_b", "zola"}},
			{"bront", []string{"zoe_b"}}, // display name, accent aside
			{"zoe b", []string{"zoe_b"}}, // username's words too: zoe_b is "zoe b"
			{"z", []string{"zoe_b", "zed", "zola"}},
			{"o'brien", []string{"obrien"}},
			{"obri", []string{"obrien"}},
			{"conan obrien", []string{"obrien"}},
			{"obrien conan", []string{"obrien"}}, // any order
			{"brien", nil},                       // a word's start, not its middle
			{"conan zoe", nil},
			{"nunez", []string{"marta"}},
			{"smi mar", []string{"marta"}},
			{`"`, nil},
			{`*`, nil},
			{`-`, nil},
			{`"star"`, []string{"near_andy"}},
			{`st*`, []string{"near_andy"}},
			{`-smith`, []string{"marta"}}, // no NOT
			{"NEAR", []string{"near_andy"}},
			{"AND", []string{"near_andy"}}, // andy: a word's start, not an operator
			{"zoe AND nobody", nil},
			{"", nil},
			{"   ", nil},
			{"xq", nil},
		} {
			if got := find(tc.q); !slices.Equal(got, tc.want) {
				t.Errorf("FindPeople(%q) = %q; want %q", tc.q, got, tc.want)
			}
		}
		// What a person shows: no e-mail; the name as chosen.
		ps, _, err := s.FindPeople(ctx, "bronte", 10, db.Cursor{})
		if err != nil || len(ps) != 1 || ps[0] != (Person{ID: zoe.ID, Username: "zoe_b", DisplayName: "Zoë Brontë"}) || ps[0].Name() != "Zoë Brontë" {
			t.Errorf("bronte: %+v, %v", ps, err)
		}
		// A display name changed: found by the new one only.
		if _, err := s.store.updateProfile(ctx, zoe.ID, Profile{DisplayName: "Zoé Quill"}, nil); err != nil {
			t.Fatal(err)
		}
		if got := find("bront"); got != nil {
			t.Errorf("the old display name: %q; want nobody", got)
		}
		if got := find("quil"); !slices.Equal(got, []string{"zoe_b"}) {
			t.Errorf("the new display name: %q", got)
		}
		// 1,000 words: bounded, and answered.
		long := strings.Repeat("zoe ", 1000)
		start := time.Now()
		if got := find(long); !slices.Equal(got, []string{"zoe_b"}) {
			t.Errorf("1,000 words: %q", got)
		}
		if got := find("zoe " + strings.Repeat("x", 10_000)); got != nil {
			t.Errorf("a 10,000-letter word: %q; want nobody", got)
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("two huge queries took %v", took)
		}
		// A deleted account is never found.
		if err := s.Delete(ctx, gone.ID); err != nil {
			t.Fatal(err)
		}
		if got := find("zola"); got != nil {
			t.Errorf("a deleted account: %q; want nobody", got)
		}
		if got := find("z"); !slices.Equal(got, []string{"zoe_b", "zed"}) {
			t.Errorf("z after a delete: %q", got)
		}
	}, Migrations)
}

func TestFindPeoplePages(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := newTestService(t, d)
		var want []string
		for i := range 7 {
			u := person(t, s, fmt.Sprintf("runner%d", i), fmt.Sprintf("Élise Runner %d", i))
			want = append(want, u.Username)
			person(t, s, fmt.Sprintf("walker%d", i), "")
		}
		var got []string
		var after db.Cursor
		for pages := 0; ; pages++ {
			if pages > 7 {
				t.Fatal("pages never end")
			}
			ps, next, err := s.FindPeople(ctx, "elise run", 3, after)
			if err != nil {
				t.Fatal(err)
			}
			if len(ps) > 3 {
				t.Fatalf("page of %d; want at most 3", len(ps))
			}
			for _, p := range ps {
				got = append(got, p.Username)
			}
			if next.IsZero() {
				break
			}
			after = db.ParseCursor(next.String()) // as a link carries it
		}
		if !slices.Equal(got, want) {
			t.Errorf("pages: %q; want %q", got, want)
		}
		// The limit is bounded.
		if ps, _, err := s.FindPeople(ctx, "r", 1000, db.Cursor{}); err != nil || len(ps) != 7 {
			t.Errorf("limit 1000: %d people, %v; want 7", len(ps), err)
		}
		if ps, next, err := s.FindPeople(ctx, "r", 0, db.Cursor{}); err != nil || len(ps) != 1 || next.IsZero() {
			t.Errorf("limit 0: %d people, next %v, %v; want 1 and a next page", len(ps), next, err)
		}
	}, Migrations)
}
