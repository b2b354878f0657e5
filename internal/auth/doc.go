// Package auth is the platform's accounts, shared by every app: sign-up, log
// in and out, change password, delete account, a profile per user (display
// name, bio, avatar), sessions (scs, stored in the database or Redis) and the
// current user in each request's context.
//
// Routes live under /account/. Passwords are hashed with argon2id (OWASP
// parameters), with a bound on concurrent hashes so that a login storm cannot
// exhaust memory. Login and sign-up are rate-limited per IP and per account.
//
// Tables: users, sessions.
package auth
