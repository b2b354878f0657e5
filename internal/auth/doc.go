// Package auth is the platform's accounts, shared by every app: sign-up, log
// in and out, change password, delete account, a profile per user (display
// name, bio, avatar), sessions (scs, stored in the database or Redis) and the
// current user in each request's context.
//
// Routes live under /account/. Passwords are hashed with argon2id (OWASP
// parameters), with a bound on concurrent hashes so that a login storm cannot
// exhaust memory. Login and sign-up are rate-limited per IP and per account.
// Password resets and e-mail changes are links mailed through the outbox
// (internal/mail).
//
// Apps use it to know who is asking, never with accounts of their own:
// UserFrom(ctx) is the signed-in user or nil, RequireUser sends a visitor
// to the login page (LoginURL, web.LocalPath for the way back), ProfileURL and
// Avatar show a user. An app that keeps rows about a user implements
// module.AccountHook, which internal/app registers with OnDelete, so that
// deleting an account removes them in the same transaction.
//
// People search (FindPeople: type-ahead on a username or display name,
// accents aside, for music's "find people" and mentions) runs on package
// search over users.name_key, which auth writes whenever a name changes.
// No route answers it here: the app that shows the box serves it.
//
// Tables: users, sessions, auth_tokens (and, on SQLite, users_fts: the
// name index).
package auth
