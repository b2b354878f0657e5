package music

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/tutti-dev/tutti/internal/errs"
)

// Embed is what a post's link shows: an embedded player made from the URL
// alone (Src is the iframe's address on one of the allow-listed player
// hosts), or a link card with the link's host. Nothing is ever fetched
// from the link's site by the server.
type Embed struct {
	URL      string // the link as it will be stored and linked (cleaned)
	Host     string // the link's host, for the card ("www.example.com")
	Provider string // youtube, soundcloud, spotify, apple, bandcamp; "" for any other site
	Kind     string // track, album, playlist, episode, video (what the player plays)
	Src      string // the player's iframe address; "" for a card
	Height   int    // the player's height in CSS pixels
}

// Player reports whether the link is shown as an embedded player.
func (e Embed) Player() bool { return e.Src != "" }

// MaxURL bounds a link's length.
const MaxURL = 2048

// errLink and friends are a link's refusals, for the form's "url" field.
func errLink(msg string) error { return errs.Fields(map[string]string{"url": msg}) }

var (
	ytID        = regexp.MustCompile(`^[A-Za-z0-9_-]{11}$`)
	ytList      = regexp.MustCompile(`^[A-Za-z0-9_-]{10,64}$`)
	scName      = regexp.MustCompile(`^[a-z0-9_-]{1,100}$`)
	spotifyID   = regexp.MustCompile(`^[A-Za-z0-9]{22}$`)
	spotifyIntl = regexp.MustCompile(`^intl-[a-z]{2}(-[a-z]{2})?$`)
	appleCC     = regexp.MustCompile(`^[a-z]{2}$`)
	appleNum    = regexp.MustCompile(`^[0-9]{1,20}$`)
	applePl     = regexp.MustCompile(`^pl\.[A-Za-z0-9-]{1,64}$`)
	appleSlug   = regexp.MustCompile(`^[A-Za-z0-9%._~-]{1,200}$`)
	bcSub       = regexp.MustCompile(`^[a-z0-9-]{1,63}$`)
	bcSlug      = regexp.MustCompile(`^[a-z0-9-]{1,200}$`)
	bcEmbed     = regexp.MustCompile(`^/EmbeddedPlayer/(?:[a-z_]+=[A-Za-z0-9]+/)*?(album|track)=([0-9]{1,20})(?:/[a-z_]+=[A-Za-z0-9]+)*/?$`)
)

// soundcloudReserved are soundcloud.com's own pages, not an artist's.
var soundcloudReserved = map[string]bool{"discover": true, "search": true, "stream": true, "upload": true,
	"you": true, "settings": true, "messages": true, "charts": true, "pages": true, "terms-of-use": true,
	"mobile": true, "notifications": true, "people": true, "signin": true, "logout": true, "jobs": true}

