package auth_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/config"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/ratelimit"
	"github.com/tutti-dev/tutti/internal/redisx/redistest"
)

// browser drives a running server like a browser without JavaScript
// (apptest.Web, with this file's short names).
type browser struct {
	*apptest.Web
	t    *testing.T
	m    *app.Main
	c    *http.Client
	base string
}

func newBrowser(t *testing.T, m *app.Main) *browser {
	w := apptest.NewWeb(t, m)
	return &browser{Web: w, t: t, m: m, c: w.Client, base: w.Base}
}

func (b *browser) do(method, path string, body io.Reader, header http.Header) (*http.Response, string) {
	b.t.Helper()
	return b.Do(method, path, body, header)
}

func (b *browser) get(path string) (*http.Response, string) { b.t.Helper(); return b.Get(path) }

func (b *browser) post(path string, form url.Values) (*http.Response, string) {
	b.t.Helper()
	return b.Post(path, form)
}

func (b *browser) cookie(name string) *http.Cookie { return b.Cookie(name) }

func wantStatus(t *testing.T, res *http.Response, body string, want int) {
	t.Helper()
	apptest.WantStatus(t, res, body, want)
}

func wantRedirect(t *testing.T, res *http.Response, body, to string) {
	t.Helper()
	apptest.WantStatus(t, res, body, http.StatusSeeOther)
	if got := res.Header.Get("Location"); got != to {
		t.Fatalf("%s %s: redirect to %q; want %q", res.Request.Method, res.Request.URL, got, to)
	}
}

func (b *browser) signup(name, email, pw string) {
	b.t.Helper()
	res, body := b.post("/account/signup", url.Values{"username": {name}, "email": {email}, "password": {pw}})
	wantRedirect(b.t, res, body, "/account/settings?welcome=1")
}

func (b *browser) login(login, pw string) {
	b.t.Helper()
	res, body := b.post("/account/login", url.Values{"login": {login}, "password": {pw}})
	wantRedirect(b.t, res, body, "/")
}

// signedInAs returns the username the settings page greets, or "" when it
// sends the browser to the login page.
func (b *browser) signedInAs() string {
	b.t.Helper()
	res, body := b.get("/account/settings")
	if res.StatusCode == http.StatusSeeOther {
		return ""
	}
	wantStatus(b.t, res, body, 200)
	_, rest, _ := strings.Cut(body, "Signed in as <strong>")
	name, _, _ := strings.Cut(rest, "<")
	return name
}

func TestSignupLoginLogout(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		b := newBrowser(t, m)
		if got := b.signedInAs(); got != "" {
			t.Fatalf("fresh browser signed in as %q", got)
		}
		res, body := b.post("/account/signup", url.Values{"username": {"Alice"}, "email": {"Alice@Example.com"}, "password": {"correct horse"}})
		wantRedirect(t, res, body, "/account/settings?welcome=1")
		var sess *http.Cookie
		for _, c := range res.Cookies() {
			if c.Name == auth.CookieName {
				sess = c
			}
		}
		if sess == nil || !sess.HttpOnly || sess.SameSite != http.SameSiteLaxMode || sess.Path != "/" || sess.Secure {
			t.Fatalf("session cookie %+v; want HttpOnly, SameSite=Lax, Path=/, not Secure over plain HTTP", sess)
		}
		if sess.MaxAge < 29*86400 {
			t.Errorf("session cookie MaxAge %d; want about 30 days", sess.MaxAge)
		}
		if c := b.cookie(auth.UserCookieName); c == nil || c.Value != "Alice" {
			t.Fatalf("tutti_user cookie %+v; want Alice", c)
		}
		if got := b.signedInAs(); got != "Alice" {
			t.Fatalf("signed in as %q; want Alice", got)
		}
		res, body = b.get("/account/settings")
		if !strings.Contains(body, `data-state="user"`) || !strings.Contains(res.Header.Get("Cache-Control"), "private") {
			t.Errorf("settings page: header not rendered for the user or not private (Cache-Control %q)", res.Header.Get("Cache-Control"))
		}

		res, body = b.post("/account/logout", nil)
		wantRedirect(t, res, body, "/account/login?bye=1")
		if b.cookie(auth.CookieName) != nil || b.cookie(auth.UserCookieName) != nil {
			t.Error("cookies kept after logout")
		}
		if got := b.signedInAs(); got != "" {
			t.Fatalf("after logout signed in as %q", got)
		}
		res, body = b.get("/account/logout")
		wantStatus(t, res, body, http.StatusMethodNotAllowed)

		// Log in by username (any case) and by e-mail (any case).
		for _, login := range []string{"alice", "ALICE@example.com"} {
			b2 := newBrowser(t, m)
			b2.login(login, "correct horse")
			if got := b2.signedInAs(); got != "Alice" {
				t.Errorf("login %q: signed in as %q; want Alice", login, got)
			}
		}
		// ?next= returns to a same-site path.
		b3 := newBrowser(t, m)
		res, body = b3.post("/account/login", url.Values{"login": {"alice"}, "password": {"correct horse"}, "next": {"/meet/polls/new"}})
		wantRedirect(t, res, body, "/meet/polls/new")

		res, body = b.get("/account/u/ALICE")
		wantStatus(t, res, body, 200)
		if !strings.Contains(body, "@Alice") {
			t.Error("profile page does not show @Alice")
		}
		res, body = b.get("/account/u/nobody")
		wantStatus(t, res, body, 404)
	})
}

