package music

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/social"
	"github.com/tutti-dev/tutti/internal/tags"
)

// Store is music's SQL, the same statements on SQLite and PostgreSQL. Reads
// are here; writes (store_write.go) take the Service's transaction.
type Store struct {
	db  *db.DB
	now func() time.Time

	// The core's social pieces over music's tables (doc.go).
	graph   *social.Graph
	notes   *social.Notifications
	likes   *social.Likes
	reports *social.Reports
	tags    *tags.Index
	trend   *tags.Trending
	sql     storeSQL
}

// storeSQL is the statements built once from the core's fragments.
type storeSQL struct {
	visibleUser string // a post the viewer may see (parameters: viewer three times, then HiddenArgs)
	discovery   string // the viewer's friends' posts and the viewer's own (parameters: viewer twice)
	tag         string // the posts of a tag (parameter: the tag)
	profile     string // a person with the viewer's standing
	unseen      string
}

// NewStore is music's store on d, its clock now.
func NewStore(d *db.DB, now func() time.Time) *Store {
	s := &Store{db: d, now: now,
		graph: social.NewGraph(social.GraphTables{Blocks: "music_blocks", Friends: "music_friends",
			Requests: "music_friend_requests"}, now),
		tags:  tags.NewIndex("music_tags", "post_id"),
		trend: tags.NewTrending(tags.TrendConfig{Table: "music_tag_uses", Now: now}),
	}
	s.likes = social.NewLikes(social.LikesConfig{Table: "music_likes", Subject: "post_id",
		Counter: &social.Counter{Table: "music_posts", Column: "likes"}, Now: now})
	s.reports = social.NewReports(social.ReportsConfig{Table: "music_reports", Subject: "post_id",
		Empty: "Say what is wrong with this post.", Now: now})
	s.notes = social.NewNotifications(social.NotificationsConfig{Table: "music_notifications", Subject: "post_id",
		Graph: s.graph, Once: []string{"like", "repost", "friend_request", "friend_accept"},
		Excerpt: &social.Excerpt{Table: "music_posts", Column: "comment"}})
	friends := s.graph.FriendsSQL()
	// A viewer sees the public posts, their own, and their friends'; never
	// those of whom they muted or blocked, or who blocked them.
	// An audio still being processed is its author's only.
	s.sql.visibleUser = "(p.ready = 1 OR p.author_id = ?) AND " +
		"(p.visibility = 'public' OR p.author_id = ? OR p.author_id IN (" + friends + ")) AND " +
		s.graph.HiddenSQL("p.author_id")
	// The discovery page's ids first, from the indexes alone (a partial
	// index of ready posts by author, music 00004): a hub with 1,000
	// friends and 100,000 of their posts costs a walk of index entries,
	// not a sort of 100,000 whole rows; then the page's rows by id.
	// Parameters: the viewer twice, the hidden's, [before,] the limit.
	s.sql.discovery = "p.id IN (SELECT d.id FROM music_posts d WHERE (d.author_id = ? OR (d.ready = 1 AND d.author_id IN (" +
		friends + "))) AND " + s.graph.HiddenSQL("d.author_id") + "%s ORDER BY d.id DESC LIMIT ?)"
	s.sql.tag = "p.id IN (" + s.tags.FilterSQL() + ")"
	s.sql.profile = `SELECT u.id, u.username, u.display_name, u.avatar, u.bio` + s.graph.StandingCols("u.id") + `
		FROM users u WHERE u.username_key = ?`
	return s
}

// Graph is music's graph of friends, blocks and mutes.
func (s *Store) Graph() *social.Graph { return s.graph }

// Trending is music's trending hashtags (public posts only), for the board.
func (s *Store) Trending() *tags.Trending { return s.trend }

// Version is music_meta's version, which keys visitors' cached pages.
func (s *Store) Version(ctx context.Context) (int64, error) {
	var v int64
	err := db.Scan(s.db.QueryRow(ctx, "SELECT version FROM music_meta WHERE id = 1"), &v)
	return v, err
}

