package meet

import (
	"bytes"
	"context"
	"encoding/json"
	"hash/fnv"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/walltime"
	"github.com/tutti-dev/tutti/internal/web"
)

// PageSize is how many participants and comments a poll page shows at once.
const PageSize = 5

// BestLimit is how many best times a poll page lists.
const BestLimit = 5

// pollView is everything the poll page shows.
type pollView struct {
	Poll     *Poll
	Zone     string
	Loc      *time.Location
	Locked   bool
	Names    map[int64]string
	Total    int
	Best     []Range
	Grid     Grid
	Tally    []SlotTally
	HeatJSON string

	People      []Participant // this page of participants
	PeopleAfter db.Cursor     // cursor of this page (zero: first)
	NextPeople  db.Cursor     // cursor of the next page (zero: none)

	Comments     []Comment
	CommentsFrom db.Cursor // cursor of this page (zero: newest)
	NextComments db.Cursor // cursor of the next (older) page (zero: none)
}

// pageQuery is the part of the URL that selects what a poll page shows.
type pageQuery struct {
	after  db.Cursor // participants after this one
	before db.Cursor // comments older than this one
	all    bool      // every participant (the organizer's page)
}

// parsePageQuery reads the cursors; a malformed one is a bad request (400),
// not silently the first page.
func parsePageQuery(r *http.Request) (pageQuery, error) {
	if r.URL.RawQuery == "" {
		return pageQuery{}, nil
	}
	q := r.URL.Query()
	var pq pageQuery
	for _, c := range []struct {
		name string
		dst  *db.Cursor
	}{{"after", &pq.after}, {"before", &pq.before}} {
		if s := q.Get(c.name); s != "" {
			if *c.dst = db.ParseCursor(s); c.dst.IsZero() {
				return pageQuery{}, errs.BadQuery(c.name, "a cursor from the page's own links")
			}
		}
	}
	return pq, nil
}