func TestSignupValidation(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		newBrowser(t, m).signup("taken", "taken@example.com", "password1")
		cases := []struct {
			name  string
			form  url.Values
			field string
			msg   string
		}{
			{"empty username", url.Values{"username": {""}, "email": {"a@example.com"}, "password": {"password1"}}, "username", "Choose a username."},
			{"bad username", url.Values{"username": {"a b"}, "email": {"a@example.com"}, "password": {"password1"}}, "username", "Use only letters"},
			{"taken username", url.Values{"username": {"TAKEN"}, "email": {"a@example.com"}, "password": {"password1"}}, "username", "That username is taken."},
			{"taken e-mail", url.Values{"username": {"fresh"}, "email": {"Taken@Example.com"}, "password": {"password1"}}, "email", "cannot be used"},
			{"bad e-mail", url.Values{"username": {"fresh"}, "email": {"nope"}, "password": {"password1"}}, "email", "does not look like"},
			{"short password", url.Values{"username": {"fresh"}, "email": {"a@example.com"}, "password": {"short"}}, "password", "At least 8"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				b := newBrowser(t, m)
				res, body := b.post("/account/signup", c.form)
				wantStatus(t, res, body, http.StatusUnprocessableEntity)
				if !strings.Contains(body, `id="`+c.field+`-error"`) || !strings.Contains(body, c.msg) {
					t.Errorf("no %q message for %s", c.msg, c.field)
				}
				if v := c.form.Get("email"); v != "" && !strings.Contains(body, `value="`+v+`"`) {
					t.Errorf("e-mail %q not kept in the form", v)
				}
				if strings.Contains(body, "password1") {
					t.Error("password echoed back in the form")
				}
				if b.cookie(auth.CookieName) != nil {
					t.Error("a session was started by a failed sign-up")
				}
			})
		}
		var n int
		if err := m.DB.QueryRow(context.Background(), "SELECT COUNT(*) FROM users").Scan(&n); err != nil || n != 1 {
			t.Errorf("users after bad sign-ups: %d (%v); want 1", n, err)
		}
	})
}

func TestLoginFailuresLookAlike(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		newBrowser(t, m).signup("bob", "bob@example.com", "password1")
		b := newBrowser(t, m)
		res1, body1 := b.post("/account/login", url.Values{"login": {"bob@example.com"}, "password": {"wrong-password"}})
		res2, body2 := b.post("/account/login", url.Values{"login": {"nobody@example.com"}, "password": {"wrong-password"}})
		res3, body3 := b.post("/account/login", url.Values{"login": {"nobody"}, "password": {"wrong-password"}})
		for i, r := range []*http.Response{res1, res2, res3} {
			if r.StatusCode != http.StatusUnauthorized {
				t.Errorf("try %d: status %d; want 401", i, r.StatusCode)
			}
		}
		msg := "Wrong username, e-mail or password."
		for i, body := range []string{body1, body2, body3} {
			if !strings.Contains(body, msg) {
				t.Errorf("try %d: no %q", i, msg)
			}
		}
		if !strings.Contains(body2, `value="nobody@example.com"`) {
			t.Error("login not kept in the form")
		}
		res, body := b.post("/account/login", url.Values{"login": {""}, "password": {""}})
		wantStatus(t, res, body, http.StatusUnprocessableEntity)
	})
}