// postCols and postFrom select a post with its author, the original of a
// repost with its author, and whether the viewer (the first parameter)
// likes the target: one query for any number of posts.
const postCols = `p.id, u.id, u.username, u.display_name, u.avatar, p.kind, p.url, p.comment, p.visibility,
	COALESCE(p.media_id, 0), p.comments_off, p.likes, p.comments, p.reposts, p.created_at, p.changed_at,
	COALESCE(o.id, 0), COALESCE(ou.id, 0), COALESCE(ou.username, ''), COALESCE(ou.display_name, ''), COALESCE(ou.avatar, ''),
	COALESCE(o.kind, ''), COALESCE(o.url, ''), COALESCE(o.comment, ''), COALESCE(o.visibility, ''), COALESCE(o.media_id, 0),
	COALESCE(o.comments_off, 0), COALESCE(o.likes, 0), COALESCE(o.comments, 0), COALESCE(o.reposts, 0),
	COALESCE(o.created_at, 0), COALESCE(o.changed_at, 0),
	p.duration_ms, p.peaks, p.plays, p.ready, p.failed, COALESCE(o.duration_ms, 0), o.peaks, COALESCE(o.plays, 0), COALESCE(o.ready, 1),
	EXISTS (SELECT 1 FROM music_likes l WHERE l.post_id = COALESCE(o.id, p.id) AND l.user_id = ?)`

const postFrom = ` FROM music_posts p JOIN users u ON u.id = p.author_id
	LEFT JOIN music_posts o ON o.id = p.repost_of LEFT JOIN users ou ON ou.id = o.author_id`

func scanPost(sc interface{ Scan(...any) error }) (Post, error) {
	var p, o Post
	var created, ocreated int64
	var off, ooff, liked bool
	err := sc.Scan(&p.ID, &p.Author.ID, &p.Author.Username, &p.Author.DisplayName, &p.Author.Avatar, &p.Kind, &p.URL,
		&p.Comment, &p.Visibility, &p.MediaID, &off, &p.Likes, &p.Comments, &p.Reposts, &created, &p.ChangedAt,
		&o.ID, &o.Author.ID, &o.Author.Username, &o.Author.DisplayName, &o.Author.Avatar,
		&o.Kind, &o.URL, &o.Comment, &o.Visibility, &o.MediaID, &ooff, &o.Likes, &o.Comments, &o.Reposts,
		&ocreated, &o.ChangedAt, &p.DurationMS, &p.Peaks, &p.Plays, &p.Ready, &p.Failed, &o.DurationMS, &o.Peaks, &o.Plays, &o.Ready,
		&liked)
	if err != nil {
		return p, err
	}
	p.CommentsOff, p.CreatedAt = off, time.UnixMilli(created).UTC()
	if o.ID != 0 {
		o.CommentsOff, o.CreatedAt = ooff, time.UnixMilli(ocreated).UTC()
		o.Liked = liked
		p.RepostOf = &o
	} else {
		p.Liked = liked
	}
	return p, nil
}

// Query selects a timeline, newest first, keyset-paginated by id.
type Query struct {
	Viewer    int64  // who reads (0: a visitor, who sees public posts only)
	Before    int64  // only posts with a smaller id (the next page)
	Limit     int    // at most this many (1..100)
	Discovery bool   // the viewer's friends' posts and the viewer's own
	Author    int64  // only this author's posts
	Tag       string // only the posts with this hashtag key
	Audio     bool   // only audio posts (not their reposts)
}

// visible is the condition and parameters of what viewer may see.
func (s *Store) visible(viewer int64) (string, []any) {
	if viewer == 0 {
		return "p.visibility = 'public' AND p.ready = 1", nil
	}
	return s.sql.visibleUser, append([]any{viewer, viewer, viewer}, social.HiddenArgs(viewer)...)
}

