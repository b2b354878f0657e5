package music_test

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/load"
	"github.com/tutti-dev/tutti/internal/music"
)

// smallWorld is the tests' seed: small enough for a few seconds.
var smallWorld = music.SeedSize{Users: 20, Songs: 200, Audios: 50, Comments: 300, Likes: 300, Friendships: 40}

// seedSmall seeds smallWorld into m and returns the ids and their file.
func seedSmall(t *testing.T, m *app.Main) (*music.SeedIDs, string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "music.json")
	ids, err := music.Seed(context.Background(), m.DB, m.Files, smallWorld, music.SeedPassword, file, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	return ids, file
}

// The seed makes the world it says, on each database: counts that match
// the posts' counters, the hub friends with everyone and the rest by a
// power law, tags indexed and trending, links that play; its people sign
// in with the seed's password and see their friends' posts, and a tag's
// page lists its posts. A second seed of the same database is refused.
func TestSeedSmallWorld(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ctx := context.Background()
		ids, _ := seedSmall(t, m)
		if len(ids.Users) != smallWorld.Users || len(ids.Songs) != smallWorld.Songs || ids.Hub != ids.Users[0] || ids.Password != music.SeedPassword {
			t.Fatalf("ids: %d users, %d songs, hub %q; want %d, %d, the first user", len(ids.Users), len(ids.Songs), ids.Hub, smallWorld.Users, smallWorld.Songs)
		}
		var posts, links, comments, likes, likeSum, commentSum, friendRows, hubFriends, topOther, tagged, private int64
		if err := db.Scan(m.DB.QueryRow(ctx, `SELECT count(*), count(CASE WHEN kind = 'link' THEN 1 END), sum(likes), sum(comments),
			count(CASE WHEN visibility = 'friends' THEN 1 END) FROM music_posts`), &posts, &links, &likeSum, &commentSum, &private); err != nil {
			t.Fatal(err)
		}
		if err := db.Scan(m.DB.QueryRow(ctx, `SELECT (SELECT count(*) FROM music_comments), (SELECT count(*) FROM music_likes),
			(SELECT count(*) FROM music_friends), (SELECT count(DISTINCT post_id) FROM music_tags)`), &comments, &likes, &friendRows, &tagged); err != nil {
			t.Fatal(err)
		}
		if err := db.Scan(m.DB.QueryRow(ctx, `SELECT count(*) FROM music_friends f JOIN users u ON u.id = f.user_id WHERE u.username = ?`, ids.Hub), &hubFriends); err != nil {
			t.Fatal(err)
		}
		if err := db.Scan(m.DB.QueryRow(ctx, `SELECT max(n) FROM (SELECT count(*) AS n FROM music_friends f JOIN users u ON u.id = f.user_id
			WHERE u.username <> ? GROUP BY f.user_id) AS d`, ids.Hub), &topOther); err != nil {
			t.Fatal(err)
		}
		if posts != 250 || links != 200 || comments != 300 || commentSum != 300 || likes != likeSum || likes < 250 || tagged != 250 {
			t.Errorf("%d posts (%d links), %d comments (counters %d), %d likes (counters %d), %d tagged; want 250, 200, 300, 300, about 300 matching, 250",
				posts, links, comments, commentSum, likes, likeSum, tagged)
		}
		if private == 0 || private > 125 {
			t.Errorf("%d friends-only posts of 250; want about a fifth", private)
		}
		checkAudios(t, m, ids)
		if hubFriends != 19 || friendRows%2 != 0 || friendRows < 2*(19+30) || topOther < 5 {
			t.Errorf("hub has %d friends, %d friendship rows, the next most-friended %d; want 19, an even number of at least 98, at least 5",
				hubFriends, friendRows, topOther)
		}
		// Every link is one music shows as a player or a card.
		rows, err := m.DB.Query(ctx, `SELECT url FROM music_posts WHERE kind = 'link'`)
		if err != nil {
			t.Fatal(err)
		}
		players := 0
		for rows.Next() {
			var u string
			if err := rows.Scan(&u); err != nil {
				t.Fatal(err)
			}
			e, err := music.ParseLink(u)
			if err != nil {
				t.Errorf("seeded link %q: %v", u, err)
			}
			if e.Player() {
				players++
			}
		}
		rows.Close()
		if players < 150 {
			t.Errorf("%d of 200 links play in the page; want most", players)
		}
		top, err := music.NewStore(m.DB, time.Now).Trending().Top(ctx, m.DB, 5)
		if err != nil || len(top) == 0 {
			t.Fatalf("trending: %v, %v; want tags", top, err)
		}

		// The hub signs in with the seed's password and sees friends' posts.
		m.Auth.SetLimits(auth.Limits{})
		hub := visitorOf(t, m)
		res, body := hub.Post("/account/login", url.Values{"login": {ids.Hub}, "password": {ids.Password}})
		apptest.WantStatus(t, res, body, http.StatusSeeOther)
		res, body = hub.Get("/music/")
		apptest.WantStatus(t, res, body, http.StatusOK)
		if n := len(postIDs.FindAllString(body, -1)); n < 10 {
			t.Errorf("the hub's discovery shows %d posts; want a page of them", n)
		}
		res, body = hub.Get("/music/tags/" + top[0].Tag)
		apptest.WantStatus(t, res, body, http.StatusOK)
		if n := len(postIDs.FindAllString(body, -1)); n == 0 {
			t.Errorf("the tag page of #%s shows no post", top[0].Tag)
		}
		res, body = hub.Get("/music/u/" + ids.Users[1])
		apptest.WantStatus(t, res, body, http.StatusOK)
		// The audio timeline, and an audio played from its middle.
		res, body = hub.Get("/music/audio")
		apptest.WantStatus(t, res, body, http.StatusOK)
		if n := len(postIDs.FindAllString(body, -1)); n < 10 {
			t.Errorf("the audio timeline shows %d posts; want a page of them", n)
		}
		res, body = hub.Do("GET", "/music/p/"+strconv.FormatInt(ids.Audios[0], 10)+"/audio", nil, http.Header{"Range": {"bytes=100-199"}})
		if res.StatusCode != http.StatusPartialContent || len(body) != 100 || !strings.HasPrefix(res.Header.Get("Content-Range"), "bytes 100-199/") {
			t.Errorf("a range of a seeded audio: %d, %d bytes, %q; want 206, 100 bytes", res.StatusCode, len(body), res.Header.Get("Content-Range"))
		}

		if _, err := music.Seed(ctx, m.DB, m.Files, smallWorld, music.SeedPassword, "", nil, 2); err == nil || !strings.Contains(err.Error(), "already") {
			t.Errorf("a second seed: %v; want it refused", err)
		}
	})
}