func TestTokenRotatesAndPasswordChangeEndsOtherSessions(t *testing.T) {
	apptest.Each(t, sessionLifecycle)
}

// The same with the sessions in Redis (--session-store redis): Redis holds
// a copy of each session under its token's hash, expiring with it, beside
// the database's (the truth), and logging out removes both.
func TestSessionsInRedis(t *testing.T) {
	url := redistest.URL(t)
	m := apptest.StartWith(t, func(c *config.Config) { c.RedisURL = url })
	if m.Config.SessionStore != "redis" {
		t.Fatalf("session store %q; want redis", m.Config.SessionStore)
	}
	sessionLifecycle(t, m)

	b := newBrowser(t, m)
	b.signup("dora", "dora@example.com", "password1")
	token := b.cookie(auth.CookieName).Value
	sum := sha256.Sum256([]byte(token))
	key := "tutti:session:" + base64.RawURLEncoding.EncodeToString(sum[:])
	ctx := context.Background()
	if n, err := m.Redis.Exists(ctx, key, "tutti:session:"+token).Result(); err != nil || n != 1 {
		t.Fatalf("keys for the session: %d (%v); want the hashed one only", n, err)
	}
	if ttl, err := m.Redis.TTL(ctx, key).Result(); err != nil || ttl <= 0 || ttl > auth.Lifetime {
		t.Errorf("session TTL %v (%v); want it to expire within %v", ttl, err, auth.Lifetime)
	}
	inDB := func() int {
		t.Helper()
		var n int
		if err := db.Scan(m.DB.QueryRow(ctx, "SELECT COUNT(*) FROM sessions WHERE token = ?", base64.RawURLEncoding.EncodeToString(sum[:])), &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := inDB(); n != 1 {
		t.Errorf("the session is %d times in the database; want once (the truth, beside Redis's copy)", n)
	}
	res, body := b.post("/account/logout", nil)
	wantRedirect(t, res, body, "/account/login?bye=1")
	if n, _ := m.Redis.Exists(ctx, key).Result(); n != 0 {
		t.Error("the session is still in Redis after logout")
	}
	if n := inDB(); n != 0 {
		t.Error("the session is still in the database after logout")
	}
}

// Redis stopped under a signed-in user: no 5xx, and the user stays signed
// in (the database has the session); signing in again works meanwhile.
// Redis comes back empty (no persistence): the sessions are read from the
// database and put back in Redis.
func TestSessionsSurviveRedisStopping(t *testing.T) {
	srv := redistest.Start(t)
	m := apptest.StartWith(t, func(c *config.Config) {
		c.RedisURL, c.RedisPrefix = srv.URL(), "authtest:"
		c.RateLimits = false
	})
	b := newBrowser(t, m)
	b.signup("erin", "erin@example.com", "password1")
	if got := b.signedInAs(); got != "erin" {
		t.Fatalf("signed in as %q; want erin", got)
	}
	srv.Stop()
	for _, path := range []string{"/account/settings", "/", "/meet/", "/roar/"} {
		res, body := b.get(path)
		if res.StatusCode >= 500 {
			t.Fatalf("GET %s with Redis down: %d %s", path, res.StatusCode, body)
		}
	}
	if got := b.signedInAs(); got != "erin" {
		t.Errorf("with Redis down signed in as %q; want erin (the database has the session)", got)
	}
	b.login("erin", "password1")
	if got := b.signedInAs(); got != "erin" {
		t.Fatalf("after signing in again with Redis down: %q; want erin", got)
	}
	res, body := b.post("/roar/roars", url.Values{"body": {"still here"}})
	if res.StatusCode >= 500 {
		t.Fatalf("roar with Redis down: %d %s", res.StatusCode, body)
	}
	srv.Start()
	redistest.WaitUnpaused(t, m.Shared) // the guard's pause after a failure
	if got := b.signedInAs(); got != "erin" {
		t.Errorf("with Redis back (empty): signed in as %q; want erin (the database kept the session)", got)
	}
	sum := sha256.Sum256([]byte(b.cookie(auth.CookieName).Value))
	if n, err := m.Redis.Exists(context.Background(), "authtest:session:"+base64.RawURLEncoding.EncodeToString(sum[:])).Result(); err != nil || n != 1 {
		t.Errorf("the session read from the database is not back in Redis: %d (%v)", n, err)
	}
	res, body = b.post("/account/logout", nil)
	wantRedirect(t, res, body, "/account/login?bye=1")
}

func sessionLifecycle(t *testing.T, m *app.Main) {
	m.Auth.SetLimits(auth.Limits{}) // many logins of one account
	a := newBrowser(t, m)
	a.signup("carol", "carol@example.com", "password1")
	t1 := a.cookie(auth.CookieName).Value
	a.login("carol", "password1")
	t2 := a.cookie(auth.CookieName).Value
	if t1 == t2 {
		t.Fatal("session token unchanged by login; want a new one")
	}
	// The old token no longer works.
	old := newBrowser(t, m)
	u, _ := url.Parse(old.base)
	old.c.Jar.SetCookies(u, []*http.Cookie{{Name: auth.CookieName, Value: t1}})
	if got := old.signedInAs(); got != "" {
		t.Fatalf("old token still signed in as %q", got)
	}

	other := newBrowser(t, m)
	other.login("carol", "password1")
	if got := other.signedInAs(); got != "carol" {
		t.Fatalf("second device signed in as %q", got)
	}
	res, body := a.post("/account/password", url.Values{"current_password": {"wrong-one"}, "new_password": {"password2"}})
	wantStatus(t, res, body, http.StatusUnprocessableEntity)
	if !strings.Contains(body, "That is not your current password.") {
		t.Error("no message for a wrong current password")
	}
	res, body = a.post("/account/password", url.Values{"current_password": {"password1"}, "new_password": {"password2"}})
	wantRedirect(t, res, body, "/account/password?saved=1")
	if got := a.signedInAs(); got != "carol" {
		t.Errorf("device that changed the password signed in as %q; want carol", got)
	}
	if got := other.signedInAs(); got != "" {
		t.Errorf("other device still signed in as %q after the password change", got)
	}
	other.login("carol", "password2")
	res, body = other.post("/account/login", url.Values{"login": {"carol"}, "password": {"password1"}})
	wantStatus(t, res, body, http.StatusUnauthorized)
}

func TestDeleteAccount(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		var inTx, after []int64
		m.Auth.OnDelete(func(ctx context.Context, tx *db.Tx, id int64) error {
			inTx = append(inTx, id)
			return nil
		}, func(ctx context.Context, id int64) { after = append(after, id) })
		b := newBrowser(t, m)
		b.signup("dave", "dave@example.com", "password1")
		u, err := m.Auth.ByUsername(context.Background(), "dave")
		if err != nil {
			t.Fatal(err)
		}
		res, body := b.get("/account/delete")
		wantStatus(t, res, body, 200)
		res, body = b.post("/account/delete", url.Values{"password": {"nope-nope"}})
		wantStatus(t, res, body, http.StatusUnprocessableEntity)
		if len(inTx) != 0 {
			t.Fatal("hooks ran for a refused delete")
		}
		res, body = b.post("/account/delete", url.Values{"password": {"password1"}})
		wantRedirect(t, res, body, "/?account=deleted")
		if _, err := m.Auth.User(context.Background(), u.ID); err == nil {
			t.Error("user still there after delete")
		}
		if len(inTx) != 1 || inTx[0] != u.ID || len(after) != 1 || after[0] != u.ID {
			t.Errorf("hooks saw %v in tx, %v after; want [%d]", inTx, after, u.ID)
		}
		if got := b.signedInAs(); got != "" {
			t.Errorf("signed in as %q after deleting the account", got)
		}
		res, body = newBrowser(t, m).post("/account/login", url.Values{"login": {"dave"}, "password": {"password1"}})
		wantStatus(t, res, body, http.StatusUnauthorized)
	})
}