// ParseLink turns a link typed into a post into its Embed. The link must be
// an absolute http(s) URL with a host, at most MaxURL bytes, without a user
// or password; javascript:, data: and every other scheme are refused with
// a message for the "url" field. Links of YouTube (watch, youtu.be,
// shorts, embed, playlist), SoundCloud (a track or a set), Spotify (track,
// album, playlist, episode, with or without an intl- part), Apple Music
// (song, album, a song of an album, playlist) become players; a Bandcamp
// page's link (artist.bandcamp.com/track/...) does not carry the numeric
// id that Bandcamp's player needs, so it is a card in Bandcamp's colours,
// and only a link to Bandcamp's own player (bandcamp.com/EmbeddedPlayer/
// album=ID/...) plays in the page. Anything else is a card.
func ParseLink(raw string) (Embed, error) {
	raw = strings.TrimSpace(raw)
	switch {
	case raw == "":
		return Embed{}, errLink("Paste the link of a song or a playlist.")
	case len(raw) > MaxURL:
		return Embed{}, errLink("That link is too long (at most 2,048 characters).")
	}
	for _, r := range raw {
		if r < 0x21 || r == 0x7f {
			return Embed{}, errLink("A link cannot contain spaces or control characters.")
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return Embed{}, errLink("That is not a link we can read; copy it from your browser's address bar.")
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return Embed{}, errLink("Only web links (http:// or https://) can be shared.")
	}
	host := strings.ToLower(u.Hostname())
	if u.Opaque != "" || host == "" || !strings.Contains(host, ".") || strings.HasSuffix(host, ".") {
		return Embed{}, errLink("That link has no web address (such as https://example.com/...).")
	}
	if u.User != nil {
		return Embed{}, errLink("A link with a user name or password cannot be shared.")
	}
	u.Scheme, u.Host = scheme, strings.ToLower(u.Host)
	u.Fragment, u.RawFragment = "", ""
	e := Embed{URL: u.String(), Host: host}
	segs := segments(u.EscapedPath())
	q := u.Query()
	switch host {
	case "youtube.com", "www.youtube.com", "m.youtube.com", "music.youtube.com":
		youtube(&e, segs, q)
	case "youtu.be":
		if len(segs) == 1 {
			youtubeVideo(&e, segs[0], q.Get("list"))
		}
	case "soundcloud.com", "www.soundcloud.com", "m.soundcloud.com":
		soundcloud(&e, segs)
	case "open.spotify.com":
		spotify(&e, segs)
	case "music.apple.com":
		apple(&e, segs, q)
	case "bandcamp.com":
		if m := bcEmbed.FindStringSubmatch(u.EscapedPath()); m != nil {
			e.Provider, e.Kind, e.Height = "bandcamp", m[1], 120
			e.Src = "https://bandcamp.com/EmbeddedPlayer/" + m[1] + "=" + m[2] + "/size=large/bgcol=ffffff/linkcol=0687f5/tracklist=false/artwork=small/transparent=true/"
		}
	default:
		if sub, ok := strings.CutSuffix(host, ".bandcamp.com"); ok && bcSub.MatchString(sub) {
			e.Provider = "bandcamp"
			if len(segs) == 2 && (segs[0] == "track" || segs[0] == "album") && bcSlug.MatchString(segs[1]) {
				e.Kind = segs[0]
			}
		}
	}
	return e, nil
}

// segments splits an escaped path into its non-empty parts.
func segments(p string) []string {
	var out []string
	for s := range strings.SplitSeq(p, "/") {
		if s != "" {
			out = append(out, s)
		}
		if len(out) > 8 {
			break
		}
	}
	return out
}

func youtube(e *Embed, segs []string, q url.Values) {
	switch {
	case len(segs) == 1 && segs[0] == "watch":
		youtubeVideo(e, q.Get("v"), q.Get("list"))
	case len(segs) == 2 && (segs[0] == "shorts" || segs[0] == "embed" || segs[0] == "live"):
		youtubeVideo(e, segs[1], q.Get("list"))
	case len(segs) == 1 && segs[0] == "playlist":
		if l := q.Get("list"); ytList.MatchString(l) {
			e.Provider, e.Kind, e.Height = "youtube", "playlist", 315
			e.Src = "https://www.youtube-nocookie.com/embed/videoseries?list=" + l
		}
	}
}

func youtubeVideo(e *Embed, id, list string) {
	if !ytID.MatchString(id) {
		return
	}
	e.Provider, e.Kind, e.Height = "youtube", "video", 315
	e.Src = "https://www.youtube-nocookie.com/embed/" + id
	if ytList.MatchString(list) {
		e.Src += "?list=" + list
	}
}

func soundcloud(e *Embed, segs []string) {
	for _, s := range segs {
		if !scName.MatchString(s) {
			return
		}
	}
	var kind string
	switch {
	case len(segs) == 2 && !soundcloudReserved[segs[0]] && segs[1] != "sets" && segs[1] != "tracks" && segs[1] != "likes":
		kind = "track"
	case len(segs) == 3 && !soundcloudReserved[segs[0]] && segs[1] == "sets":
		kind = "playlist"
	default:
		return
	}
	canon := "https://soundcloud.com/" + strings.Join(segs, "/")
	e.Provider, e.Kind, e.Height = "soundcloud", kind, 166
	if kind == "playlist" {
		e.Height = 450
	}
	e.Src = "https://w.soundcloud.com/player/?url=" + url.QueryEscape(canon) + "&visual=false&show_comments=false"
}

func spotify(e *Embed, segs []string) {
	if len(segs) > 0 && spotifyIntl.MatchString(segs[0]) {
		segs = segs[1:]
	}
	if len(segs) >= 1 && segs[0] == "embed" {
		segs = segs[1:]
	}
	if len(segs) != 2 || !spotifyID.MatchString(segs[1]) {
		return
	}
	switch segs[0] {
	case "track", "episode":
		e.Height = 152
	case "album", "playlist":
		e.Height = 352
	default:
		return
	}
	e.Provider, e.Kind = "spotify", segs[0]
	e.Src = "https://open.spotify.com/embed/" + segs[0] + "/" + segs[1]
}

func apple(e *Embed, segs []string, q url.Values) {
	if len(segs) < 3 || !appleCC.MatchString(segs[0]) {
		return
	}
	kind, rest := segs[1], segs[2:]
	if len(rest) > 2 {
		return
	}
	id := rest[len(rest)-1]
	if len(rest) == 2 && !appleSlug.MatchString(rest[0]) {
		return
	}
	switch kind {
	case "song", "album":
		if !appleNum.MatchString(id) {
			return
		}
	case "playlist":
		if !applePl.MatchString(id) {
			return
		}
	default:
		return
	}
	src := "https://embed.music.apple.com/" + strings.Join(segs, "/")
	e.Provider, e.Kind, e.Height = "apple", kind, 450
	if kind == "album" {
		if i := q.Get("i"); appleNum.MatchString(i) { // a song of the album
			src += "?i=" + i
			e.Kind = "song"
		}
	}
	if e.Kind == "song" {
		e.Height = 175
	} else if kind == "album" {
		e.Kind = "album"
	}
	e.Src = src
}
