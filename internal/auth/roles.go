package auth

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// Role is a role an app gives some users (roar's moderators): the app
// declares it (module.Module.Roles), `tutti role grant` grants it, and the
// user carries it (User.Roles, User.Has).
type Role struct {
	App  string // the app's module name: "roar"
	Name string // the role within the app: "moderator"
}

func (r Role) String() string { return r.App + " " + r.Name }

// roleName is what an app's or a role's name may be: they are stored
// joined by ':' and ' ' (rolesCol), which they never contain.
var roleName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)

// Valid reports whether the role's app and name are well-formed (not
// whether an app declares it: the command line checks that).
func (r Role) Valid() bool { return roleName.MatchString(r.App) && roleName.MatchString(r.Name) }

// Has reports whether the user holds role in app; a nil user (a visitor)
// holds none.
func (u *User) Has(app, role string) bool {
	if u == nil {
		return false
	}
	return slices.Contains(u.Roles, Role{App: app, Name: role})
}

// rolesCol is the column that loads a user's roles with the account, in
// the same statement: "app:role app:role ...", or NULL for none.
func (s *Store) rolesCol() string {
	agg := "group_concat(app || ':' || role, ' ')"
	if s.db.Dialect == db.Postgres {
		agg = "string_agg(app || ':' || role, ' ')"
	}
	return "(SELECT " + agg + " FROM user_roles WHERE user_roles.user_id = users.id)"
}

// parseRoles reads rolesCol, sorted (a stable order for pages and tests).
func parseRoles(s string) []Role {
	if s == "" {
		return nil
	}
	var roles []Role
	for _, f := range strings.Fields(s) {
		if app, name, ok := strings.Cut(f, ":"); ok {
			roles = append(roles, Role{App: app, Name: name})
		}
	}
	slices.SortFunc(roles, func(a, b Role) int { return strings.Compare(a.String(), b.String()) })
	return roles
}

// setRole grants (on) or revokes role for username; granting a role held
// or revoking one not held changes nothing. Not found: no such user.
func (s *Store) setRole(ctx context.Context, username string, r Role, on bool) error {
	defer s.changed() // after the commit
	if CheckUsername(username) != "" {
		return errs.ErrNotFound
	}
	err := s.db.WithTx(ctx, func(tx *db.Tx) error {
		var id int64
		if err := db.Scan(tx.QueryRow(ctx, "SELECT id FROM users WHERE username_key = ?", UsernameKey(username)), &id); err != nil {
			return err
		}
		if !on {
			_, err := tx.Exec(ctx, "DELETE FROM user_roles WHERE user_id = ? AND app = ? AND role = ?", id, r.App, r.Name)
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO user_roles (user_id, app, role, granted_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (user_id, app, role) DO NOTHING`, id, r.App, r.Name, s.now().Unix())
		return err
	})
	if err != nil {
		return fmt.Errorf("auth: set role %s: %w", r, err)
	}
	return nil
}

// RoleHolder is a user holding a role.
type RoleHolder struct {
	ID        int64
	Username  string
	GrantedAt time.Time
}

// holders lists the users holding r after cursor after (by id), at most limit.
func (s *Store) holders(ctx context.Context, r Role, after db.Cursor, limit int) ([]RoleHolder, error) {
	rows, err := s.db.Query(ctx, `SELECT u.id, u.username, g.granted_at FROM user_roles g JOIN users u ON u.id = g.user_id
		WHERE g.app = ? AND g.role = ? AND g.user_id > ? ORDER BY g.user_id LIMIT ?`, r.App, r.Name, after.ID, limit)
	if err != nil {
		return nil, fmt.Errorf("auth: role holders: %w", err)
	}
	defer rows.Close()
	var hs []RoleHolder
	for rows.Next() {
		var h RoleHolder
		var at int64
		if err := rows.Scan(&h.ID, &h.Username, &at); err != nil {
			return nil, fmt.Errorf("auth: role holders: %w", err)
		}
		h.GrantedAt = time.Unix(at, 0).UTC()
		hs = append(hs, h)
	}
	return hs, rows.Err()
}

// Grant gives username the role r (errs.ErrNotFound: no such user;
// invalid: a malformed role). Which roles exist is the apps' to say: the
// command line checks r against the modules' declared roles.
func (s *Service) Grant(ctx context.Context, username string, r Role) error {
	return s.setRole(ctx, username, r, true)
}

// Revoke takes the role r from username.
func (s *Service) Revoke(ctx context.Context, username string, r Role) error {
	return s.setRole(ctx, username, r, false)
}

func (s *Service) setRole(ctx context.Context, username string, r Role, on bool) error {
	if !r.Valid() {
		return errs.E(errs.Invalid, "A role is an app's name and the role's: lower-case letters, digits and '-'.")
	}
	return s.store.setRole(ctx, username, r, on)
}

// RoleHolders lists the users holding r, by id after the cursor, at most
// limit (1 to 1000) of them.
func (s *Service) RoleHolders(ctx context.Context, r Role, after db.Cursor, limit int) ([]RoleHolder, error) {
	limit = max(1, min(limit, 1000))
	return s.store.holders(ctx, r, after, limit)
}

// SignedIn is route-group middleware (web.Router.Group): a request with
// no signed-in user is answered by deny and goes no further; nil deny
// answers as RequireUser does (401 problem details for JSON, else the
// sign-in page that returns here).
func SignedIn(deny http.HandlerFunc) web.Middleware {
	if deny == nil {
		deny = func(w http.ResponseWriter, r *http.Request) { RequireUser(w, r) }
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if UserFrom(r.Context()) == nil {
				deny(w, r)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// RequireRole is route-group middleware: a request whose user does not
// hold app's role (a visitor holds none) is answered by deny and goes no
// further. Put it in a SignedIn group, so that a visitor is asked to sign
// in rather than refused.
func RequireRole(app, role string, deny http.HandlerFunc) web.Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !UserFrom(r.Context()).Has(app, role) {
				deny(w, r)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
