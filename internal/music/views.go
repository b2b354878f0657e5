package music

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/social"
	"github.com/tutti-dev/tutti/internal/tags"
	"github.com/tutti-dev/tutti/internal/web"
)

// page is what a music page shows; Tab says which page it is.
type page struct {
	Title  string
	Tab    string // discovery, everyone, tag, profile, post, hot, people, friends, notifications, reports, delete, report
	User   *auth.User
	Unseen int64
	Flash  string

	Posts  []Post
	Older  string // the next page's URL ("": the end)
	Share  *shareForm
	Tag    string
	Person *Profile
	Post   *Post
	// The post page's comments and the comment form.
	Comments    []Comment
	CommentBody string
	CommentErr  string
	CommentAt   string // the moment typed ("0:42")
	AtErr       string
	Hot         []tags.Trend
	Query       string
	People      []Found
	Links       []social.Link
	Incoming    []social.Link
	Outgoing    []social.Link
	Notes       *Notifications
	Reports     []ReportedPost
	Reason      string
	Verb        string // what the confirm page asks about: unfriend, block
	// The author's share link of the post (share.go): ShareOwn, the post
	// may have one; ShareURL, the link it has ("": none).
	ShareOwn bool
	ShareURL string
	// ShareToken is the share link a share page was opened by (its
	// audio's URL carries it).
	ShareToken string
	ReasonErr  string
}

// shareForm is the share form with what was typed and its errors.
type shareForm struct {
	Draft
	Audio  bool // the audio form was sent (its errors show there)
	Errors map[string]string
}

func (p *page) signedIn() bool { return p.User != nil }

func (p *page) username() string {
	if p.User == nil {
		return ""
	}
	return p.User.Username
}

// flags are the viewer's parts of a card: they key its fragment.
type flags struct {
	SignedIn, Liked, Own, Moderator bool
}

func (p *page) flags(t *Post) flags {
	if p.User == nil {
		return flags{}
	}
	return flags{SignedIn: true, Liked: t.Liked, Own: t.Author.ID == p.User.ID, Moderator: canModerate(p.User)}
}

func (f flags) canRepost(t *Post) bool  { return f.SignedIn && !f.Own && t.Public() }
func (f flags) canComment(t *Post) bool { return f.SignedIn && (!t.CommentsOff || f.Own) }
func (f flags) canDelete() bool         { return f.Own || f.Moderator }

func postURL(id int64) string      { return "/music/p/" + itoa(id) }
func personURL(name string) string { return "/music/u/" + name }
func tagURL(tag string) string     { return "/music/tags/" + tag }
func itoa(n int64) string          { return strconv.FormatInt(n, 10) }

func stamp(t time.Time) string     { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
func shortTime(t time.Time) string { return t.UTC().Format("Jan 2, 15:04") + " UTC" }

func initial(p social.Person) string {
	r, _ := utf8.DecodeRuneInString(p.Name())
	return strings.ToUpper(string(r))
}

func avatarURL(p social.Person) string {
	if p.Avatar == "" {
		return ""
	}
	return (&auth.User{Avatar: p.Avatar}).AvatarURL()
}

func boolStr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return itoa(n) + " " + many
}

func (a *App) head(p *page) web.Head {
	return web.Head{Title: p.Title, App: "/music/", User: p.username(),
		CSS: []string{a.Assets.URL("music.css")}, JS: []string{a.Assets.URL("music.js"), a.Assets.URL("audio.js")}}
}

func providerName(e Embed) string {
	switch e.Provider {
	case "youtube":
		return "YouTube"
	case "soundcloud":
		return "SoundCloud"
	case "spotify":
		return "Spotify"
	case "apple":
		return "Apple Music"
	case "bandcamp":
		return "Bandcamp"
	}
	return e.Host
}

func heightStyle(e Embed) string { return "h" + strconv.Itoa(e.Height) }

// cloudSize is a tag's size class in the cloud (1..5), by its score among
// the shown ones.
func cloudSize(t tags.Trend, all []tags.Trend) string {
	if len(all) == 0 || all[0].Score <= 0 {
		return "s1"
	}
	r := t.Score / all[0].Score
	n := 1 + int(math.Round(4*math.Sqrt(r)))
	return "s" + strconv.Itoa(min(max(n, 1), 5))
}

func noteText(g *social.Group) string {
	switch g.Kind {
	case "comment":
		return "commented on your post"
	case "like":
		return "liked your post"
	case "repost":
		return "reposted your post to their friends"
	case "friend_request":
		return "asked to be your friend"
	case "friend_accept":
		return "accepted your friend request"
	}
	return g.Kind
}

func others(g *social.Group) string {
	if n := g.Others(1); n > 0 {
		return " and " + plural(int64(n), "other", "others")
	}
	return ""
}

// secondaryAfter is the class of the second and later buttons of a row.
func secondaryAfter(i int) string {
	if i > 0 {
		return "secondary"
	}
	return ""
}

func commentsLabel(n int64) string {
	if n == 1 {
		return "comment"
	}
	return "comments"
}
