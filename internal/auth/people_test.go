package auth

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

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
		// Huge queries: answered, in as many statements as a one-word
		// query (one on SQLite, two on PostgreSQL), and with what is
		// allocated bounded whatever the query's size (the words read are:
		// MaxPeopleWords of the first 4 KB), which load cannot change.
		queries := d.Queries()
		find("zoe")
		small := d.Queries() - queries
		huge := func(what, q string, want []string) {
			t.Helper()
			queries := d.Queries()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			got := find(q)
			runtime.ReadMemStats(&after)
			if !slices.Equal(got, want) {
				t.Errorf("%s: %q; want %q", what, got, want)
			}
			if n := d.Queries() - queries; n != small || n < 1 {
				t.Errorf("%s: %d statements; want %d, as for one word", what, n, small)
			}
			if b := after.TotalAlloc - before.TotalAlloc; b > 64<<10 {
				t.Errorf("%s (%d bytes): %d bytes allocated; want the work bounded (64 KB)", what, len(q), b)
			}
		}
		huge("250,000 words", strings.Repeat("zoe ", 250_000), []string{"zoe_b"})
		huge("a 1,000,000-letter word", "zoe "+strings.Repeat("x", 1_000_000), nil)
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
