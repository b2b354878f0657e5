package music

import (
	"context"
	"crypto/rand"
	"encoding/base64"

	"github.com/tutti-dev/tutti/internal/errs"

	"github.com/tutti-dev/tutti/internal/auth"
)

// Demo is `serve --demo`'s music: two friends, mia and leo (random
// passwords: there to be read), the core's demo user befriended by mia,
// a few songs they shared, liked and commented on, and leo's audio with
// a waveform and two timed comments (audio_demo.go). It runs once: a
// database with posts already is left as it is.
func (a *App) Demo(ctx context.Context) error {
	var n int64
	if err := a.DB.QueryRow(ctx, "SELECT count(*) FROM music_posts").Scan(&n); err != nil || n > 0 {
		return err
	}
	users := map[string]*auth.User{}
	for _, name := range []string{"mia", "leo"} {
		u, err := a.Auth.ByUsername(ctx, name)
		if errs.KindOf(err) == errs.NotFound {
			b := make([]byte, 12)
			rand.Read(b)
			u, err = a.Auth.Create(ctx, auth.Signup{Username: name, Email: name + "@demo.example",
				Password: base64.RawURLEncoding.EncodeToString(b)})
		}
		if err != nil {
			return err
		}
		users[name] = u
	}
	ann, bob := users["mia"], users["leo"]
	friends := [][2]*auth.User{{ann, bob}}
	if demo, err := a.Auth.ByUsername(ctx, "demo"); err == nil { // the core's demo user: mia's friend
		friends = append(friends, [2]*auth.User{demo, ann})
	}
	for _, f := range friends {
		if err := a.svc.Relate(ctx, f[0], f[1].Username, "befriend"); err != nil {
			return err
		}
		if err := a.svc.Relate(ctx, f[1], f[0].Username, "accept"); err != nil {
			return err
		}
	}
	for _, d := range []struct {
		by *auth.User
		Draft
	}{
		{ann, Draft{URL: "https://www.youtube.com/watch?v=dQw4w9WgXcQ", Comment: "Still the best. #pop #classic", Visibility: Public}},
		{bob, Draft{URL: "https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC", Comment: "On repeat this week #pop", Visibility: Public}},
		{ann, Draft{URL: "https://soundcloud.com/forss/flickermood", Comment: "For friends only: my warm-up track #ambient", Visibility: Friends}},
		{bob, Draft{URL: "https://example.com/my-band", Comment: "Our band's new site #live", Visibility: Public}},
	} {
		id, err := a.svc.Share(ctx, d.by, d.Draft)
		if err != nil {
			return err
		}
		other := ann
		if d.by == ann {
			other = bob
		}
		if _, err := a.svc.Like(ctx, other, id, true); err != nil {
			return err
		}
		if _, err := a.svc.Comment(ctx, other, id, "Love it!"); err != nil {
			return err
		}
	}
	return a.demoAudio(ctx, bob, ann)
}
