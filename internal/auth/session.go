package auth

import (
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/alexedwards/scs/v2"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// Session keys. Only the user id and the session generation at login are
// stored; the user is loaded per request, so a password change (which bumps
// users.session_gen) or a deleted account ends every other session at once.
const (
	keyUID  = "uid"
	keyGen  = "gen"
	keySeen = "seen"
)

// msgBadLogin is the one answer to an unknown account and a wrong password.
const msgBadLogin = "Wrong username, e-mail or password."

// Middleware loads the session and puts the signed-in user (if any) in the
// request's context. A GET or HEAD without the session cookie, which is every
// anonymous page view, costs no session work and no query at all.
func (s *Service) Middleware(next http.Handler) http.Handler {
	plain := s.sm.LoadAndSave(s.loadUser(s.sm, next))
	tls := s.smTLS.LoadAndSave(s.loadUser(s.smTLS, next))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if (r.Method == http.MethodGet || r.Method == http.MethodHead) && !hasCookie(r, CookieName) {
			if hasCookie(r, UserCookieName) { // left over: the session is gone
				s.clearUserCookie(w, r)
			}
			next.ServeHTTP(w, r)
			return
		}
		if web.IsHTTPS(r) {
			tls.ServeHTTP(w, r)
			return
		}
		plain.ServeHTTP(w, r)
	})
}

func hasCookie(r *http.Request, name string) bool {
	if len(r.Header["Cookie"]) == 0 {
		return false
	}
	_, err := r.Cookie(name)
	return err == nil
}

// loadUser resolves the session's user; a stale generation, a deleted user or
// an idle session make the request anonymous and end the session.
func (s *Service) loadUser(sm *scs.SessionManager, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		uid := sm.GetInt64(ctx, keyUID)
		if uid == 0 {
			if hasCookie(r, UserCookieName) {
				s.clearUserCookie(w, r)
			}
			next.ServeHTTP(w, r)
			return
		}
		now := s.Now().Unix()
		seen := sm.GetInt64(ctx, keySeen)
		var a *account
		var err error
		if s.revocable {
			a, err = s.store.bySession(ctx, uid, storeKey(sm.Token(ctx)))
		} else {
			a, err = s.store.byID(ctx, uid)
		}
		switch {
		case err != nil && !errors.Is(err, errs.ErrNotFound):
			s.Site.Error(w, r, err)
			return
		case err != nil, a.gen != sm.GetInt64(ctx, keyGen), now-seen > int64(IdleTimeout/time.Second):
			if err := sm.Destroy(ctx); err != nil {
				s.Site.Error(w, r, err)
				return
			}
			s.clearUserCookie(w, r)
			next.ServeHTTP(w, r)
			return
		}
		if now-seen > int64(touchEvery/time.Second) {
			sm.Put(ctx, keySeen, now)
		}
		next.ServeHTTP(w, r.WithContext(WithUser(ctx, &a.User)))
	})
}

// Login checks the credentials (login is a username or an e-mail), then
// starts a fresh session for the user: a new token, the user id and the
// session generation, and the tutti_user cookie for the page header. Errors:
// errs.Unauthorized with one neutral message whether the account exists or
// not (an unknown account costs a hash too), errs.TooMany (errs.Slow) past
// the rate limits. The request must have passed through Middleware.
func (s *Service) Login(w http.ResponseWriter, r *http.Request, login, password string) (*User, error) {
	ctx := r.Context()
	login = strings.TrimSpace(login)
	if ok, retry := s.lim().LoginPerIP.Allow(ctx, web.ClientIP(r)); !ok {
		return nil, tooMany(retry, "Too many login attempts.")
	}
	if ok, retry := s.lim().LoginPerAccount.Allow(ctx, strings.ToLower(login)); !ok {
		return nil, tooMany(retry, "Too many login attempts for this account.")
	}
	a, err := s.store.byLogin(ctx, login)
	if err != nil && !errors.Is(err, errs.ErrNotFound) {
		return nil, err
	}
	hash := s.dummyHash()
	if a != nil {
		hash = a.hash
	}
	match, err := checkPassword(ctx, hash, password)
	if err != nil && ctx.Err() != nil {
		return nil, err
	}
	if a == nil || !match {
		return nil, errs.E(errs.Unauthorized, msgBadLogin)
	}
	if err := s.startSession(w, r, a); err != nil {
		return nil, err
	}
	return &a.User, nil
}

