package music

import (
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

func TestParseLink(t *testing.T) {
	for _, c := range []struct {
		in, provider, kind, src string
	}{
		{"https://www.youtube.com/watch?v=dQw4w9WgXcQ", "youtube", "video", "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ"},
		{"https://m.youtube.com/watch?v=dQw4w9WgXcQ&t=42s", "youtube", "video", "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ"},
		{"https://www.youtube.com/watch?v=dQw4w9WgXcQ&list=PLFgquLnL59alCl_2TQvOiD5Vgm1hCaGSI", "youtube", "video",
			"https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?list=PLFgquLnL59alCl_2TQvOiD5Vgm1hCaGSI"},
		{"https://youtu.be/dQw4w9WgXcQ", "youtube", "video", "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ"},
		{"http://youtu.be/dQw4w9WgXcQ?si=abc", "youtube", "video", "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ"},
		{"https://www.youtube.com/shorts/dQw4w9WgXcQ", "youtube", "video", "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ"},
		{"https://music.youtube.com/watch?v=dQw4w9WgXcQ", "youtube", "video", "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ"},
		{"https://www.youtube.com/playlist?list=PLFgquLnL59alCl_2TQvOiD5Vgm1hCaGSI", "youtube", "playlist",
			"https://www.youtube-nocookie.com/embed/videoseries?list=PLFgquLnL59alCl_2TQvOiD5Vgm1hCaGSI"},
		{"https://soundcloud.com/forss/flickermood", "soundcloud", "track",
			"https://w.soundcloud.com/player/?url=https%3A%2F%2Fsoundcloud.com%2Fforss%2Fflickermood&visual=false&show_comments=false"},
		{"https://soundcloud.com/forss/sets/soulhack", "soundcloud", "playlist",
			"https://w.soundcloud.com/player/?url=https%3A%2F%2Fsoundcloud.com%2Fforss%2Fsets%2Fsoulhack&visual=false&show_comments=false"},
		{"https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC", "spotify", "track", "https://open.spotify.com/embed/track/4uLU6hMCjMI75M1A2tKUQC"},
		{"https://open.spotify.com/intl-de/track/4uLU6hMCjMI75M1A2tKUQC?si=x", "spotify", "track", "https://open.spotify.com/embed/track/4uLU6hMCjMI75M1A2tKUQC"},
		{"https://open.spotify.com/intl-pt-br/album/1DFixLWuPkv3KT3TnV35m3", "spotify", "album", "https://open.spotify.com/embed/album/1DFixLWuPkv3KT3TnV35m3"},
		{"https://open.spotify.com/playlist/37i9dQZF1DXcBWIGoYBM5M", "spotify", "playlist", "https://open.spotify.com/embed/playlist/37i9dQZF1DXcBWIGoYBM5M"},
		{"https://open.spotify.com/episode/7makk4oTQel546B0PZlDM5", "spotify", "episode", "https://open.spotify.com/embed/episode/7makk4oTQel546B0PZlDM5"},
		{"https://music.apple.com/us/album/1989-taylors-version/1708308989", "apple", "album",
			"https://embed.music.apple.com/us/album/1989-taylors-version/1708308989"},
		{"https://music.apple.com/us/album/1989-taylors-version/1708308989?i=1708309021", "apple", "song",
			"https://embed.music.apple.com/us/album/1989-taylors-version/1708308989?i=1708309021"},
		{"https://music.apple.com/gb/song/blank-space/1440935808", "apple", "song", "https://embed.music.apple.com/gb/song/blank-space/1440935808"},
		{"https://music.apple.com/us/playlist/todays-hits/pl.f4d106fed2bd41149aaacabb233eb5eb", "apple", "playlist",
			"https://embed.music.apple.com/us/playlist/todays-hits/pl.f4d106fed2bd41149aaacabb233eb5eb"},
		{"https://bandcamp.com/EmbeddedPlayer/album=1536701931/size=large/bgcol=ffffff/", "bandcamp", "album",
			"https://bandcamp.com/EmbeddedPlayer/album=1536701931/size=large/bgcol=ffffff/linkcol=0687f5/tracklist=false/artwork=small/transparent=true/"},
		// Bandcamp's pages lack the player's id: a card in Bandcamp's colours.
		{"https://artist.bandcamp.com/track/a-song", "bandcamp", "track", ""},
		{"https://artist.bandcamp.com/album/the-record", "bandcamp", "album", ""},
		// Known sites, but not a player's link: a card.
		{"https://www.youtube.com/watch?v=short", "", "", ""},
		{"https://www.youtube.com/@someone", "", "", ""},
		{"https://soundcloud.com/discover/sets/x", "", "", ""},
		{"https://soundcloud.com/forss", "", "", ""},
		{"https://open.spotify.com/artist/0OdUWJ0sBjDrqHygGUXeCF", "", "", ""},
		{"https://open.spotify.com/track/tooshort", "", "", ""},
		{"https://music.apple.com/us/artist/taylor-swift/159260351", "", "", ""},
		{"https://example.com/song?x=1#frag", "", "", ""},
		{"https://evil.com/https://www.youtube.com/watch?v=dQw4w9WgXcQ", "", "", ""},
		{"https://www.youtube.com.evil.com/watch?v=dQw4w9WgXcQ", "", "", ""},
	} {
		e, err := ParseLink(c.in)
		if err != nil {
			t.Errorf("ParseLink(%q): %v", c.in, err)
			continue
		}
		if e.Provider != c.provider || e.Kind != c.kind || e.Src != c.src {
			t.Errorf("ParseLink(%q) = %q %q %q; want %q %q %q", c.in, e.Provider, e.Kind, e.Src, c.provider, c.kind, c.src)
		}
		if e.Src != "" && e.Height <= 0 {
			t.Errorf("ParseLink(%q): a player without a height", c.in)
		}
	}
	if e, _ := ParseLink("https://Example.COM/a#b"); e.URL != "https://example.com/a" || e.Host != "example.com" {
		t.Errorf("card: got URL %q host %q; want the host lower-cased and no fragment", e.URL, e.Host)
	}
}

func TestParseLinkRefuses(t *testing.T) {
	for _, in := range []string{
		"", "   ", "javascript:alert(1)", "JavaScript:alert(1)", "data:text/html,<script>alert(1)</script>",
		"ftp://example.com/x", "file:///etc/passwd", "//example.com/x", "example.com/x", "https://", "https://localhost/x",
		"https://user:pw@example.com/", "https://example.com/a b", "https://example.com/\x00", "vbscript:msgbox",
		"https://exa mple.com", "https://example.com./", "mailto:a@example.com",
		"https://example.com/" + strings.Repeat("a", MaxURL),
	} {
		_, err := ParseLink(in)
		if err == nil {
			t.Errorf("ParseLink(%q): accepted; want refused", in)
			continue
		}
		if errs.KindOf(err) != errs.Invalid || errs.FieldsOf(err)["url"] == "" {
			t.Errorf("ParseLink(%q): %v; want an Invalid error at the url field", in, err)
		}
	}
}

// FuzzParseLink: whatever is typed, a link is refused with a message or
// becomes a web link; a player is always on an allow-listed origin (the
// pages' CSP frame-src), made only of URL-safe characters.
func FuzzParseLink(f *testing.F) {
	for _, s := range []string{"https://www.youtube.com/watch?v=dQw4w9WgXcQ", "https://youtu.be/dQw4w9WgXcQ",
		"https://soundcloud.com/a/sets/b", "https://open.spotify.com/intl-de/track/4uLU6hMCjMI75M1A2tKUQC",
		"https://music.apple.com/us/album/x/1?i=2", "https://bandcamp.com/EmbeddedPlayer/track=1/", "https://a.bandcamp.com/track/b",
		"javascript:alert(1)", "https://example.com/%zz", "http://[::1]/"} {
		f.Add(s)
	}
	origins := strings.Fields(web.PlayerFrames)
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseLink(s)
		if err != nil {
			if errs.FieldsOf(err)["url"] == "" {
				t.Fatalf("ParseLink(%q): %v; want a message at the url field", s, err)
			}
			return
		}
		if !strings.HasPrefix(e.URL, "http://") && !strings.HasPrefix(e.URL, "https://") {
			t.Fatalf("ParseLink(%q): URL %q is not a web link", s, e.URL)
		}
		if e.Host == "" || len(e.URL) > MaxURL+16 {
			t.Fatalf("ParseLink(%q): host %q, URL of %d bytes", s, e.Host, len(e.URL))
		}
		if e.Src == "" {
			return
		}
		ok := false
		for _, o := range origins {
			ok = ok || strings.HasPrefix(e.Src, o+"/")
		}
		if !ok {
			t.Fatalf("ParseLink(%q): player %q is on no allowed origin", s, e.Src)
		}
		for _, r := range e.Src {
			if r <= ' ' || r > '~' || strings.ContainsRune(`"'<>\`+"`", r) {
				t.Fatalf("ParseLink(%q): player %q holds %q", s, e.Src, r)
			}
		}
	})
}
