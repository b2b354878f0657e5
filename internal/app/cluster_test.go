package app_test

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/config"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/redisx/redistest"
)

// twoInstances starts two servers on one PostgreSQL schema and one Redis
// (a key prefix of the test's own), each with its own embedded bus: what
// one instance changes, the other can only learn through the database and
// Redis.
func twoInstances(t *testing.T) (a, b *app.Main) {
	t.Helper()
	pg := os.Getenv(dbtest.Env)
	if pg == "" {
		t.Skip(dbtest.Env + " not set")
	}
	ru := redistest.URL(t)
	schema, prefix := dbtest.FreshSchema(t, pg), redistest.Prefix(t, ru)
	set := func(c *config.Config) { c.DatabaseURL, c.RedisURL, c.RedisPrefix = schema, ru, prefix }
	a = apptest.StartWith(t, set)
	b = apptest.StartWith(t, set)
	return a, b
}

// A change made through instance A is on instance B's next page, though B
// had the page cached: a meet poll's participants and roar's timeline.
func TestClusterChangeSeenOnOtherInstance(t *testing.T) {
	a, b := twoInstances(t)
	wa := apptest.NewWeb(t, a)
	wb := &apptest.Web{T: t, Client: wa.Client, Base: b.URL()} // one browser, two instances

	start := time.Now().AddDate(0, 0, 10)
	res, body := wa.Post("/meet/polls", url.Values{
		"title": {"Cluster planning"}, "start_date": {start.Format("2006-01-02")},
		"end_date":  {start.AddDate(0, 0, 2).Format("2006-01-02")},
		"day_start": {"09:00"}, "day_end": {"17:00"}, "tz": {"Europe/Berlin"},
	})
	apptest.WantStatus(t, res, body, http.StatusSeeOther)
	m := regexp.MustCompile(`^/meet/polls/([A-Za-z0-9_-]{22})/admin/`).FindStringSubmatch(res.Header.Get("Location"))
	if m == nil {
		t.Fatalf("admin link %q", res.Header.Get("Location"))
	}
	pub := "/meet/polls/" + m[1]
	visitor := apptest.NewWeb(t, b)
	res, body = visitor.Get(pub)
	apptest.WantStatus(t, res, body, http.StatusOK)
	if strings.Contains(body, "Grace") {
		t.Fatal("Grace on the page before she joined")
	}
	res, body = wa.Post(pub+"/participants", url.Values{"name": {"Grace"}})
	apptest.WantStatus(t, res, body, http.StatusSeeOther)
	if res, body = visitor.Get(pub); !strings.Contains(body, "Grace") {
		t.Errorf("B's poll page (%d) does not show the participant who joined through A", res.StatusCode)
	}

	res, body = wa.Post("/account/signup", url.Values{"username": {"ada"}, "email": {"ada@example.com"}, "password": {"password1"}})
	apptest.WantStatus(t, res, body, http.StatusSeeOther)
	res, body = visitor.Get("/roar/")
	apptest.WantStatus(t, res, body, http.StatusOK)
	res, body = wa.Post("/roar/roars", url.Values{"body": {"hello from instance A"}})
	if res.StatusCode >= 400 {
		t.Fatalf("roar through A: %d %s", res.StatusCode, body)
	}
	if _, body = visitor.Get("/roar/"); !strings.Contains(body, "hello from instance A") {
		t.Error("B's public timeline does not show the roar posted through A")
	}
	if _, body = wb.Get("/roar/"); !strings.Contains(body, "hello from instance A") {
		t.Error("B's timeline for the author (session from Redis) does not show the roar")
	}
}

// The login limit (5 attempts per account) counts across instances: five
// attempts spread over A and B use it up, the sixth is refused.
func TestClusterLoginLimitShared(t *testing.T) {
	a, b := twoInstances(t)
	ws := []*apptest.Web{apptest.NewWeb(t, a), apptest.NewWeb(t, b)}
	for i := range 6 {
		res, body := ws[i%2].Post("/account/login", url.Values{"login": {"nobody"}, "password": {"wrong-password"}})
		limited := res.StatusCode == http.StatusTooManyRequests
		if i < 5 && limited {
			t.Fatalf("attempt %d refused within the limit: %s", i+1, body)
		}
		if i == 5 && !limited {
			t.Fatalf("attempt 6 (on B, 2 before there) got %d; want 429: the limit is per instance", res.StatusCode)
		}
	}
	// The count's key names its limiter once: rl:login-account:nobody.
	ctx := context.Background()
	if n, err := a.Redis.Exists(ctx, "rate:"+a.Shared.Key("rl", "login-account", "nobody")).Result(); err != nil || n != 1 {
		t.Errorf("the count at rate:%s: %d, %v; want it there", a.Shared.Key("rl", "login-account", "nobody"), n, err)
	}
}
