package auth

import (
	"context"
	"database/sql"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/search"
)

// Person is an account as people search shows it: no e-mail, nothing
// private.
type Person struct {
	ID          int64
	Username    string
	DisplayName string // may be empty: then Name() is the username
	Avatar      string // storage key of the avatar; empty: none
}

// Name is what to show for the person.
func (p Person) Name() string { return p.User().Name() }

// User is the person as a User, for the helpers that show one (Avatar,
// ProfileURL); its private fields are empty.
func (p Person) User() *User {
	return &User{ID: p.ID, Username: p.Username, DisplayName: p.DisplayName, Avatar: p.Avatar}
}

// People search bounds.
const (
	MaxPeopleWords = 4  // words of a query read (search.Words)
	MaxPeople      = 50 // people a page lists at most
)

// peopleIndex is the name search of users (migration 00006): name_key,
// search.Fold of the username and the display name, in id order.
func peopleIndex(dialect db.Dialect) *search.Index {
	return search.NewIndex(dialect, search.Config{Table: "users", ID: "id", Key: "name_key",
		FTS: "users_fts", Vector: "name_words", Columns: "r.id, r.username, r.display_name, r.avatar"})
}

// nameKey is what people search finds an account by.
func nameKey(username, displayName string) string { return search.Fold(username + " " + displayName) }

func scanPerson(rows *sql.Rows) (Person, error) {
	var p Person
	err := rows.Scan(&p.ID, &p.Username, &p.DisplayName, &p.Avatar)
	return p, err
}

// FindPeople lists the accounts whose username or display name has a
// word starting with each word of q (accents and case aside: "zoe" finds
// Zoë), oldest account first, after the cursor (zero: from the first), at
// most limit (1 to MaxPeople), and the cursor of the next page (zero:
// none). A query of no letters or digits finds no one. Deleted accounts
// are never found: their rows, and their words, are gone. It reads the
// replica when there is one: type-ahead tolerates a second's lag.
func (s *Store) FindPeople(ctx context.Context, q string, limit int, after db.Cursor) ([]Person, db.Cursor, error) {
	limit = max(1, min(limit, MaxPeople))
	words := search.Words(q, MaxPeopleWords)
	ps, err := search.Find(ctx, s.db, s.db.Lagging(), s.people, scanPerson,
		search.Query{Words: words, After: after.ID, Limit: limit + 1})
	if err != nil {
		return nil, db.Cursor{}, err
	}
	ps, next := db.Trim(ps, limit, func(p Person) db.Cursor { return db.Cursor{ID: p.ID} })
	return ps, next, nil
}

// FindPeople is people search for the apps (music's "find people" box,
// a mention's completion): Store.FindPeople. Anyone may search; what it
// shows is public on every profile.
func (s *Service) FindPeople(ctx context.Context, q string, limit int, after db.Cursor) ([]Person, db.Cursor, error) {
	return s.store.FindPeople(ctx, q, limit, after)
}