// `tutti seed music` is registered, takes its sizes as flags and writes
// the ids where the load tool reads them.
func TestSeedCommand(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	env := app.Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }, Version: "test",
		Args: []string{"seed", "music", "--data-dir", dir, "--log-level", "warn", "--users", "5", "--songs", "30", "--audios", "0",
			"--comments", "20", "--likes", "10", "--friendships", "4"}}
	if code := app.Run(context.Background(), env); code != 0 {
		t.Fatalf("tutti seed music: exit %d: %s", code, errb.String())
	}
	ids, err := music.LoadSeedIDs(filepath.Join(dir, "seed", "music.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ids.Users) != 5 || len(ids.Songs) != 30 || !strings.Contains(out.String(), "seeded music") {
		t.Errorf("%d users, %d songs, output %q; want 5, 30, a summary", len(ids.Users), len(ids.Songs), out.String())
	}
	errb.Reset()
	if code := app.Run(context.Background(), env); code == 0 || !strings.Contains(errb.String(), "already") {
		t.Errorf("a second seed: exit %d, %q; want refused", code, errb.String())
	}
	env.Args = []string{"seed", "music", "--data-dir", t.TempDir(), "--users", "1"}
	if code := app.Run(context.Background(), env); code == 0 {
		t.Error("a seed of one user accepted")
	}
	scenarios := app.Scenarios()
	for _, name := range []string{"music", "music-listen"} {
		sc, err := scenarios[name](load.Options{})
		if err != nil || sc.Name != name || len(sc.Phases) == 0 {
			t.Errorf("%s listed as %+v, %v", name, sc, err)
		}
	}
}

// The critical path runs against a seeded site with no failed request or
// session: new users and returning ones, each step as its page says.
func TestLoadCritical(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		_, file := seedSmall(t, m)
		critical(t, m, file, 5, "20ms")
	})
}