// Timeline returns the posts q selects, with their authors, the originals
// of reposts, the viewer's likes, and the newest comments of each: two
// queries, whatever the number of posts, friends or comments. The cursor
// of the next page is the last post's id (0: no more).
func (s *Store) Timeline(ctx context.Context, q Query) ([]Post, int64, error) {
	where, args := s.visible(q.Viewer)
	conds := []string{where}
	if q.Author > 0 {
		conds, args = append(conds, "p.author_id = ?"), append(args, q.Author)
	}
	if q.Tag != "" {
		conds, args = append(conds, s.sql.tag), append(args, q.Tag)
	}
	if q.Audio {
		conds = append(conds, "p.kind = 'audio'")
	}
	if q.Before > 0 {
		conds, args = append(conds, "p.id < ?"), append(args, q.Before)
	}
	limit := min(max(q.Limit, 1), 100)
	if q.Discovery {
		before, bargs := "", []any{}
		if q.Before > 0 {
			before, bargs = " AND d.id < ?", []any{q.Before}
		}
		args = append(append(append(args, q.Viewer, q.Viewer), social.HiddenArgs(q.Viewer)...), append(bargs, limit+1)...)
		conds = append(conds, fmt.Sprintf(s.sql.discovery, before))
	}
	query := "SELECT " + postCols + postFrom + " WHERE " + strings.Join(conds, " AND ") + " ORDER BY p.id DESC LIMIT ?"
	args = append([]any{q.Viewer}, append(args, limit+1)...)
	posts, err := db.All(ctx, s.db, s.db, func(r *sql.Rows) (Post, error) { return scanPost(r) }, query, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("music: timeline: %w", err)
	}
	var next int64
	if len(posts) > limit {
		posts = posts[:limit]
		next = posts[limit-1].ID
	}
	if err := s.recent(ctx, q.Viewer, posts); err != nil {
		return nil, 0, err
	}
	return posts, next, nil
}

// Post returns post id if viewer may see it (else ErrNotFound: a stranger
// learns nothing of a friends-only post, not even that it exists).
func (s *Store) Post(ctx context.Context, viewer, id int64) (*Post, error) {
	where, args := s.visible(viewer)
	args = append(append([]any{viewer}, args...), id)
	p, err := scanPost(s.db.QueryRow(ctx, "SELECT "+postCols+postFrom+" WHERE "+where+" AND p.id = ?", args...))
	if err != nil {
		return nil, fmt.Errorf("music: post %d: %w", id, notFound(err))
	}
	return &p, nil
}

// recent fills in the newest comments of each post's target, in one
// query: the comments by those the viewer does not see are left out.
func (s *Store) recent(ctx context.Context, viewer int64, posts []Post) error {
	if len(posts) == 0 {
		return nil
	}
	ids := make([]any, 0, len(posts))
	at := map[int64][]*Post{}
	for i := range posts {
		t := posts[i].Target()
		if t.Comments == 0 {
			continue
		}
		if _, ok := at[t.ID]; !ok {
			ids = append(ids, t.ID)
		}
		at[t.ID] = append(at[t.ID], t)
	}
	if len(ids) == 0 {
		return nil
	}
	hidden, args := "", ids
	if viewer != 0 {
		hidden = " AND " + s.graph.HiddenSQL("c.author_id")
		args = append(args, social.HiddenArgs(viewer)...)
	}
	query := `SELECT x.id, x.post_id, x.body, x.created_at, x.at, u.id, u.username, u.display_name, u.avatar FROM (
			SELECT c.id, c.post_id, c.author_id, c.body, c.created_at, COALESCE(c.at_ms, -1) AS at,
				ROW_NUMBER() OVER (PARTITION BY c.post_id ORDER BY c.id DESC) AS n
			FROM music_comments c WHERE c.post_id IN (` + db.Params(len(ids)) + `)` + hidden + `
		) x JOIN users u ON u.id = x.author_id WHERE x.n <= ? ORDER BY x.post_id, x.id`
	cs, err := db.All(ctx, s.db, s.db, scanComment, query, append(args, recentComments)...)
	if err != nil {
		return fmt.Errorf("music: recent comments: %w", err)
	}
	for _, c := range cs {
		for _, p := range at[c.PostID] {
			p.Recent = append(p.Recent, c)
		}
	}
	return nil
}

