package roar

import (
	"net/http"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// APIProfile is a user's profile with counts and, for a signed-in caller,
// their relation to the user.
type APIProfile struct {
	APIUser
	URL       string       `json:"url"`
	Bio       string       `json:"bio"`
	Roars     int64        `json:"roars"`
	Followers int64        `json:"followers"`
	Following int64        `json:"following"`
	Joined    time.Time    `json:"joined"`
	Relation  *APIRelation `json:"relation,omitempty"`
}

// APIRelation is how the caller and a user stand.
type APIRelation struct {
	Me        bool `json:"me"`         // the caller's own profile
	Following bool `json:"following"`  // the caller follows them
	FollowsMe bool `json:"follows_me"` // they follow the caller
	Muted     bool `json:"muted"`      // the caller muted them
	Blocked   bool `json:"blocked"`    // the caller blocked them
	BlocksMe  bool `json:"blocks_me"`  // they blocked the caller
}

func apiProfile(p *Profile, u *auth.User) *APIProfile {
	out := &APIProfile{APIUser: apiUser(p.Author), URL: userURL(p.Username), Bio: p.Bio, Roars: p.Roars,
		Followers: p.Followers, Following: p.Following, Joined: p.Joined}
	if u != nil {
		out.Relation = &APIRelation{Me: p.Me, Following: p.Follows, FollowsMe: p.FollowsMe,
			Muted: p.Muted, Blocked: p.Blocked, BlocksMe: p.BlocksMe}
	}
	return out
}

// profile loads {username} as the request's user sees it.
func (a *App) profile(r *http.Request) (*Profile, *auth.User, error) {
	u := auth.UserFrom(r.Context())
	p, err := a.svc.Profile(r.Context(), u, r.PathValue("username"))
	return p, u, err
}

func (a *App) apiProfile(w http.ResponseWriter, r *http.Request) {
	p, u, err := a.profile(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	web.JSON(w, http.StatusOK, apiProfile(p, u))
}

func (a *App) apiUserRoars(w http.ResponseWriter, r *http.Request) {
	p, _, err := a.profile(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	q, err := listQuery(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	q.Author = p.ID
	a.serveList(w, r, q)
}

// apiRelate sets (PUT) or clears (DELETE) a follow, mute or block, and
// answers the profile as it now stands.
func (a *App) apiRelate(kind string, on bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		u := me(r)
		if err := a.svc.Relate(r.Context(), u, r.PathValue("username"), kind, on); err != nil {
			a.Site.Error(w, r, err)
			return
		}
		a.apiProfile(w, r)
	}
}

// APINotification is one thing that happened to the caller.
type APINotification struct {
	ID        int64           `json:"id"`
	Kind      string          `json:"kind"` // mention, reply, like, follow, repost
	Actor     APIUser         `json:"actor"`
	Roar      *APIRoarExcerpt `json:"roar,omitempty"`
	Seen      bool            `json:"seen"`
	CreatedAt time.Time       `json:"created_at"`
}

// APIRoarExcerpt is the roar a notification is about.
type APIRoarExcerpt struct {
	ID   int64  `json:"id"`
	URL  string `json:"url"`
	Body string `json:"body"`
}

// NotificationList is a page of notifications, with the unread count.
type NotificationList struct {
	Notifications []APINotification `json:"notifications"`
	Unread        int64             `json:"unread"`
	Next          string            `json:"next,omitempty"`
}

// apiNotifications lists the caller's notifications, newest first; reading
// them does not mark them seen (POST .../seen does).
func (a *App) apiNotifications(w http.ResponseWriter, r *http.Request) {
	u := me(r)
	before, err := web.QueryID(r, "before")
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	limit, err := queryLimit(r, 50, maxLimit)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	ctx := r.Context()
	notes, next, err := a.svc.Notifications(ctx, u, before, limit)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	unread, err := a.svc.Unread(ctx, u)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	out := NotificationList{Notifications: make([]APINotification, 0, len(notes)), Unread: unread}
	if next != 0 {
		out.Next = nextURL(r, "before", next)
	}
	for _, n := range notes {
		an := APINotification{ID: n.ID, Kind: n.Kind, Actor: apiUser(n.Actor), Seen: n.Seen, CreatedAt: n.CreatedAt}
		if n.Roar != nil {
			an.Roar = &APIRoarExcerpt{ID: n.Roar.ID, URL: roarURL(n.Roar.ID), Body: n.Roar.Body}
		}
		out.Notifications = append(out.Notifications, an)
	}
	web.JSON(w, http.StatusOK, out)
}

// apiSeen marks the caller's notifications up to an id as seen.
func (a *App) apiSeen(w http.ResponseWriter, r *http.Request) {
	u := me(r)
	var in struct {
		UpTo int64 `json:"up_to"`
	}
	if err := web.DecodeJSON(r, &in); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	if in.UpTo <= 0 {
		a.Site.Error(w, r, errs.Fields(map[string]string{"up_to": "Must be a notification id."}))
		return
	}
	ctx := r.Context()
	if err := a.svc.MarkSeen(ctx, u, in.UpTo); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	unread, err := a.svc.Unread(ctx, u)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	web.JSON(w, http.StatusOK, map[string]int64{"unread": unread})
}

// APIReport is a reported roar with its reports, for the moderators.
type APIReport struct {
	Roar      *APIRoar  `json:"roar"`
	Count     int64     `json:"count"`    // reports of this roar
	Reason    string    `json:"reason"`   // the first report's reason
	Reporter  string    `json:"reporter"` // and its reporter's username
	CreatedAt time.Time `json:"created_at"`
}

// apiReports lists the open reports, most reported first: moderators only.
func (a *App) apiReports(w http.ResponseWriter, r *http.Request) {
	u := me(r)
	reports, err := a.svc.Reports(r.Context(), u)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	out := struct {
		Reports []APIReport `json:"reports"`
	}{make([]APIReport, len(reports))}
	for i := range reports {
		rp := &reports[i]
		out.Reports[i] = APIReport{Roar: apiRoar(&rp.Roar, nil), Count: rp.Count, Reason: rp.Reason,
			Reporter: rp.Reporter, CreatedAt: rp.CreatedAt}
	}
	web.JSON(w, http.StatusOK, out)
}

// apiDismiss closes a roar's reports without removing it: moderators only.
func (a *App) apiDismiss(w http.ResponseWriter, r *http.Request) {
	u := me(r)
	id, err := pathInt(r, "roar_id")
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	if err := a.svc.Dismiss(r.Context(), u, id); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	noContent(w)
}
