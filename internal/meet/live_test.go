package meet_test

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/cache"
	"github.com/tutti-dev/tutti/internal/meet"
	"github.com/tutti-dev/tutti/internal/web"
)

// openStream opens an event stream and sends the names of its events.
func openStream(t *testing.T, ctx context.Context, u string) <-chan string {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", u, nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: %d %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
	out := make(chan string, 16)
	go func() {
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			if ev, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
				out <- ev
			}
		}
		close(out)
	}()
	return out
}

// waitFor polls ok in real time: the streams are real TCP connections to
// the whole server, which testing/synctest cannot fake.
func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for range 500 {
		if ok() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("timed out waiting")
}

// streams is the count of meet's live streams open on m's instances (nginx
// sends each to either).
func streams(t testing.TB, m *app.Main) int {
	t.Helper()
	n := 0
	for _, i := range apptest.Instances(m) {
		n += apptest.AppOf[*meet.App](t, i).Streams()
	}
	return n
}

func nextEvent(t *testing.T, events <-chan string, want string) {
	t.Helper()
	select {
	case ev := <-events:
		if ev != want {
			t.Fatalf("event %q; want %q", ev, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("no %q event", want)
	}
}

// TestPollStream: a poll's stream tells of every change to its page after
// the commit (answers, comments, the organizer's edits), and only of its
// own poll's; a change made on another instance arrives through the bus; an
// id that names no poll is a 404 after at most one lookup.
func TestPollStream(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		s := newSite(t, m)
		before := apptest.Queries(m)
		if res, _ := s.get("/meet/polls/nonsense/stream"); res.StatusCode != 404 {
			t.Errorf("malformed id: %d; want 404", res.StatusCode)
		}
		if n := apptest.Queries(m) - before; n != 0 {
			t.Errorf("a malformed id cost %d queries; want none", n)
		}
		before = apptest.Queries(m)
		if res, _ := s.get("/meet/polls/AAAAAAAAAAAAAAAAAAAAAA/stream"); res.StatusCode != 404 {
			t.Errorf("unknown poll: %d; want 404", res.StatusCode)
		}
		if n := apptest.Queries(m) - before; n > 1 {
			t.Errorf("an unknown poll cost %d queries; want one lookup", n)
		}

		pub, admin := s.createPoll("Live")
		other, _ := s.createPoll("Quiet")
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		events := openStream(t, ctx, m.URL()+pub+"/stream")
		quiet := openStream(t, ctx, m.URL()+other+"/stream")
		waitFor(t, func() bool { return streams(t, m) == 2 })

		ada := s.join(pub, "Ada")
		nextEvent(t, events, "answers")
		day := time.Now().AddDate(0, 0, 10).Format("2006-01-02")
		s.mustRedirect(s.post(ada+"/timeframes", url.Values{"date": {day}, "start": {"10:00"}, "end": {"11:00"}, "tier": {"1"}, "tz": {"Europe/Berlin"}}))
		nextEvent(t, events, "answers")
		s.mustRedirect(s.post(ada+"/comments", url.Values{"body": {"fine by me"}}))
		nextEvent(t, events, "answers")
		s.mustRedirect(s.post(admin, pollForm("Live, renamed", time.Now().AddDate(0, 0, 10))))
		nextEvent(t, events, "poll")

		// Another instance (a second meet.App on the same database and bus)
		// takes an answer: this instance's stream hears of it.
		assets, err := meet.Module().Assets()
		if err != nil {
			t.Fatal(err)
		}
		o, err := meet.New(meet.Deps{DB: m.DB, Cache: cache.New(cache.NewLocal(8 << 20)), Site: m.Site, Log: m.Log, Bus: m.Bus, Assets: assets})
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
		mux := http.NewServeMux()
		o.Routes(web.NewRouter(mux, "/meet"))
		srv := httptest.NewServer(mux)
		defer srv.Close()
		w2 := &apptest.Web{T: t, Client: apptest.Client(t), Base: srv.URL}
		s2 := &site{Web: w2, t: t, m: m, c: w2.Client, base: w2.Base}
		s2.join(pub, "Grace")
		nextEvent(t, events, "answers")

		select {
		case ev := <-quiet:
			t.Errorf("the other poll's stream got %q", ev)
		default:
		}
		// Deleting the poll tells its page too.
		s.mustRedirect(s.post(admin+"/delete", nil))
		nextEvent(t, events, "poll")
	})
}