// A site with few posts, where the load test's own songs (deleted by
// their sessions at any moment) fill the first pages: the comments and
// likes go to the posts that stay, read further down, with no 404.
func TestLoadCriticalCrowded(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		file := filepath.Join(t.TempDir(), "music.json")
		if _, err := music.Seed(context.Background(), m.DB, m.Files, music.SeedSize{Users: 4, Songs: 4, Audios: 2, Comments: 5, Likes: 5},
			music.SeedPassword, file, nil, 1); err != nil {
			t.Fatal(err)
		}
		critical(t, m, file, 12, "300ms")
	})
}

// unpaced turns music's posting limits off on every instance of m, as a
// load run's --rate-limits=false does: the scenario's few seeded people
// post and upload more than a burst's worth in a second.
func unpaced(t *testing.T, m *app.Main) {
	for _, inst := range apptest.Instances(m) {
		apptest.AppOf[*music.App](t, inst).Service().UseLimits(music.Limits{})
	}
}

// critical runs the music scenario on m for two seconds at rate new
// people a second, think the longest pause, and checks its outcome.
func critical(t *testing.T, m *app.Main, file string, rate float64, think string) {
	t.Helper()
	{
		m.Auth.SetLimits(auth.Limits{})
		unpaced(t, m)
		u, _ := url.Parse(m.URL())
		sc, err := music.LoadScenarios()["music"](load.Options{Target: u, SeedFile: file, Params: map[string]string{"think": think}})
		if err != nil {
			t.Fatal(err)
		}
		var failures sync.Map // a session kind's first error
		for i, ss := range sc.Sessions {
			sc.Sessions[i].Run = func(ctx context.Context, c *load.Client) error {
				err := ss.Run(ctx, c)
				if err != nil {
					failures.LoadOrStore(ss.Name, err.Error())
				}
				return err
			}
		}
		res, err := load.Run(context.Background(), sc, load.Config{Target: u, Phases: load.Rates(2*time.Second, rate), Timeout: time.Minute, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		if res.Totals.Errors != 0 || res.Totals.SessionsFailed != 0 || res.Totals.Sessions < 4 {
			first := map[string]any{}
			failures.Range(func(k, v any) bool { first[k.(string)] = v; return true })
			t.Fatalf("%d sessions, %d failed %v (first: %v), %d request errors %v %v; want none failed",
				res.Totals.Sessions, res.Totals.SessionsFailed, res.Failed, first, res.Totals.Errors, res.Errors, res.ErrorExamples)
		}
		count := map[string]int64{}
		for _, st := range res.Requests {
			count[st.Name] = st.Count
		}
		for _, st := range res.Samples {
			count[st.Name] = st.Count
		}
		sessions := map[string]int64{}
		for _, st := range res.Sessions {
			sessions[st.Name] = st.Count
		}
		ret, fresh := sessions["returning"], sessions["new_user"]
		if count["post_song"] != ret || count["delete_song"] != ret || count["comment"] != ret || count["like"] != ret ||
			count["signup"] != fresh || count["edit_profile"] != fresh || count["delete_account"] != fresh {
			t.Errorf("requests %v for %d returning and %d new users", count, ret, fresh)
		}
		if count["upload_audio"]+count["skipped_upload_audio"] != ret || count["browse_audios"]+count["skipped_browse_audios"] != ret {
			t.Errorf("audio steps: %v for %d returning users", count, ret)
		}
		// The new users are gone, the songs posted deleted.
		var left, songs int64
		if err := db.Scan(m.DB.QueryRow(ctx(), `SELECT count(*) FROM users WHERE username LIKE 'ld%'`), &left); err != nil {
			t.Fatal(err)
		}
		if err := db.Scan(m.DB.QueryRow(ctx(), `SELECT count(*) FROM music_posts WHERE kind = 'link' AND comment LIKE '%(song ld%'`), &songs); err != nil {
			t.Fatal(err)
		}
		var memos int64
		if err := db.Scan(m.DB.QueryRow(ctx(), `SELECT count(*) FROM music_posts p JOIN media_files f ON f.id = p.media_id
			WHERE p.kind = 'audio' AND p.comment LIKE 'Voice memo ld%'`), &memos); err != nil {
			t.Fatal(err)
		}
		if left != 0 || songs != 0 || memos != ret || count["upload_audio"] != ret {
			t.Errorf("%d new users and %d load-test songs left, %d audios uploaded (%d requests); want none, none, %d",
				left, songs, memos, count["upload_audio"], ret)
		}
	}
}

func ctx() context.Context { return context.Background() }

// checkAudios: each seeded audio post has its file in the upload storage,
// a ready media original of the post with the file's size, a waveform
// of 200 bars that is not flat and its length; some comments are pinned
// to a moment inside it.
func checkAudios(t *testing.T, m *app.Main, ids *music.SeedIDs) {
	t.Helper()
	rows, err := m.DB.Query(ctx(), `SELECT p.id, p.duration_ms, p.peaks, p.ready, f.key, f.size, f.status, f.ref, f.owner_id = p.author_id
		FROM music_posts p JOIN media_files f ON f.id = p.media_id WHERE p.kind = 'audio' ORDER BY p.id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id, dur, size, ref int64
		var ready int
		var peaks []byte
		var key, status string
		var owner bool
		if err := rows.Scan(&id, &dur, &peaks, &ready, &key, &size, &status, &ref, &owner); err != nil {
			t.Fatal(err)
		}
		n++
		loud := 0
		for _, p := range peaks {
			if p > 128 {
				loud++
			}
		}
		if dur < 1000 || dur > 2000 || len(peaks) != 200 || loud == 0 || loud == 200 || ready != 1 || status != "ready" || ref != id || !owner {
			t.Errorf("audio %d: %d ms, %d bars (%d loud), ready %d, file %s %s of ref %d (owner %v)", id, dur, len(peaks), loud, ready, key, status, ref, owner)
			continue
		}
		f, err := m.Files.Open(ctx(), key)
		if err != nil {
			t.Errorf("audio %d: file %s: %v", id, key, err)
			continue
		}
		b := make([]byte, 12)
		got, _ := f.Seek(0, 2)
		f.Seek(0, 0)
		f.Read(b)
		f.Close()
		if got != size || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
			t.Errorf("audio %d: file of %d bytes starting %q; want %d, a WAV", id, got, b, size)
		}
	}
	if n != 50 || len(ids.Audios) == 0 || len(ids.Audios) > 50 {
		t.Errorf("%d audio posts with their files, %d public in the ids; want 50, most", n, len(ids.Audios))
	}
	var pinned, outside int64
	if err := db.Scan(m.DB.QueryRow(ctx(), `SELECT count(c.at_ms), count(CASE WHEN c.at_ms < 0 OR c.at_ms >= p.duration_ms THEN 1 END)
		FROM music_comments c JOIN music_posts p ON p.id = c.post_id`), &pinned, &outside); err != nil {
		t.Fatal(err)
	}
	if pinned == 0 || outside != 0 {
		t.Errorf("%d comments pinned to a moment, %d outside their audio; want some, none", pinned, outside)
	}
}

// Listeners play the seeded audios to their ends through Range requests
// (each answered 206 with the file's length) while two users post songs,
// with no failed request; the report has the first bytes' times and the
// time per MiB.
func TestLoadListen(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		_, file := seedSmall(t, m)
		m.Auth.SetLimits(auth.Limits{})
		unpaced(t, m)
		u, _ := url.Parse(m.URL())
		for _, pace := range []string{"fast", "play"} {
			sc, err := music.LoadScenarios()["music-listen"](load.Options{Target: u, SeedFile: file,
				Params: map[string]string{"posters": "2", "rate": "4", "chunk": "4096", "pace": pace, "think": "10ms"}})
			if err != nil {
				t.Fatal(err)
			}
			res, err := load.Run(context.Background(), sc, load.Config{Target: u, Closed: 8, Duration: 2 * time.Second, Timeout: time.Minute, Seed: 5})
			if err != nil {
				t.Fatal(err)
			}
			if res.Totals.Errors != 0 || res.Totals.SessionsFailed != 0 {
				t.Fatalf("pace %s: %d failed sessions %v, %d request errors %v %v", pace, res.Totals.SessionsFailed, res.Failed,
					res.Totals.Errors, res.Errors, res.ErrorExamples)
			}
			count := map[string]int64{}
			for _, st := range append(res.Requests, res.Samples...) {
				count[st.Name] = st.Count
			}
			// A file is 16 to 32 KB: four to eight 4 KiB ranges.
			ranges := int64(3) // a file played to its end; playing, the run may end one
			if pace == "play" {
				ranges = 1
			}
			if count["audio_first"] == 0 || count["audio_range"] < ranges*count["audio_first"] || count["ttfb"] != count["audio_first"]+count["audio_range"] ||
				count["post_song"] == 0 || (pace == "fast") != (count["ms_per_MiB"] > 0) {
				t.Errorf("pace %s: %v; want files played to their ends, a ttfb for each range, songs posted", pace, count)
			}
		}
	})
}