func pngBytes(t *testing.T, w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := 0; x < w; x++ {
		for y := 0; y < h; y++ {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 200, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func (b *browser) upload(fields map[string]string, filename string, content []byte) (*http.Response, string) {
	b.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	if filename != "" {
		fw, _ := mw.CreateFormFile("avatar", filename)
		fw.Write(content)
	}
	mw.Close()
	res, body := b.do("POST", "/account/settings", &buf, http.Header{"Content-Type": {mw.FormDataContentType()}})
	apptest.SettleMedia(b.t, b.m) // the picture is made by a job
	return res, body
}

func TestProfileAndAvatar(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ctx := context.Background()
		b := newBrowser(t, m)
		b.signup("erin", "erin@example.com", "password1")

		res, body := b.upload(map[string]string{"display_name": "Erin E.", "bio": "Plays the oboe."}, "me.png", pngBytes(t, 400, 300))
		wantRedirect(t, res, body, "/account/settings?saved=1")
		u, _ := m.Auth.ByUsername(ctx, "erin")
		if u.DisplayName != "Erin E." || u.Bio != "Plays the oboe." || u.AvatarURL() == "" {
			t.Fatalf("after save: %+v; want name, bio and avatar", u)
		}
		res, body = b.get(u.AvatarURL())
		wantStatus(t, res, body, 200)
		if ct := res.Header.Get("Content-Type"); ct != "image/jpeg" {
			t.Errorf("avatar Content-Type %q; want image/jpeg", ct)
		}
		img, err := jpeg.Decode(strings.NewReader(body))
		if err != nil || img.Bounds().Dx() != auth.AvatarSize || img.Bounds().Dy() != auth.AvatarSize {
			t.Fatalf("avatar: %v, %v; want a %dx%d JPEG", img.Bounds(), err, auth.AvatarSize, auth.AvatarSize)
		}
		first := u.AvatarURL()

		cases := []struct {
			name   string
			fields map[string]string
			file   string
			data   []byte
			status int
		}{
			{"not an image", map[string]string{"display_name": "X"}, "evil.png", []byte("<script>alert(1)</script>"), http.StatusUnprocessableEntity},
			{"truncated png", map[string]string{"display_name": "X"}, "bad.png", pngBytes(t, 40, 40)[:60], http.StatusUnprocessableEntity},
			{"name too long", map[string]string{"display_name": strings.Repeat("x", 51)}, "", nil, http.StatusUnprocessableEntity},
			{"not a picture, 6 MB", map[string]string{"display_name": "X"}, "big.png", bytes.Repeat([]byte{0x89}, 6<<20), http.StatusUnprocessableEntity},
			{"just over 20 MiB", map[string]string{"display_name": "X"}, "big.png", append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, auth.MaxAvatarBytes)...), http.StatusUnprocessableEntity},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				res, body := b.upload(c.fields, c.file, c.data)
				wantStatus(t, res, body, c.status)
				u, _ := m.Auth.ByUsername(ctx, "erin")
				if u.DisplayName != "Erin E." || u.AvatarURL() != first {
					t.Errorf("after a refused save: %+v; want nothing changed", u)
				}
			})
		}

		res, body = b.upload(map[string]string{"display_name": "", "bio": "", "remove_avatar": "1"}, "", nil)
		wantRedirect(t, res, body, "/account/settings?saved=1")
		u, _ = m.Auth.ByUsername(ctx, "erin")
		if u.AvatarURL() != "" || u.Name() != "erin" {
			t.Errorf("after removing: %+v; want no avatar and the username as name", u)
		}
		res, _ = b.get(first)
		if res.StatusCode != 404 {
			t.Errorf("replaced avatar file: status %d; want 404 (deleted)", res.StatusCode)
		}
	})
}

