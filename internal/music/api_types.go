package music

import (
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/social"
)

// The JSON API's resources (openapi.json's schemas), made from the
// Service's values.

// APIUser is a person as the API shows them inside other resources.
type APIUser struct {
	ID          int64  `json:"id"`
	Username    string `json:"username"`
	DisplayName string `json:"display_name"`
	AvatarURL   string `json:"avatar_url,omitempty"`
}

func apiUser(p social.Person) APIUser {
	return APIUser{ID: p.ID, Username: p.Username, DisplayName: p.Name(), AvatarURL: avatarURL(p)}
}

// APIMe is the signed-in user as they see themselves.
type APIMe struct {
	APIUser
	Moderator bool  `json:"moderator"`
	Unread    int64 `json:"unread_notifications"`
}

func apiMe(u *auth.User, unread int64) APIMe {
	return APIMe{APIUser: apiUser(personOf(u)), Moderator: canModerate(u), Unread: unread}
}

// APIPost is a post. A link post has its link (and, for a known music
// site, the player's address); an audio post is uploaded with the page's
// form and has no link.
type APIPost struct {
	ID          int64     `json:"id"`
	URL         string    `json:"url"` // the post's page
	Kind        string    `json:"kind"`
	Author      APIUser   `json:"author"`
	Link        string    `json:"link,omitempty"`
	Provider    string    `json:"provider,omitempty"`
	Player      string    `json:"player,omitempty"`
	Comment     string    `json:"comment"`
	Visibility  string    `json:"visibility"`
	CommentsOff bool      `json:"comments_off"`
	Likes       int64     `json:"likes"`
	Comments    int64     `json:"comments"`
	Reposts     int64     `json:"reposts"`
	RepostOf    *APIPost  `json:"repost_of,omitempty"`
	Liked       *bool     `json:"liked,omitempty"` // only for a signed-in caller
	CreatedAt   time.Time `json:"created_at"`
}

// apiPost converts p; signedIn adds the caller's liked mark (of the
// original, for a repost: a repost is liked through it).
func apiPost(p *Post, signedIn bool) *APIPost {
	out := &APIPost{ID: p.ID, URL: postURL(p.ID), Kind: p.Kind, Author: apiUser(p.Author), Comment: p.Comment,
		Visibility: p.Visibility, CommentsOff: p.CommentsOff, Likes: p.Likes, Comments: p.Comments, Reposts: p.Reposts,
		CreatedAt: p.CreatedAt.UTC()}
	if p.Kind == "link" && p.URL != "" {
		e := p.Embed()
		out.Link, out.Provider, out.Player = e.URL, e.Provider, e.Src
	}
	if p.RepostOf != nil {
		out.RepostOf = apiPost(p.RepostOf, signedIn)
	}
	if signedIn {
		liked := p.Target().Liked
		out.Liked = &liked
	}
	return out
}

// APIComment is a comment on a post.
type APIComment struct {
	ID        int64     `json:"id"`
	PostID    int64     `json:"post_id"`
	Author    APIUser   `json:"author"`
	Body      string    `json:"body"`
	CreatedAt time.Time `json:"created_at"`
}

func apiComment(c *Comment) APIComment {
	return APIComment{ID: c.ID, PostID: c.PostID, Author: apiUser(c.Author), Body: c.Body, CreatedAt: c.CreatedAt.UTC()}
}

// APIRelation is how the caller stands to a person.
type APIRelation struct {
	Me        bool `json:"me"`
	Friends   bool `json:"friends"`
	Requested bool `json:"requested"` // the caller asked them to be friends
	AsksMe    bool `json:"asks_me"`   // they asked the caller
	Blocked   bool `json:"blocked"`
	Muted     bool `json:"muted"`
}

// APIPerson is a person's profile, with the caller's relation (signed in).
type APIPerson struct {
	APIUser
	Bio      string       `json:"bio"`
	Friends  int64        `json:"friends"`
	Relation *APIRelation `json:"relation,omitempty"`
}

func apiPerson(p *Profile, signedIn bool) *APIPerson {
	out := &APIPerson{APIUser: apiUser(p.Person), Bio: p.Bio, Friends: p.FriendCount}
	if signedIn {
		out.Relation = &APIRelation{Me: p.Me, Friends: p.Standing.Friends, Requested: p.Asked, AsksMe: p.Asking,
			Blocked: p.Blocked, Muted: p.Muted}
	}
	return out
}

// APILink is a friend, or a friend request, with when it began.
type APILink struct {
	APIUser
	Since time.Time `json:"since"`
}
