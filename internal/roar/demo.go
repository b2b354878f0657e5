package roar

import (
	"context"
	"crypto/rand"
	"encoding/base64"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/errs"
)

// Demo fills an empty roar with a small conversation between a few users
// (their passwords are random: they are there to be read, not to sign in
// as), so that a newcomer sees a living timeline. It does nothing once any
// roar exists.
func (a *App) Demo(ctx context.Context) error {
	if roars, err := a.store.Timeline(ctx, Query{Limit: 1}); err != nil || len(roars) > 0 {
		return err
	}
	people := map[string]*auth.User{}
	for _, name := range []string{"ada", "grace", "linus"} {
		u, err := a.Auth.ByUsername(ctx, name)
		if errs.KindOf(err) == errs.NotFound {
			b := make([]byte, 12)
			rand.Read(b)
			u, err = a.Auth.Create(ctx, auth.Signup{Username: name, Email: name + "@demo.example", Password: base64.RawURLEncoding.EncodeToString(b)})
		}
		if err != nil {
			return err
		}
		people[name] = u
	}
	say := func(who, body string, replyTo int64) (*Roar, error) {
		body, err := CleanBody(body)
		if err != nil {
			return nil, err
		}
		return a.svc.insert(ctx, people[who], Post{Body: body, ReplyTo: replyTo}) // no rate limit
	}
	first, err := say("ada", "Rehearsal moved to Thursday. Who is in? #jazz", 0)
	if err != nil {
		return err
	}
	if _, err := say("grace", "@ada count me in, bringing the double bass", first.ID); err != nil {
		return err
	}
	if _, err := say("linus", "Open this page in two windows and roar in one: it shows up in the other. #tutti", 0); err != nil {
		return err
	}
	if _, err := say("grace", "Anyone renting out a tenor sax near the station? https://example.com/sax", 0); err != nil {
		return err
	}
	for _, who := range []string{"grace", "linus"} {
		if _, err := a.svc.Like(ctx, people[who], first.ID, true); err != nil {
			return err
		}
	}
	return nil
}