// One instance's limiter, set on its Main (the cluster's shared limit is
// app's TestClusterLoginLimitShared).
func TestLoginRateLimit(t *testing.T) {
	apptest.EachInstance(t, func(t *testing.T, m *app.Main) {
		m.Auth.SetLimits(auth.Limits{LoginPerIP: ratelimit.NewLocal(time.Minute, 3)})
		b := newBrowser(t, m)
		for i := 0; i < 3; i++ {
			res, body := b.post("/account/login", url.Values{"login": {"x"}, "password": {"whatever1"}})
			wantStatus(t, res, body, http.StatusUnauthorized)
		}
		res, body := b.post("/account/login", url.Values{"login": {"x"}, "password": {"whatever1"}})
		wantStatus(t, res, body, http.StatusTooManyRequests)
		ra := res.Header.Get("Retry-After")
		if ra == "" || ra == "0" {
			t.Errorf("Retry-After %q; want seconds", ra)
		}
		// The 429 is the login form again, with the wait in words, the
		// login kept and the password not.
		wantForm := func(body, action, kept, secret string) {
			t.Helper()
			for _, want := range []string{`action="` + action + `"`, `value="` + kept + `"`, "Please try again in " + ra + " seconds."} {
				if !strings.Contains(body, want) {
					t.Errorf("429 page lacks %q:\n%.3000s", want, body)
				}
			}
			if strings.Contains(body, secret) {
				t.Errorf("429 page echoes the password")
			}
		}
		wantForm(body, "/account/login", "x", "whatever1")
		m.Auth.SetLimits(auth.Limits{LoginPerAccount: ratelimit.NewLocal(time.Minute, 2)})
		for i := 0; i < 2; i++ {
			b.post("/account/login", url.Values{"login": {"Target"}, "password": {"whatever1"}})
		}
		res, body = b.post("/account/login", url.Values{"login": {"target"}, "password": {"whatever1"}})
		wantStatus(t, res, body, http.StatusTooManyRequests)

		m.Auth.SetLimits(auth.Limits{SignupPerIP: ratelimit.NewLocal(time.Minute, 1)})
		b.signup("first", "first@example.com", "password1")
		res, body = newBrowser(t, m).post("/account/signup", url.Values{"username": {"second"}, "email": {"s@example.com"}, "password": {"secret-pw-2"}})
		wantStatus(t, res, body, http.StatusTooManyRequests)
		if ra = res.Header.Get("Retry-After"); ra == "" || ra == "0" {
			t.Errorf("sign-up Retry-After %q; want seconds", ra)
		}
		wantForm(body, "/account/signup", "second", "secret-pw-2")
		if !strings.Contains(body, `value="s@example.com"`) {
			t.Errorf("sign-up 429 page lost the e-mail")
		}
	})
}