// pollShow serves the poll page from the cache (cache.Pages): the key is
// what the URL selects and the version the poll's stamp (its version, which
// every change raises, and whether it is locked), so a change is visible on
// the very next request and nothing stale is served. A hit is a map load; on
// a miss the ETag is known before the page is looked up, so a revalidation
// costs nothing.
func (a *App) pollShow(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !validID(id) {
		a.Site.NotFound(w, r)
		return
	}
	v, locked, err := a.stamp(r.Context(), id)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	zone := a.zoneName(w, r)
	pq, err := parsePageQuery(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	key := id // the common page: no zone, no cursor (no key to build)
	if zone != "" || !pq.after.IsZero() || !pq.before.IsZero() {
		key = id + "|" + zone + "|" + pq.after.String() + "|" + pq.before.String()
	}
	ver := pageVersion(v, locked)
	if page, ok := a.pages.Hit(key, ver); ok {
		page.Serve(w, r)
		return
	}
	st := strconv.FormatInt(v, 10)
	if locked {
		st += "L"
	}
	h := fnv.New64a()
	h.Write([]byte(zone))
	h.Write([]byte("|" + pq.after.String() + "|" + pq.before.String()))
	etag := `"` + st + "-" + strconv.FormatUint(h.Sum64(), 36) + `"`
	if web.NotModified(w, r, etag) {
		return
	}
	err = a.pages.Serve(w, r, key, ver, func(ctx context.Context) (*web.Page, time.Duration, error) {
		return a.renderPoll(ctx, id, v, zone, pq, etag)
	})
	if err != nil {
		a.Site.Error(w, r, err)
	}
}

// pollHot finds the common poll page (no zone, no cursor: a visitor's first
// look) in the cache at the poll's version, for the site's hot lane.
func (a *App) pollHot(ctx context.Context, req web.HotRequest) (*web.Page, bool) {
	id := req.Args[0]
	if !validID(id) {
		return nil, false
	}
	v, locked, err := a.stamp(ctx, id)
	if err != nil {
		return nil, false
	}
	return a.pages.Hit(id, pageVersion(v, locked))
}

// pageVersion is a poll page's version in the cache: the poll's, and
// whether it is locked (its deadline passed, with no write to bump it).
func pageVersion(v int64, locked bool) int64 {
	if locked {
		return v<<1 | 1
	}
	return v << 1
}

// zoneName is the viewer's zone name before the poll is loaded: ?tz= or the
// cookie; "" means the poll's own zone.
func (a *App) zoneName(w http.ResponseWriter, r *http.Request) string {
	if r.URL.RawQuery == "" && len(r.Header["Cookie"]) == 0 {
		return ""
	}
	if tz := r.URL.Query().Get("tz"); validZone(tz) {
		// The switcher (a form on our own pages) and the viewer's own typed
		// or bookmarked link keep the choice; a link from another site only
		// shows this page in its zone: a GET from elsewhere changes nothing,
		// not even a preference.
		if sfs := r.Header.Get("Sec-Fetch-Site"); sfs == "same-origin" || sfs == "none" {
			http.SetCookie(w, &http.Cookie{Name: "meet_tz", Value: tz, Path: "/meet/", MaxAge: 365 * 86400,
				SameSite: http.SameSiteLaxMode, Secure: web.IsHTTPS(r)})
		}
		return tz
	}
	return zoneCookie(r)
}

// zoneCookie is the zone in the meet_tz cookie (the browser's detected zone,
// or the one picked in the switcher), or "". The value is an IANA name as
// is ("America/New_York": every character of such names may stand in a
// cookie), but a percent-encoded one ("America%2FNew_York", as earlier page
// scripts wrote it) is read too.
func zoneCookie(r *http.Request) string {
	c, err := r.Cookie("meet_tz")
	if err != nil {
		return ""
	}
	z := c.Value
	if strings.Contains(z, "%") {
		if u, err := url.QueryUnescape(z); err == nil {
			z = u
		}
	}
	if !validZone(z) {
		return ""
	}
	return z
}

// validZone reports whether z names a zone of the database ("Local" and ""
// are not zones a viewer can have).
func validZone(z string) bool {
	if z == "" || z == "Local" || len(z) > 64 {
		return false
	}
	_, err := walltime.Location(z)
	return err == nil
}

func (a *App) renderPoll(ctx context.Context, id string, ver int64, zone string, pq pageQuery, etag string) (*web.Page, time.Duration, error) {
	d, err := a.store.PollPageAt(ctx, id, ver, pq.before, PageSize)
	if err != nil {
		return nil, 0, err
	}
	v := a.buildPollView(d, zone, pq)
	var buf bytes.Buffer
	if err := PollPage(a, v).Render(ctx, &buf); err != nil {
		return nil, 0, err
	}
	ttl := time.Hour
	if v.Poll.Deadline != nil && !v.Locked {
		ttl = min(ttl, time.Until(*v.Poll.Deadline)+time.Second)
	}
	return web.NewPage("text/html; charset=utf-8", buf.Bytes(), etag), ttl, nil
}

// buildPollView is the view of a poll's page from what it shows, d (read
// by the caller in one query: Store.PollPage, or PollPageAt for the cached
// page), in the viewer's zone.
func (a *App) buildPollView(d *PollData, zone string, pq pageQuery) *pollView {
	p, people := d.Poll, d.People
	v := &pollView{Poll: p, Locked: a.locked(p), PeopleAfter: pq.after, CommentsFrom: pq.before}
	v.Zone, v.Loc = zone, nil
	if zone != "" {
		v.Loc, _ = walltime.Location(zone)
	}
	if v.Loc == nil {
		v.Zone = p.TZ
		var err error
		if v.Loc, err = p.Location(); err != nil {
			v.Zone, v.Loc = "UTC", time.UTC
		}
	}
	v.Comments, v.NextComments = d.Comments, d.Next
	v.Total = len(people)
	v.Names = make(map[int64]string, len(people))
	for _, pt := range people {
		v.Names[pt.ID] = pt.Name
	}
	if pq.all {
		v.People = people
	} else {
		i := 0
		for i < len(people) && people[i].ID <= pq.after.ID {
			i++
		}
		v.People, v.NextPeople = db.Trim(people[i:min(i+PageSize+1, len(people))], PageSize,
			func(p Participant) db.Cursor { return db.Cursor{ID: p.ID} })
	}
	slots := p.Slots()
	v.Tally = Tally(slots, d.Timeframes)
	v.Best = Best(v.Tally, p.Duration(), BestLimit)
	v.Grid = BuildGrid(slots, v.Loc)
	v.HeatJSON = heatJSON(people, v.Tally)
	return v
}

// heatJSON is the data behind the heat map's "who is free": participant
// names, and per slot the [participant index, tier] pairs.
func heatJSON(people []Participant, tally []SlotTally) string {
	idx := make(map[int64]int, len(people))
	names := make([]string, len(people))
	for i, p := range people {
		idx[p.ID] = i
		names[i] = p.Name
	}
	slots := make([][][2]int, len(tally))
	for i, t := range tally {
		for _, av := range t.Avail {
			slots[i] = append(slots[i], [2]int{idx[av.ParticipantID], av.Tier})
		}
	}
	b, _ := json.Marshal(struct {
		Names []string   `json:"names"`
		Slots [][][2]int `json:"slots"`
	}{names, slots})
	return string(b)
}
