package roar

import (
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/social"
)

// Author is who wrote a roar, as a timeline shows it (the core's person:
// id, username, display name, avatar; Name).
type Author = social.Person

// Roar is one message, with what a timeline shows of it.
type Roar struct {
	ID          int64
	Author      Author
	Body        string
	ReplyTo     int64  // 0: not a reply
	ReplyToUser string // username of the roar replied to ("" if it was deleted)
	RepostOf    *Roar  // the original, for a repost (whose Body is empty)
	Likes       int64
	Replies     int64
	Reposts     int64
	CreatedAt   time.Time
}

// Target is the roar that likes, replies and reposts act on: the original of a
// repost, the roar itself otherwise.
func (r *Roar) Target() *Roar {
	if r.RepostOf != nil {
		return r.RepostOf
	}
	return r
}

// Profile is a user's page header.
type Profile struct {
	Author
	Bio                  string
	Roars                int64
	Followers, Following int64
	Joined               time.Time
	// The viewer's relation to this user (all false for visitors).
	Me, Follows, FollowsMe, Blocked, Muted, BlocksMe bool
}

// Notification is one thing that happened to a user.
type Notification struct {
	ID        int64
	Kind      string // mention, reply, like, follow, repost
	Actor     Author
	Roar      *Roar // nil for follows (or a deleted roar)
	Seen      bool
	CreatedAt time.Time
}

// Report is a roar reported to the moderators.
type Report struct {
	ID        int64
	Roar      Roar
	Reporter  string
	Reason    string
	Count     int64 // reports of this roar
	CreatedAt time.Time
}

// Relations are the viewer's blocks and mutes (the core's social.Relations:
// Hidden, Blocks, Mutes), applied to every timeline.
type Relations struct{ *social.Relations }

func newRelations() *Relations { return &Relations{social.NewRelations()} }

// Hides reports whether the viewer does not see r: by an author it does not
// see, or a repost of one.
func (rel *Relations) Hides(r *Roar) bool {
	if rel == nil || rel.Relations == nil || len(rel.Hidden) == 0 {
		return false
	}
	return rel.Hidden[r.Author.ID] || (r.RepostOf != nil && rel.Hidden[r.RepostOf.Author.ID])
}

// Viewer is who reads roars (a nil User: a visitor), with what marks the
// roars for them: what they liked and reposted, whom they do not see, their
// unread notifications (Service.Viewer).
type Viewer struct {
	User     *auth.User
	Liked    map[int64]bool
	Reposted map[int64]bool
	Rel      *Relations
	Unseen   int64
	// HiddenReplies are, by roar, its replies by authors the viewer does
	// not see (Rel.Hidden): its count less these is what its thread shows
	// them. Only for the roars the viewer was loaded with.
	HiddenReplies map[int64]int64
}

func (v *Viewer) id() int64 {
	if v == nil || v.User == nil {
		return 0
	}
	return v.User.ID
}

func (v *Viewer) signedIn() bool { return v.id() != 0 }

func (v *Viewer) username() string {
	if v == nil || v.User == nil {
		return ""
	}
	return v.User.Username
}

// replies is roar t's reply count as the viewer sees its thread: without
// the replies of authors they do not see.
func (v *Viewer) replies(t *Roar) int64 { return max(t.Replies-v.hiddenReplies(t.ID), 0) }

func (v *Viewer) hiddenReplies(id int64) int64 {
	if v == nil {
		return 0
	}
	return v.HiddenReplies[id]
}

func (v *Viewer) liked(id int64) bool    { return v != nil && v.Liked[id] }
func (v *Viewer) reposted(id int64) bool { return v != nil && v.Reposted[id] }
func (v *Viewer) owns(r *Roar) bool      { return v.signedIn() && r.Author.ID == v.id() }

// canRemove is Service.Delete's rule: the author or a moderator.
func (v *Viewer) canRemove(r *Roar) bool {
	return v.owns(r) || (v.signedIn() && isModerator(v.User))
}