func scanComment(r *sql.Rows) (Comment, error) {
	var c Comment
	var at int64
	err := r.Scan(&c.ID, &c.PostID, &c.Body, &at, &c.AtMS, &c.Author.ID, &c.Author.Username, &c.Author.DisplayName, &c.Author.Avatar)
	c.CreatedAt = time.UnixMilli(at).UTC()
	return c, err
}

// Comments returns a page of post's comments, oldest first, after the
// comment id after, at most limit, and the cursor of the next page (0:
// none). The caller checked that the viewer may see the post.
func (s *Store) Comments(ctx context.Context, viewer, post, after int64, limit int) ([]Comment, int64, error) {
	query, args := `SELECT c.id, c.post_id, c.body, c.created_at, COALESCE(c.at_ms, -1), u.id, u.username, u.display_name, u.avatar
		FROM music_comments c JOIN users u ON u.id = c.author_id WHERE c.post_id = ? AND c.id > ?`, []any{post, after}
	if viewer != 0 {
		query, args = query+" AND "+s.graph.HiddenSQL("c.author_id"), append(args, social.HiddenArgs(viewer)...)
	}
	cs, err := db.All(ctx, s.db, s.db, scanComment, query+" ORDER BY c.id LIMIT ?", append(args, limit+1)...)
	if err != nil {
		return nil, 0, fmt.Errorf("music: comments: %w", err)
	}
	var next int64
	if len(cs) > limit {
		cs = cs[:limit]
		next = cs[limit-1].ID
	}
	return cs, next, nil
}

// Profile is a person as their page shows them, with the viewer's standing.
type Profile struct {
	social.Person
	Bio string
	social.Standing
	Me bool
}

// Profile returns the person named name with viewer's standing to them.
func (s *Store) Profile(ctx context.Context, viewer int64, name string) (*Profile, error) {
	p := &Profile{}
	dest := append([]any{&p.ID, &p.Username, &p.DisplayName, &p.Avatar, &p.Bio}, p.Standing.Dest(s.graph)...)
	args := append(s.graph.StandingArgs(viewer), strings.ToLower(name))
	if err := db.Scan(s.db.QueryRow(ctx, s.sql.profile, args...), dest...); err != nil {
		return nil, fmt.Errorf("music: profile %q: %w", name, notFound(err))
	}
	p.Me = viewer == p.ID
	return p, nil
}

// Unseen counts user's unseen notifications.
func (s *Store) Unseen(ctx context.Context, user int64) (int64, error) {
	return s.notes.Unseen(ctx, s.db, user)
}

// Notifications returns user's notifications, newest first, before the id
// before, at most limit.
func (s *Store) Notifications(ctx context.Context, user, before int64, limit int) ([]social.Note, error) {
	return s.notes.List(ctx, s.db, user, before, limit)
}

// notFound maps no row to errs.ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return errs.ErrNotFound
	}
	return err
}

// PostsAny returns the posts of ids whoever may see them, by id (those
// gone are left out), in one query: for the moderators' reports (viewer
// marks the likes).
func (s *Store) PostsAny(ctx context.Context, viewer int64, ids []int64) (map[int64]*Post, error) {
	out := make(map[int64]*Post, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, 0, len(ids)+1)
	args = append(args, viewer)
	for _, id := range ids {
		args = append(args, id)
	}
	posts, err := db.All(ctx, s.db, s.db, func(r *sql.Rows) (Post, error) { return scanPost(r) },
		"SELECT "+postCols+postFrom+" WHERE p.id IN ("+db.Params(len(ids))+")", args...)
	if err != nil {
		return nil, fmt.Errorf("music: reported posts: %w", err)
	}
	for i := range posts {
		out[posts[i].ID] = &posts[i]
	}
	return out, nil
}
