package roar

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/load"
	"github.com/tutti-dev/tutti/internal/tags"
)

// SeedSize is the size of the load-test data set.
type SeedSize struct {
	Users, Roars, Likes, Follows int
}

// SeedDefault is the data set of the load scenarios: a thousand users, twenty
// thousand roars (a fifth of them replies), fifty thousand likes and twenty
// follows per user.
var SeedDefault = SeedSize{Users: 1000, Roars: 20000, Likes: 50000, Follows: 20000}

// SeedPassword is every seeded user's password unless told otherwise.
const SeedPassword = "roar-load-test"

// SeedIDs is what the load test needs to find the seeded data.
type SeedIDs struct {
	Password string   `json:"password"`
	Users    []string `json:"users"` // usernames
	Roars    []int64  `json:"roars"` // ids, oldest first
}

// Seed bulk-inserts a data set of the given size (users, roars with replies,
// hashtags and mentions, likes, follows) and writes what the load test needs
// to idsPath. Every user has the same password, hashed once. Progress goes to
// progress (nil: silent). Run it while no tutti serves the database: a
// running instance keeps its cache version in memory.
func Seed(ctx context.Context, d *db.DB, size SeedSize, password, idsPath string, progress io.Writer, seed uint64) (*SeedIDs, error) {
	if size.Users < 2 || size.Roars < 1 || size.Likes < 0 || size.Follows < 0 {
		return nil, fmt.Errorf("roar: seed: need at least two users and one roar")
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x2545f4914f6cdd1d))
	total := size.Users + size.Roars + size.Likes + size.Follows
	bar := load.NewSeedProgress(progress, "roar", total)
	step := bar.Step
	var roarBase int64
	if err := db.Scan(d.QueryRow(ctx, `SELECT COALESCE(MAX(id), 0) FROM roars`), &roarBase); err != nil {
		return nil, fmt.Errorf("roar: seed: %w", err)
	}
	now := time.Now()
	ids := &SeedIDs{Password: password}
	userIDs, names, err := auth.SeedUsers(ctx, d, size.Users, password, now, step)
	if err != nil {
		return nil, fmt.Errorf("roar: seed: %w", err)
	}
	ids.Users = names
	var rows [][]any
	user := func() int64 { return userIDs[rng.IntN(len(userIDs))] }

	// Roars, oldest first over the last 30 days; counters computed here.
	type seeded struct {
		author, replyTo, created int64
		body                     string
		likes, replies           int64
	}
	roars := make([]seeded, size.Roars)
	span := (30 * 24 * time.Hour).Milliseconds()
	first := now.UnixMilli() - span
	for i := range roars {
		r := &roars[i]
		r.author = user()
		r.created = first + span*int64(i)/int64(size.Roars)
		var b strings.Builder
		if i > 10 && rng.IntN(5) == 0 { // a reply to a recent roar
			p := i - 1 - rng.IntN(min(i, 500))
			r.replyTo = roarBase + int64(p) + 1
			roars[p].replies++
		}
		for n := 6 + rng.IntN(16); n > 0; n-- {
			b.WriteString(seedWords[rng.IntN(len(seedWords))])
			b.WriteByte(' ')
		}
		if rng.IntN(10) == 0 {
			fmt.Fprintf(&b, "@seed%d ", user())
		}
		if rng.IntN(3) == 0 {
			b.WriteString("#" + seedTags[rng.IntN(len(seedTags))])
		}
		r.body = strings.TrimSpace(b.String())
	}
	// Likes: distinct (roar, user) pairs, most on recent roars.
	type pair struct{ a, b int64 }
	likes := make(map[pair]bool, size.Likes)
	for tries := 0; len(likes) < size.Likes && tries < 4*size.Likes; tries++ {
		i := size.Roars - 1 - int(float64(size.Roars)*rng.Float64()*rng.Float64())
		p := pair{roarBase + int64(i) + 1, user()}
		if !likes[p] {
			likes[p] = true
			roars[i].likes++
		}
	}
	rows = rows[:0]
	var tagRows [][]any
	trend := trending(func() time.Time { return now }).Tally()
	for i := range roars {
		r := &roars[i]
		id := roarBase + int64(i) + 1
		ids.Roars = append(ids.Roars, id)
		var replyTo any
		if r.replyTo != 0 {
			replyTo = r.replyTo
		}
		rows = append(rows, []any{id, r.author, r.body, replyTo, r.likes, r.replies, r.created})
		tl := tags.Tags(r.body)
		for _, t := range tl {
			tagRows = append(tagRows, []any{t, id})
		}
		trend.Use(tl, time.UnixMilli(r.created))
	}
	if err := d.CopyChunks(ctx, "roars", []string{"id", "author_id", "body", "reply_to", "likes", "replies", "created_at"}, rows, step); err != nil {
		return nil, err
	}
	if err := d.CopyChunks(ctx, "roar_tags", []string{"tag", "roar_id"}, tagRows, func(int) {}); err != nil {
		return nil, err
	}
	if err := trend.Save(ctx, d); err != nil {
		return nil, err
	}
	rows = rows[:0]
	for p := range likes {
		rows = append(rows, []any{p.a, p.b, now.UnixMilli()})
	}
	if err := d.CopyChunks(ctx, "roar_likes", []string{"roar_id", "user_id", "created_at"}, rows, step); err != nil {
		return nil, err
	}
	step(size.Likes - len(likes))
	// Follows: distinct pairs, nobody follows themselves.
	follows := make(map[pair]bool, size.Follows)
	rows = rows[:0]
	for tries := 0; len(follows) < size.Follows && tries < 4*size.Follows; tries++ {
		p := pair{user(), user()}
		if p.a != p.b && !follows[p] {
			follows[p] = true
			rows = append(rows, []any{p.a, p.b, now.UnixMilli()})
		}
	}
	if err := d.CopyChunks(ctx, "roar_follows", []string{"follower_id", "followee_id", "created_at"}, rows, step); err != nil {
		return nil, err
	}
	step(size.Follows - len(follows))

	if err := d.ResetSequences(ctx, "users", "roars"); err != nil {
		return nil, fmt.Errorf("roar: seed: %w", err)
	}
	// The timelines changed: a new version, so that no cache keyed by the
	// old one is served (the app reads it when it starts).
	if _, err := d.SQL().ExecContext(ctx, `UPDATE roar_meta SET version = version + 1 WHERE id = 1`); err != nil {
		return nil, fmt.Errorf("roar: seed: version: %w", err)
	}
	if err := bar.Done(idsPath, ids); err != nil {
		return nil, err
	}
	return ids, nil
}

// LoadSeedIDs reads the ids written by Seed.
func LoadSeedIDs(path string) (*SeedIDs, error) {
	var ids SeedIDs
	if err := load.ReadSeedFile(path, "roar", &ids); err != nil {
		return nil, err
	}
	if len(ids.Users) == 0 || len(ids.Roars) == 0 || ids.Password == "" {
		return nil, fmt.Errorf("roar: seed ids %s: empty", path)
	}
	return &ids, nil
}

var seedWords = strings.Fields(`the a morning coffee train late again rain sun city music band gig tonight
	new song album listening reading book code shipped bug fixed deploy friday weekend park run bike
	dinner friends family cat dog walk river bridge market bread cheese tea garden spring autumn winter
	summer light dark quiet loud happy tired busy finally almost never always maybe really great small big`)

var seedTags = strings.Fields(`music coffee golang sqlite postgres rain weekend books cats dogs running
	cycling jazz vinyl gigs bread garden trains photography cooking travel`)
