package meet

import (
	"context"
	"time"
)

// Demo loads a small, living example once (it does nothing if a demo poll
// exists): a team poll with a few people and comments, so that a newcomer
// sees a real page at once. It returns the poll's public and admin paths.
func (a *App) Demo(ctx context.Context) (public, admin string, err error) {
	const demoID = "demo-team-offsite-2026" // 22 characters, like every id
	if p, err := a.store.Poll(ctx, demoID); err == nil {
		return pollURL(p), adminURL(p), nil
	}
	day := a.Now().UTC().AddDate(0, 0, 3)
	p := &Poll{ID: demoID, AdminToken: "demo-admin-" + token(12), Title: "Team offsite planning",
		Description: "Two hours to plan next quarter. Paint when you can make it!",
		StartDate:   day.Format(time.DateOnly), EndDate: day.AddDate(0, 0, 4).Format(time.DateOnly),
		DayStart: 9 * 60, DayEnd: 17 * 60, TZ: "Europe/Berlin", DurationMinutes: 120}
	if err := a.store.CreatePoll(ctx, p); err != nil {
		return "", "", err
	}
	slots := p.Slots()
	people := []struct {
		name   string
		ranges [][3]int // first slot, slots, tier
		note   string
	}{
		{"Ada", [][3]int{{4, 8, 1}, {36, 8, 2}, {70, 6, 1}}, "Mornings are best for me."},
		{"Grace", [][3]int{{6, 6, 1}, {40, 8, 1}, {72, 4, 3}}, "I can do Tuesday afternoon."},
		{"Linus", [][3]int{{0, 12, 2}, {38, 6, 1}}, ""},
		{"Margaret", [][3]int{{5, 5, 3}, {40, 4, 1}, {68, 8, 2}}, "Anything but Friday."},
	}
	for _, d := range people {
		pt := Participant{PollID: p.ID, Name: d.name, EditToken: token(16)}
		if _, _, err := a.store.AddParticipant(ctx, &pt); err != nil {
			return "", "", err
		}
		var tfs []Timeframe
		for _, r := range d.ranges {
			if r[0]+r[1] > len(slots) {
				continue
			}
			tf := Timeframe{ParticipantID: pt.ID, Start: slots[r[0]], End: slots[r[0]+r[1]-1].Add(Slot), Tier: r[2]}
			if p.CheckRange(tf.Start, tf.End) == nil {
				tfs = append(tfs, tf)
			}
		}
		if _, err := a.store.ReplaceAvailability(ctx, p.ID, pt.ID, tfs); err != nil {
			return "", "", err
		}
		if d.note != "" {
			if _, err := a.store.AddComment(ctx, p.ID, &Comment{ParticipantID: pt.ID, Body: d.note}); err != nil {
				return "", "", err
			}
		}
	}
	return pollURL(p), adminURL(p), nil
}