// tooMany is a rate limit's refusal: what happened and how many seconds to
// wait (the same number as the Retry-After header, rounded up).
func tooMany(retry time.Duration, what string) error {
	n := int(math.Ceil(retry.Seconds()))
	if n < 1 {
		n = 1
	}
	wait := strconv.Itoa(n) + " seconds"
	if n == 1 {
		wait = "1 second"
	}
	return errs.Slow(time.Duration(n)*time.Second, "%s Please try again in %s.", what, wait)
}

// startSession gives the request's session a new token and the user.
func (s *Service) startSession(w http.ResponseWriter, r *http.Request, a *account) error {
	sm := s.manager(r)
	ctx := r.Context()
	if err := sm.RenewToken(ctx); err != nil {
		return err
	}
	if err := sm.Clear(ctx); err != nil {
		return err
	}
	sm.Put(ctx, keyUID, a.ID)
	sm.Put(ctx, keyGen, a.gen)
	sm.Put(ctx, keySeen, s.Now().Unix())
	s.setUserCookie(w, r, a.Username)
	return nil
}

// Logout ends the request's session: its row is deleted (with Redis,
// revoked: fallbackStore.DeleteCtx) and both cookies are expired (a new
// session, with a new token, starts only when needed). With Redis down the
// session is still found, in the database, so it is ended all the same.
func (s *Service) Logout(w http.ResponseWriter, r *http.Request) error {
	if err := s.manager(r).Destroy(r.Context()); err != nil {
		return err
	}
	s.clearUserCookie(w, r)
	return nil
}

// SignupAndLogin creates the account (rate-limited per IP) and signs it in.
func (s *Service) SignupAndLogin(w http.ResponseWriter, r *http.Request, in Signup) (*User, error) {
	ctx := r.Context()
	if f := in.Validate(); len(f) > 0 { // a typo does not count against the limit
		return nil, errs.Fields(f)
	}
	if ok, retry := s.lim().SignupPerIP.Allow(ctx, web.ClientIP(r)); !ok {
		return nil, tooMany(retry, "Too many sign-ups from here.")
	}
	u, err := s.Create(ctx, in)
	if err != nil {
		return nil, err
	}
	if err := s.startSession(w, r, &account{User: *u, gen: 1}); err != nil {
		return nil, err
	}
	return u, nil
}

func (s *Service) secure(r *http.Request) bool { return s.SecureCookies || web.IsHTTPS(r) }

// setUserCookie sets tutti_user, which the header script reads to show the
// username on pages cached for everyone. It is only a display hint: the
// server never trusts it.
func (s *Service) setUserCookie(w http.ResponseWriter, r *http.Request, username string) {
	http.SetCookie(w, &http.Cookie{Name: UserCookieName, Value: username, Path: "/", MaxAge: int(Lifetime / time.Second),
		SameSite: http.SameSiteLaxMode, Secure: s.secure(r)})
}

func (s *Service) clearUserCookie(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: UserCookieName, Value: "", Path: "/", MaxAge: -1,
		SameSite: http.SameSiteLaxMode, Secure: s.secure(r)})
}

// dropDamagedSession answers a request whose session cannot be read (its
// stored bytes damaged): rather than failing every page until the cookie
// expires, the browser forgets the session (signed out) and is sent to the
// same page again, or, after a form, to where the form was.
func (s *Service) dropDamagedSession(w http.ResponseWriter, r *http.Request, err error) {
	s.Log.WarnContext(r.Context(), "session: unreadable, dropped", "id", web.RequestID(r.Context()), "err", err)
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: s.secure(r)})
	s.clearUserCookie(w, r)
	to := web.SameSiteReferer(r)
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		to = web.LocalPath(r.URL.RequestURI())
	}
	if to == "" {
		to = "/"
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// RequireUser returns the signed-in user, or answers and returns false:
// browsers are sent (303) to the login page, which brings them back; API and
// JSON clients get 401 problem details.
func RequireUser(w http.ResponseWriter, r *http.Request) (*User, bool) {
	if u := UserFrom(r.Context()); u != nil {
		return u, true
	}
	if web.WantsJSON(r) {
		h := w.Header()
		h.Set("Content-Type", "application/problem+json")
		h.Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusUnauthorized)
		json.NewEncoder(w).Encode(web.Problem{Type: "about:blank", Title: http.StatusText(http.StatusUnauthorized),
			Status: http.StatusUnauthorized, Detail: "Please sign in.", Instance: r.URL.Path})
		return nil, false
	}
	next := web.SameSiteReferer(r)
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		next = web.LocalPath(r.URL.RequestURI())
	}
	http.Redirect(w, r, LoginURL(next), http.StatusSeeOther)
	return nil, false
}
