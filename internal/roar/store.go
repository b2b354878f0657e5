package roar

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/social"
	"github.com/tutti-dev/tutti/internal/tags"
)

// Store is roar's SQL, the same statements on SQLite and PostgreSQL. Reads
// run here; writes run inside the app's group-committing Batcher (store_write.go).
type Store struct {
	db    *db.DB
	now   func() time.Time
	reads db.Querier // Timeline's and Profile's reads: db, or see Lagging and At

	// The core's social pieces over roar's tables (see doc.go), and the
	// statements that join them to roar's, built once.
	graph   *social.Graph
	notes   *social.Notifications
	likes   *social.Likes
	reports *social.Reports
	tags    *tags.Index
	trend   *tags.Trending
	sql     storeSQL
}

// storeSQL is the Store's statements that are built from the core's
// fragments.
type storeSQL struct {
	home    string // Timeline's condition for a home timeline
	tag     string // Timeline's condition for a tag timeline
	marks   string // Marks
	profile string // Profile
}

// NewStore is roar's store on d, its clock now.
func NewStore(d *db.DB, now func() time.Time) *Store {
	s := &Store{db: d, now: now, reads: d,
		graph: social.NewGraph(social.GraphTables{Follows: "roar_follows", Blocks: "roar_blocks"}, now),
		tags:  tags.NewIndex("roar_tags", "roar_id"), trend: trending(now)}
	s.likes = social.NewLikes(social.LikesConfig{Table: "roar_likes", Subject: "roar_id",
		Counter: &social.Counter{Table: "roars", Column: "likes"}, Now: now})
	s.reports = social.NewReports(social.ReportsConfig{Table: "roar_reports", Subject: "roar_id",
		Empty: "Say what is wrong with this roar.", Now: now})
	s.notes = social.NewNotifications(social.NotificationsConfig{Table: "roar_notifications", Subject: "roar_id",
		Graph: s.graph, Once: []string{"like", "repost", "follow"}, Excerpt: &social.Excerpt{Table: "roars", Column: "body"}})
	s.sql.home = "(r.author_id = ? OR r.author_id IN (" + s.graph.FolloweesSQL() + "))"
	s.sql.tag = "r.id IN (" + s.tags.FilterSQL() + ")"
	s.sql.marks = s.likes.LikedSQL("like") + `
		UNION ALL SELECT 'repost', repost_of FROM roars WHERE author_id = ? AND repost_of BETWEEN ? AND ?
		UNION ALL ` + s.graph.RelationsSQL() + `
		UNION ALL ` + s.notes.UnseenSQL("unseen")
	s.sql.profile = `SELECT u.id, u.username, u.display_name, u.avatar, u.bio, u.created_at,
			(SELECT count(*) FROM roars WHERE author_id = u.id)` + s.graph.StandingCols("u.id") + `
		FROM users u WHERE u.username_key = ?`
	return s
}

// Lagging is the store whose Timeline and Profile read from the database's
// lag-tolerant reader (a replica in cluster mode): for visitors, who have
// written nothing they would miss. Never for a read that decides.
func (s *Store) Lagging() *Store {
	c := *s
	c.reads = s.db.Lagging()
	return &c
}

// At is the store for filling a cache entry keyed by roar's version v: it
// reads from the replica only if that shows v already, so the entry holds
// everything committed up to v (a signed-in writer's own roar included).
func (s *Store) At(ctx context.Context, v int64) *Store {
	c := *s
	c.reads = s.db.AtLeast(ctx, v, "SELECT version FROM roar_meta WHERE id = 1")
	return &c
}

// trending is what is trending on roar: the uses of each hashtag in the
// core's hourly buckets, 48 of them, a use six hours old weighing half.
func trending(now func() time.Time) *tags.Trending {
	return tags.NewTrending(tags.TrendConfig{Table: "roar_tag_uses", Now: now})
}

// Trending is roar's trending, for the app's board of top tags.
func (s *Store) Trending() *tags.Trending { return s.trend }