func TestOpenRedirectRefused(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		newBrowser(t, m).signup("frank", "frank@example.com", "password1")
		for _, next := range []string{"//evil.example/", "https://evil.example/", "/\\evil.example", "javascript:alert(1)", "evil"} {
			b := newBrowser(t, m)
			res, body := b.post("/account/login", url.Values{"login": {"frank"}, "password": {"password1"}, "next": {next}})
			wantRedirect(t, res, body, "/")
			_, page := newBrowser(t, m).get("/account/login?next=" + url.QueryEscape(next))
			if strings.Contains(page, "evil") {
				t.Errorf("login page keeps next=%q", next)
			}
		}
	})
}

func TestCrossOriginPostRefused(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		b := newBrowser(t, m)
		b.signup("gina", "gina@example.com", "password1")
		for _, path := range []string{"/account/logout", "/account/login", "/account/delete"} {
			res, body := b.do("POST", path, strings.NewReader("password=password1"), http.Header{
				"Content-Type": {"application/x-www-form-urlencoded"}, "Sec-Fetch-Site": {"cross-site"}})
			wantStatus(t, res, body, http.StatusForbidden)
		}
		if got := b.signedInAs(); got != "gina" {
			t.Errorf("after refused cross-site posts signed in as %q; want gina", got)
		}
	})
}

func TestRequireUser(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		b := newBrowser(t, m)
		res, body := b.get("/account/settings?x=1")
		wantRedirect(t, res, body, auth.LoginURL("/account/settings?x=1"))
		res, body = b.do("GET", "/account/settings", nil, http.Header{"Accept": {"application/json"}})
		wantStatus(t, res, body, http.StatusUnauthorized)
		if ct := res.Header.Get("Content-Type"); ct != "application/problem+json" {
			t.Errorf("Content-Type %q; want problem JSON", ct)
		}
	})
}

// Anonymous page views stay cheap and shareable: no session, no cookie, no
// query, and cached pages keep their ETag; signed-in views still revalidate.
func TestAnonymousRequestsStayCheap(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		b := newBrowser(t, m)
		before := m.DB.Queries()
		res, body := b.get("/")
		wantStatus(t, res, body, 200)
		if q := m.DB.Queries() - before; q != 0 {
			t.Errorf("anonymous start page ran %d queries; want 0", q)
		}
		if len(res.Cookies()) != 0 || strings.Contains(res.Header.Get("Vary"), "Cookie") {
			t.Errorf("anonymous page: cookies %v, Vary %q; want none", res.Cookies(), res.Header.Get("Vary"))
		}
		if !strings.Contains(body, `href="/account/login"`) || !strings.Contains(body, `id="account-user"`) {
			t.Error("anonymous header lacks the Sign in link or the template for the script")
		}

		b.signup("hank", "hank@example.com", "password1")
		res, body = b.get("/meet/polls/new")
		wantStatus(t, res, body, 200)
		res, body = b.get("/account/u/hank")
		wantStatus(t, res, body, 200)
		if !strings.Contains(body, `data-state="user"`) {
			t.Error("profile page for a signed-in viewer: header not rendered with the user")
		}
	})
}

