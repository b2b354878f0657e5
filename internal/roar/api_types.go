package roar

import "time"

// APIRoar is a roar in the JSON API (and in live events).
type APIRoar struct {
	ID        int64     `json:"id"`
	URL       string    `json:"url"`
	Author    APIUser   `json:"author"`
	Body      string    `json:"body"`
	ReplyTo   int64     `json:"reply_to,omitempty"`
	RepostOf  *APIRoar  `json:"repost_of,omitempty"`
	Likes     int64     `json:"likes"`
	Replies   int64     `json:"replies"`
	Reposts   int64     `json:"reposts"`
	Liked     *bool     `json:"liked,omitempty"`    // only for a signed-in caller
	Reposted  *bool     `json:"reposted,omitempty"` // only for a signed-in caller
	CreatedAt time.Time `json:"created_at"`
}

// APIUser is a user as the API shows them inside other resources.
type APIUser struct {
	ID          int64  `json:"id"`
	Username    string `json:"username"`
	DisplayName string `json:"display_name"`
	AvatarURL   string `json:"avatar_url,omitempty"`
}

func apiUser(a Author) APIUser {
	return APIUser{ID: a.ID, Username: a.Username, DisplayName: a.Name(), AvatarURL: avatarURL(a)}
}

// apiRoar converts r; v (nil for nobody) adds the caller's liked/reposted marks.
func apiRoar(r *Roar, v *Viewer) *APIRoar {
	out := &APIRoar{ID: r.ID, URL: roarURL(r.ID), Author: apiUser(r.Author), Body: r.Body, ReplyTo: r.ReplyTo,
		Likes: r.Likes, Replies: v.replies(r), Reposts: r.Reposts, CreatedAt: r.CreatedAt}
	if r.RepostOf != nil {
		out.RepostOf = apiRoar(r.RepostOf, v)
	}
	if v.signedIn() {
		// A repost is liked and reposted through its original.
		t := r.Target()
		liked, reposted := v.liked(t.ID), v.reposted(t.ID)
		out.Liked, out.Reposted = &liked, &reposted
	}
	return out
}