// roarCols and roarFrom select a roar with its author, the author of the roar
// it replies to, and the original of a repost with its author: one query for
// any number of roars.
const roarCols = `r.id, u.id, u.username, u.display_name, u.avatar, r.body, COALESCE(r.reply_to, 0),
	COALESCE(pu.username, ''), r.likes, r.replies, r.reposts, r.created_at,
	COALESCE(o.id, 0), COALESCE(ou.id, 0), COALESCE(ou.username, ''), COALESCE(ou.display_name, ''),
	COALESCE(ou.avatar, ''), COALESCE(o.body, ''), COALESCE(o.reply_to, 0), COALESCE(o.likes, 0),
	COALESCE(o.replies, 0), COALESCE(o.reposts, 0), COALESCE(o.created_at, 0)`

const roarFrom = ` FROM roars r JOIN users u ON u.id = r.author_id
	LEFT JOIN roars p ON p.id = r.reply_to LEFT JOIN users pu ON pu.id = p.author_id
	LEFT JOIN roars o ON o.id = r.repost_of LEFT JOIN users ou ON ou.id = o.author_id`

func scanRoar(sc interface{ Scan(...any) error }) (Roar, error) {
	var r Roar
	var o Roar
	var created, ocreated int64
	err := sc.Scan(&r.ID, &r.Author.ID, &r.Author.Username, &r.Author.DisplayName, &r.Author.Avatar, &r.Body,
		&r.ReplyTo, &r.ReplyToUser, &r.Likes, &r.Replies, &r.Reposts, &created,
		&o.ID, &o.Author.ID, &o.Author.Username, &o.Author.DisplayName, &o.Author.Avatar, &o.Body, &o.ReplyTo,
		&o.Likes, &o.Replies, &o.Reposts, &ocreated)
	if err != nil {
		return r, err
	}
	r.CreatedAt = time.UnixMilli(created).UTC()
	if o.ID != 0 {
		o.CreatedAt = time.UnixMilli(ocreated).UTC()
		r.RepostOf = &o
	}
	return r, nil
}

// Query selects a timeline: newest first, keyset-paginated by id.
type Query struct {
	Before int64  // only roars with a smaller id (the next page)
	Since  int64  // only roars with a larger id (what is new)
	Limit  int    // at most this many (1..200)
	Author int64  // only this author's roars and reposts
	Home   int64  // the home timeline of this user: the people they follow, and their own
	Tag    string // only roars with this hashtag key
	Thread int64  // only the replies to this roar (oldest first)
}

// Timeline returns the roars q selects: one query, whatever their number.
func (s *Store) Timeline(ctx context.Context, q Query) ([]Roar, error) {
	var where []string
	var args []any
	if q.Before > 0 {
		where, args = append(where, "r.id < ?"), append(args, q.Before)
	}
	if q.Since > 0 {
		where, args = append(where, "r.id > ?"), append(args, q.Since)
	}
	if q.Author > 0 {
		where, args = append(where, "r.author_id = ?"), append(args, q.Author)
	}
	if q.Home > 0 {
		where = append(where, s.sql.home)
		args = append(args, q.Home, q.Home)
	}
	if q.Tag != "" {
		where, args = append(where, s.sql.tag), append(args, q.Tag)
	}
	order := " ORDER BY r.id DESC"
	if q.Thread > 0 {
		where, args = append(where, "r.reply_to = ?"), append(args, q.Thread)
		order = " ORDER BY r.id ASC"
	}
	if q.Since > 0 && q.Thread == 0 {
		// What is new comes oldest first, so that a client can append in order.
		order = " ORDER BY r.id ASC"
	}
	sqlq := "SELECT " + roarCols + roarFrom
	if len(where) > 0 {
		sqlq += " WHERE " + strings.Join(where, " AND ")
	}
	limit := min(max(q.Limit, 1), 201)
	sqlq += order + " LIMIT ?"
	args = append(args, limit)
	roars, err := db.All(ctx, s.db, s.reads, func(rows *sql.Rows) (Roar, error) { return scanRoar(rows) }, sqlq, args...)
	if err != nil {
		return nil, fmt.Errorf("roar: timeline: %w", err)
	}
	return roars, nil
}