// TestSettingsWithoutAFileKeepsThePicture: a url-encoded form (no multipart)
// and a multipart form without the file both save the profile and keep the
// current picture.
func TestSettingsWithoutAFileKeepsThePicture(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ctx := context.Background()
		b := newBrowser(t, m)
		b.signup("fay", "fay@example.com", "password1")
		res, body := b.upload(map[string]string{"display_name": "Fay"}, "me.png", pngBytes(t, 64, 64))
		wantRedirect(t, res, body, "/account/settings?saved=1")
		u, _ := m.Auth.ByUsername(ctx, "fay")
		pic := u.AvatarURL()
		if pic == "" {
			t.Fatal("no avatar after the upload")
		}

		res, body = b.post("/account/settings", url.Values{"display_name": {"Fay F."}, "bio": {"Harp."}})
		wantRedirect(t, res, body, "/account/settings?saved=1")
		u, _ = m.Auth.ByUsername(ctx, "fay")
		if u.DisplayName != "Fay F." || u.Bio != "Harp." || u.AvatarURL() != pic {
			t.Fatalf("after a url-encoded save: name %q bio %q avatar %q; want Fay F., Harp., %q", u.DisplayName, u.Bio, u.AvatarURL(), pic)
		}

		res, body = b.upload(map[string]string{"display_name": "Fay G.", "bio": "Lute."}, "", nil)
		wantRedirect(t, res, body, "/account/settings?saved=1")
		u, _ = m.Auth.ByUsername(ctx, "fay")
		if u.DisplayName != "Fay G." || u.Bio != "Lute." || u.AvatarURL() != pic {
			t.Fatalf("after a multipart save without a file: name %q bio %q avatar %q; want Fay G., Lute., %q", u.DisplayName, u.Bio, u.AvatarURL(), pic)
		}
	})
}

// TestOversizeUploadReads413 drives the real server as a client that sends
// its whole body before reading (Python's urllib does): an avatar upload
// over the limit gets the 413 page, not a connection reset. It is about
// tutti's own server: behind nginx, nginx answers (client_max_body_size).
func TestOversizeUploadReads413(t *testing.T) {
	apptest.EachInstance(t, func(t *testing.T, m *app.Main) {
		u, _ := url.Parse(m.URL())
		body := bytes.Repeat([]byte("x"), auth.SettingsBodyLimit+1<<20)
		for _, path := range []string{"/account/settings", "/account/login"} {
			c, err := net.Dial("tcp", u.Host)
			if err != nil {
				t.Fatal(err)
			}
			c.SetDeadline(time.Now().Add(20 * time.Second))
			fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: %d\r\n\r\n", path, u.Host, len(body))
			if _, err := c.Write(body); err != nil {
				t.Fatalf("%s: writing the whole body: %v; want the server to read it", path, err)
			}
			res, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatalf("%s: reading the answer: %v; want 413", path, err)
			}
			page, _ := io.ReadAll(res.Body)
			c.Close()
			if res.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(page), "The request is too large.") {
				t.Fatalf("%s: %d %.300s; want the 413 page", path, res.StatusCode, page)
			}
		}
	})
}

