package meet

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/load"
)

// SeedSize is the size of the load-test data set.
type SeedSize struct {
	Polls, Participants, Timeframes, Comments int
}

// SeedDefault is the seed report's data set.
var SeedDefault = SeedSize{Polls: 1000, Participants: 10000, Timeframes: 20000, Comments: 10000}

// SeedIDs is what the load test needs to find the seeded data.
type SeedIDs struct {
	Polls        []SeedPoll        `json:"polls"`
	Participants []SeedParticipant `json:"participants"`
}

// SeedPoll is one seeded poll.
type SeedPoll struct {
	ID         string `json:"id"`
	AdminToken string `json:"admin_token"`
}

// SeedParticipant is one seeded participant with their private link's parts.
type SeedParticipant struct {
	PollID string `json:"poll_id"`
	ID     int64  `json:"id"`
	Token  string `json:"token"`
}

// Seed bulk-inserts a data set of the given size and writes the ids the load
// test needs to idsPath. Progress goes to progress (nil: silent).
func Seed(ctx context.Context, d *db.DB, size SeedSize, idsPath string, progress io.Writer, seed uint64) (*SeedIDs, error) {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	total := size.Polls + size.Participants + size.Timeframes + size.Comments
	bar := load.NewSeedProgress(progress, "meet", total)
	step := bar.Step
	var base int64
	if err := db.Scan(d.QueryRow(ctx, `SELECT COALESCE(MAX(id), 0) FROM meet_participants`), &base); err != nil {
		return nil, fmt.Errorf("meet: seed: %w", err)
	}
	now := time.Now().UTC()
	start := now.AddDate(0, 0, 7).Truncate(24 * time.Hour)
	ids := &SeedIDs{}
	polls := make([]*Poll, size.Polls)
	var rows [][]any
	for i := range polls {
		s := start.AddDate(0, 0, rng.IntN(60))
		p := &Poll{ID: token(16), AdminToken: token(24), Title: fmt.Sprintf("Seeded poll %d", i+1),
			Description: "A poll of the load-test data set.", StartDate: s.Format(time.DateOnly),
			EndDate: s.AddDate(0, 0, 4).Format(time.DateOnly), DayStart: 9 * 60, DayEnd: 17 * 60, TZ: "UTC",
			DurationMinutes: []int{30, 60, 60, 90, 120}[rng.IntN(5)]}
		polls[i] = p
		ids.Polls = append(ids.Polls, SeedPoll{p.ID, p.AdminToken})
		rows = append(rows, []any{p.ID, p.AdminToken, p.Title, p.Description, p.StartDate, p.EndDate, p.DayStart,
			p.DayEnd, p.TZ, nil, nil, nil, 1, now.Unix(), now.Unix(), p.DurationMinutes})
	}
	cols := []string{"id", "admin_token", "title", "description", "start_date", "end_date", "day_start", "day_end",
		"tz", "deadline", "closed_start", "closed_end", "version", "created_at", "updated_at", "duration_minutes"}
	if err := d.CopyChunks(ctx, "meet_polls", cols, rows, step); err != nil {
		return nil, err
	}
	// Participants are spread evenly over the polls.
	type who struct {
		id   int64
		poll *Poll
	}
	people := make([]who, size.Participants)
	rows = rows[:0]
	for i := range people {
		p := polls[i%len(polls)]
		id := base + int64(i) + 1
		tok := token(16)
		name := fmt.Sprintf("Participant %d", i+1)
		people[i] = who{id, p}
		ids.Participants = append(ids.Participants, SeedParticipant{p.ID, id, tok})
		rows = append(rows, []any{id, p.ID, name, nameKey(name), tok, now.Unix()})
	}
	if err := d.CopyChunks(ctx, "meet_participants", []string{"id", "poll_id", "name", "name_key", "edit_token", "created_at"}, rows, step); err != nil {
		return nil, err
	}
	rows = rows[:0]
	for i := 0; i < size.Timeframes; i++ {
		w := people[i%len(people)]
		slots := w.poll.Slots()
		k := rng.IntN(len(slots) - 8)
		length := time.Duration(1+rng.IntN(8)) * Slot
		s := slots[k]
		e := s.Add(length)
		if w.poll.CheckRange(s, e) != nil { // crosses the day's end: one slot then
			e = s.Add(Slot)
		}
		rows = append(rows, []any{w.poll.ID, w.id, s.Unix(), e.Unix(), 1 + rng.IntN(3)})
	}
	if err := d.CopyChunks(ctx, "meet_timeframes", []string{"poll_id", "participant_id", "start_at", "end_at", "tier"}, rows, step); err != nil {
		return nil, err
	}
	rows = rows[:0]
	for i := 0; i < size.Comments; i++ {
		w := people[rng.IntN(len(people))]
		rows = append(rows, []any{w.poll.ID, w.id, fmt.Sprintf("Seeded comment %d: works for me.", i+1), now.Unix()})
	}
	if err := d.CopyChunks(ctx, "meet_comments", []string{"poll_id", "participant_id", "body", "created_at"}, rows, step); err != nil {
		return nil, err
	}
	if err := d.ResetSequences(ctx, "meet_participants", "meet_timeframes", "meet_comments"); err != nil {
		return nil, fmt.Errorf("meet: seed: %w", err)
	}
	if err := bar.Done(idsPath, ids); err != nil {
		return nil, err
	}
	return ids, nil
}

// LoadSeedIDs reads the ids written by Seed.
func LoadSeedIDs(path string) (*SeedIDs, error) {
	var ids SeedIDs
	if err := load.ReadSeedFile(path, "meet", &ids); err != nil {
		return nil, err
	}
	if len(ids.Polls) == 0 || len(ids.Participants) == 0 {
		return nil, fmt.Errorf("meet: seed ids %s: empty", path)
	}
	return &ids, nil
}