func collect(rows *sql.Rows) ([]Roar, error) {
	defer rows.Close()
	var out []Roar
	for rows.Next() {
		r, err := scanRoar(rows)
		if err != nil {
			return nil, fmt.Errorf("roar: scan: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Roar returns one roar.
func (s *Store) Roar(ctx context.Context, id int64) (*Roar, error) {
	r, err := scanRoar(s.db.QueryRow(ctx, "SELECT "+roarCols+roarFrom+" WHERE r.id = ?", id))
	if err != nil {
		return nil, fmt.Errorf("roar: roar %d: %w", id, notFound(err))
	}
	return &r, nil
}

// Ancestors returns the roars that id replies to, up the thread (at most 20),
// oldest first: one recursive query.
func (s *Store) Ancestors(ctx context.Context, id int64) ([]Roar, error) {
	rows, err := s.db.Query(ctx, `WITH RECURSIVE chain(id, depth) AS (
			SELECT reply_to, 1 FROM roars WHERE id = ? AND reply_to IS NOT NULL
			UNION ALL
			SELECT x.reply_to, c.depth + 1 FROM roars x JOIN chain c ON x.id = c.id
			WHERE x.reply_to IS NOT NULL AND c.depth < 20)
		SELECT `+roarCols+roarFrom+` WHERE r.id IN (SELECT id FROM chain) ORDER BY r.id ASC`, id)
	if err != nil {
		return nil, fmt.Errorf("roar: ancestors of %d: %w", id, err)
	}
	return collect(rows)
}

// Marks is what marks roars ids for userID, in one query (one round trip
// and one snapshot, whatever the page size): which of ids it liked and
// reposted (index range scans on (user_id, roar_id) and (author_id,
// repost_of) over the range of ids, not one parameter per id), its blocks
// and mutes and who blocks it, and its unseen notifications. User is left
// for the caller.
func (s *Store) Marks(ctx context.Context, userID int64, ids []int64) (*Viewer, error) {
	v := &Viewer{Liked: map[int64]bool{}, Reposted: map[int64]bool{}, Rel: newRelations()}
	if userID == 0 {
		return v, nil
	}
	lo, hi, want := social.Span(ids)
	err := s.kinds(ctx, "marks", s.sql.marks,
		[]any{userID, lo, hi, userID, lo, hi, userID, userID, userID}, func(kind string, id int64) {
			switch kind {
			case "like": // in the range of ids, but is it one of them?
				if want[id] {
					v.Liked[id] = true
				}
			case "repost":
				if want[id] {
					v.Reposted[id] = true
				}
			case "unseen":
				v.Unseen = id
			default:
				v.Rel.Add(kind, id)
			}
		})
	if err != nil {
		return nil, err
	}
	return v, nil
}

// kinds runs q, whose rows are (kind, id), and hands each row to fn.
func (s *Store) kinds(ctx context.Context, what, q string, args []any, fn func(kind string, id int64)) error {
	rows, err := s.db.Query(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("roar: %s: %w", what, err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind string
		var id int64
		if err := rows.Scan(&kind, &id); err != nil {
			return err
		}
		fn(kind, id)
	}
	return rows.Err()
}

// Reposted returns which of ids userID has reposted: one query.
func (s *Store) Reposted(ctx context.Context, userID int64, ids []int64) (map[int64]bool, error) {
	return social.Among(ctx, s.db, "SELECT repost_of FROM roars WHERE author_id = ? AND repost_of BETWEEN ? AND ?", userID, ids)
}

// HiddenReplies counts, for each of the roars ids, its replies by the
// authors viewer does not see (relationsQuery's users), in one query;
// roars without any are left out.
func (s *Store) HiddenReplies(ctx context.Context, viewer int64, ids []int64) (map[int64]int64, error) {
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	args := make([]any, 0, len(ids)+2)
	for _, id := range ids {
		args = append(args, id)
	}
	args = append(args, viewer, viewer)
	rows, err := s.db.Query(ctx, `SELECT reply_to, count(*) FROM roars
		WHERE reply_to IN (`+strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ")+`)
		AND author_id IN (SELECT target_id FROM roar_blocks WHERE user_id = ?
			UNION SELECT user_id FROM roar_blocks WHERE target_id = ? AND kind = 'block')
		GROUP BY reply_to`, args...)
	if err != nil {
		return nil, fmt.Errorf("roar: hidden replies: %w", err)
	}
	defer rows.Close()
	out := map[int64]int64{}
	for rows.Next() {
		var id, n int64
		if err := rows.Scan(&id, &n); err != nil {
			return nil, fmt.Errorf("roar: hidden replies: %w", err)
		}
		out[id] = n
	}
	return out, rows.Err()
}

// Relations loads the viewer's blocks and mutes and who blocks the viewer.
func (s *Store) Relations(ctx context.Context, viewer int64) (*Relations, error) {
	rel, err := s.graph.Relations(ctx, s.db, viewer)
	if err != nil {
		return nil, err
	}
	return &Relations{rel}, nil
}

// Following returns the ids userID follows.
func (s *Store) Following(ctx context.Context, userID int64) (map[int64]bool, error) {
	return s.graph.Following(ctx, s.db, userID)
}

// Profile returns username's profile as viewer sees it: one query.
func (s *Store) Profile(ctx context.Context, username string, viewer int64) (*Profile, error) {
	var p Profile
	var joined int64
	var st social.Standing
	err := db.Scan(s.reads.QueryRow(ctx, s.sql.profile, append(s.graph.StandingArgs(viewer), strings.ToLower(username))...),
		append([]any{&p.ID, &p.Username, &p.DisplayName, &p.Avatar, &p.Bio, &joined, &p.Roars}, st.Dest(s.graph)...)...)
	if err != nil {
		return nil, fmt.Errorf("roar: profile %s: %w", username, err)
	}
	p.Joined = time.Unix(joined, 0).UTC()
	p.Me = viewer == p.ID
	p.Followers, p.Following = st.Followers, st.Following
	p.Follows, p.FollowsMe, p.Blocked, p.Muted, p.BlocksMe = st.Follows, st.FollowsMe, st.Blocked, st.Muted, st.BlocksMe
	return &p, nil
}

// Unseen counts userID's unseen notifications (every signed-in page asks:
// one row, no map).
func (s *Store) Unseen(ctx context.Context, userID int64) (int64, error) {
	return s.notes.Unseen(ctx, s.db, userID)
}

// UnseenOf is Unseen of each of users, in one query (a user with none is
// 0 in the map), for the badges a write changed.
func (s *Store) UnseenOf(ctx context.Context, users []int64) (map[int64]int64, error) {
	return s.notes.UnseenOf(ctx, s.db, users)
}

// Notifications returns userID's notifications, newest first, before the id
// cursor: one query.
func (s *Store) Notifications(ctx context.Context, userID, before int64, limit int) ([]Notification, error) {
	notes, err := s.notes.List(ctx, s.db, userID, before, limit)
	if err != nil {
		return nil, err
	}
	out := make([]Notification, len(notes))
	for i, n := range notes {
		out[i] = Notification{ID: n.ID, Kind: n.Kind, Seen: n.Seen, CreatedAt: n.CreatedAt, Actor: n.Actor}
		if n.Subject != 0 {
			out[i].Roar = &Roar{ID: n.Subject, Body: n.Excerpt}
		}
	}
	return out, nil
}

// Reports returns the open reports, one row per reported roar, most
// reported first, with their roars: two queries.
func (s *Store) Reports(ctx context.Context, limit int) ([]Report, error) {
	open, err := s.reports.Open(ctx, s.db, limit)
	if err != nil || len(open) == 0 {
		return nil, err
	}
	ids := make([]any, len(open))
	for i, rp := range open {
		ids[i] = rp.Subject
	}
	rrows, err := s.db.Query(ctx, "SELECT "+roarCols+roarFrom+" WHERE r.id IN ("+db.Params(len(ids))+")", ids...)
	if err != nil {
		return nil, fmt.Errorf("roar: reported roars: %w", err)
	}
	roars, err := collect(rrows)
	if err != nil {
		return nil, err
	}
	byID := map[int64]Roar{}
	for _, r := range roars {
		byID[r.ID] = r
	}
	out := make([]Report, len(open))
	for i, rp := range open {
		out[i] = Report{ID: rp.ID, Roar: byID[rp.Subject], Reporter: rp.Reporter, Reason: rp.Reason, Count: rp.Count,
			CreatedAt: rp.CreatedAt}
	}
	return out, nil
}

// Version returns the version of everything roar shows (cluster mode).
func (s *Store) Version(ctx context.Context) (int64, error) {
	var v int64
	err := db.Scan(s.db.QueryRow(ctx, "SELECT version FROM roar_meta WHERE id = 1"), &v)
	return v, err
}

func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return errs.ErrNotFound
	}
	return err
}