// TestPasswordFormsKeepTheFormWhenLimited: every form that asks for the
// user's password (change it, change the e-mail, delete the account) is
// rate-limited like logins; past the limit it is the same form again, 429
// with Retry-After and the wait in words, never a bare error page.
func TestPasswordFormsKeepTheFormWhenLimited(t *testing.T) {
	m := apptest.Start(t, "")
	b := newBrowser(t, m)
	b.signup("gwen", "gwen@example.com", "password1")
	for _, c := range []struct {
		path string
		form url.Values
	}{
		{"/account/password", url.Values{"current_password": {"wrong-pw-1"}, "new_password": {"another-pw-2"}}},
		{"/account/email", url.Values{"new_email": {"gwen2@example.com"}, "current_password": {"wrong-pw-1"}}},
		{"/account/delete", url.Values{"password": {"wrong-pw-1"}}},
	} {
		m.Auth.SetLimits(auth.Limits{LoginPerAccount: ratelimit.NewLocal(time.Minute, 1)})
		res, body := b.post(c.path, c.form)
		wantStatus(t, res, body, http.StatusUnprocessableEntity) // wrong, within the limit
		res, body = b.post(c.path, c.form)
		wantStatus(t, res, body, http.StatusTooManyRequests)
		ra := res.Header.Get("Retry-After")
		if ra == "" || ra == "0" {
			t.Errorf("%s: Retry-After %q; want seconds", c.path, ra)
		}
		for _, want := range []string{`action="` + c.path + `"`, "Please try again in " + ra + " seconds."} {
			if !strings.Contains(body, want) {
				t.Errorf("%s: 429 page lacks %q:\n%.2000s", c.path, want, body)
			}
		}
		if strings.Contains(body, "wrong-pw-1") {
			t.Errorf("%s: 429 page echoes the password", c.path)
		}
	}
}

// A logout while Redis is down ends the session on every instance: the copy
// Redis kept (it comes back with its data) no longer signs anyone in, and
// is deleted from Redis when refused. The user's other sessions go on.
func TestLogoutDuringRedisOutageRevokes(t *testing.T) {
	srv := redistest.Start(t)
	srv.Keep()
	m := apptest.StartWith(t, func(c *config.Config) {
		c.RedisURL, c.RedisPrefix = srv.URL(), "revoke:"
		c.RateLimits = false
	})
	b := newBrowser(t, m)
	b.signup("fay", "fay@example.com", "password1")
	stolen := b.cookie(auth.CookieName).Value
	other := newBrowser(t, m)
	other.login("fay", "password1")

	srv.Stop()
	res, body := b.post("/account/logout", nil)
	wantRedirect(t, res, body, "/account/login?bye=1")
	srv.Start()
	redistest.WaitUnpaused(t, m.Shared)

	ctx := context.Background()
	sum := sha256.Sum256([]byte(stolen))
	key := "revoke:session:" + base64.RawURLEncoding.EncodeToString(sum[:])
	if n, err := m.Redis.Exists(ctx, key).Result(); err != nil || n != 1 {
		t.Fatalf("the session's copy in Redis after the restart: %d (%v); want it kept (the case under test)", n, err)
	}
	thief := newBrowser(t, m)
	u, _ := url.Parse(thief.base)
	thief.c.Jar.SetCookies(u, []*http.Cookie{{Name: auth.CookieName, Value: stolen}})
	if got := thief.signedInAs(); got != "" {
		t.Fatalf("the logged-out session's cookie signs in as %q once Redis is back; want nobody", got)
	}
	if n, _ := m.Redis.Exists(ctx, key).Result(); n != 0 {
		t.Error("the revoked session's copy is still in Redis after it was refused")
	}
	if got := other.signedInAs(); got != "fay" {
		t.Errorf("fay's other session: signed in as %q; want fay", got)
	}
}

// A session whose stored bytes cannot be read signs its browser out once,
// back to the same page, instead of failing every page until the cookie
// expires.
func TestDamagedSessionSignsOutOnce(t *testing.T) {
	apptest.EachInstance(t, func(t *testing.T, m *app.Main) {
		b := newBrowser(t, m)
		b.signup("dana", "dana@example.com", "correct horse")
		c := b.cookie(auth.CookieName)
		if c == nil {
			t.Fatal("no session cookie after sign-up")
		}
		sum := sha256.Sum256([]byte(c.Value))
		if err := m.DB.WithTx(context.Background(), func(tx *db.Tx) error {
			res, err := tx.Exec(context.Background(), `UPDATE sessions SET data = ? WHERE token = ?`,
				[]byte{0xff, 0x01}, base64.RawURLEncoding.EncodeToString(sum[:]))
			if n, _ := res.RowsAffected(); err == nil && n != 1 {
				return fmt.Errorf("%d session rows damaged; want 1", n)
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
		res, body := b.get("/account/settings")
		wantRedirect(t, res, body, "/account/settings")
		if b.cookie(auth.CookieName) != nil {
			t.Error("the damaged session's cookie is still in the browser")
		}
		if who := b.signedInAs(); who != "" {
			t.Errorf("signed in as %q after the damaged session; want signed out", who)
		}
	})
}
