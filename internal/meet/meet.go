package meet

import (
	"time"
)

// Slot is the length of one cell of a poll's grid.
const Slot = 15 * time.Minute

// Tier is a participant's preference for a stretch of time.
const (
	TierPreferred = 1 // preferred
	TierFine      = 2 // fine
	TierIfNeed    = 3 // only if need be
)

// Limits that keep one poll bounded in size and cost.
const (
	MaxTitle        = 200
	MaxDescription  = 2000
	MaxName         = 80
	MaxComment      = 2000
	MaxDays         = 62  // a poll spans at most this many dates
	MaxTimeframes   = 500 // per participant
	MaxParticipants = 2000
	MaxBusy         = 2000 // busy intervals kept per participant from an .ics import
)

// Meeting lengths a poll can ask for.
const (
	DefaultDuration = time.Hour
	MinDuration     = Slot
	MaxDuration     = 24 * time.Hour
)

// Poll is a scheduling poll. Dates and the daily window are in the organizer's
// zone TZ; every instant is stored in UTC.
type Poll struct {
	ID          string // unguessable, URL-safe
	AdminToken  string // secret of the organizer's admin link
	Title       string
	Description string
	StartDate   string // YYYY-MM-DD, in TZ
	EndDate     string // YYYY-MM-DD, in TZ, >= StartDate
	DayStart    int    // minutes after local midnight, multiple of 15, 0..1425
	DayEnd      int    // minutes after local midnight, multiple of 15, DayStart < DayEnd <= 1440
	TZ          string // IANA zone name of the organizer
	Deadline    *time.Time
	ClosedStart *time.Time // the chosen time once closed
	ClosedEnd   *time.Time
	Version     int64 // increases with every change of the poll or anything in it
	CreatedAt   time.Time
	UpdatedAt   time.Time

	// DurationMinutes is how long the meeting lasts: a multiple of 15 from 15
	// to 1440 (0 is read as DefaultDuration). Best times rank start times by
	// who is free for all of it.
	DurationMinutes int
}

// Participant answers a poll, without an account; EditToken is the secret of
// their private edit link.
type Participant struct {
	ID        int64
	PollID    string
	Name      string
	EditToken string
	CreatedAt time.Time
}

// Timeframe is a stretch of a participant's availability at one tier.
type Timeframe struct {
	ID            int64
	ParticipantID int64
	Start, End    time.Time // UTC, Start < End, both on the 15-minute grid
	Tier          int       // 1..3
}

// Comment is a participant's note on a poll.
type Comment struct {
	ID            int64
	ParticipantID int64
	Author        string // the participant's name
	Body          string
	CreatedAt     time.Time
}

// Busy is an interval imported from a participant's calendar (.ics), shown greyed
// on their grid.
type Busy struct {
	ParticipantID int64
	Start, End    time.Time
}

// Duration is the meeting's length (DefaultDuration if unset).
func (p *Poll) Duration() time.Duration {
	if p.DurationMinutes == 0 {
		return DefaultDuration
	}
	return time.Duration(p.DurationMinutes) * time.Minute
}
