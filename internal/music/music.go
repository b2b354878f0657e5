package music

import (
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/social"
	"github.com/tutti-dev/tutti/internal/text"
)

// Post is a shared song or playlist (a link, shown as Embed), later an
// uploaded audio (Kind "audio", MediaID), or a repost of another post to
// the reposter's friends (RepostOf: the original, as the card shows it).
type Post struct {
	ID          int64
	Author      social.Person
	Kind        string // link, audio
	URL         string
	Comment     string
	Visibility  string // public, friends
	MediaID     int64  // an audio post's media (0: none)
	CommentsOff bool
	Likes       int64
	Comments    int64
	Reposts     int64
	CreatedAt   time.Time
	ChangedAt   int64 // unix ms of the last change of what the card shows
	RepostOf    *Post

	// An audio post's (Kind "audio"): its length, waveform (Bars values
	// 0-255; none until processed), listens, and whether its file is
	// processed (a post not Ready is shown to its author only).
	DurationMS int64
	Peaks      []byte
	Plays      int64
	Ready      bool
	Failed     bool // the server could not read its file: its author sees so (never Ready)

	// The viewer's view of the post (of the original, for a repost).
	Liked  bool
	Recent []Comment // the newest comments (at most recentComments), oldest first
}

// Target is what the card shows and what a like, comment or repost is
// about: the original for a repost, else the post itself.
func (p *Post) Target() *Post {
	if p.RepostOf != nil {
		return p.RepostOf
	}
	return p
}

// Public reports whether everyone may see the post.
func (p *Post) Public() bool { return p.Visibility == Public }

// Embed is the post's link as the card shows it (a player or a card).
func (p *Post) Embed() Embed {
	e, err := ParseLink(p.URL)
	if err != nil { // a stored link always parsed; shown as a plain card if not
		return Embed{URL: "", Host: "link"}
	}
	return e
}

// Comment is a comment on a post.
type Comment struct {
	ID        int64
	PostID    int64
	Author    social.Person
	Body      string
	CreatedAt time.Time
	AtMS      int64 // the moment of the audio it is pinned to, in ms; -1: none
}

// personOf is u as the people of a page show them.
func personOf(u *auth.User) social.Person {
	return social.Person{ID: u.ID, Username: u.Username, DisplayName: u.DisplayName, Avatar: u.Avatar}
}

// Timed reports whether the comment is pinned to a moment of the audio.
func (c *Comment) Timed() bool { return c.AtMS >= 0 }

// Audio reports whether the post is an uploaded audio.
func (p *Post) Audio() bool { return p.Kind == KindAudio }

// The kinds of a post.
const (
	KindLink  = "link"
	KindAudio = "audio"
)

// The visibilities of a post.
const (
	Public  = "public"
	Friends = "friends"
)

// recentComments is how many comments a card shows.
const recentComments = 3

// Draft is a new post as typed.
type Draft struct {
	URL        string
	Comment    string
	Visibility string
}

var (
	commentField = text.Field{Name: "Your comment", Max: 1000, Multiline: true}
	replyField   = text.Field{Name: "A comment", Min: 1, Max: 1000, Multiline: true, Empty: "Write something first."}
)

// Clean checks a draft: a link ParseLink accepts, a comment of at most
// 1,000 characters, a visibility of public or friends. Errors name the
// fields (url, comment, visibility); the draft's link comes back cleaned.
func (d *Draft) Clean() (Embed, error) {
	f := map[string]string{}
	e, err := ParseLink(d.URL)
	if err != nil {
		for k, v := range errs.FieldsOf(err) {
			f[k] = v
		}
	} else {
		d.URL = e.URL
	}
	if c, msg := commentField.Clean(d.Comment); msg != "" {
		f["comment"] = msg
	} else {
		d.Comment = c
	}
	switch d.Visibility = strings.TrimSpace(d.Visibility); d.Visibility {
	case "":
		d.Visibility = Public
	case Public, Friends:
	default:
		f["visibility"] = "Choose who sees the post: everyone or your friends."
	}
	if len(f) > 0 {
		return Embed{}, errs.Fields(f)
	}
	return e, nil
}

// CleanComment checks a comment: 1 to 1,000 characters of text.
func CleanComment(body string) (string, error) {
	body, msg := replyField.Clean(body)
	if msg != "" {
		return "", errs.Fields(map[string]string{"body": msg})
	}
	return body, nil
}
