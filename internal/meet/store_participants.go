package meet

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
)

// nameKey is the case-insensitive form of a name, unique within a poll.
func nameKey(name string) string { return strings.ToLower(strings.Join(strings.Fields(name), " ")) }

// ErrNameTaken is returned when a poll already has a participant of that name.
var ErrNameTaken = errs.E(errs.Conflict, "Someone in this poll already uses that name. If that is you, open your private link instead: "+
	"this page shows it in the browser you answered from, and the organizer can send it to you.")

// AddParticipant adds a participant (EditToken set by the caller) and returns
// the poll's new version and its deadline: a join reads nothing before.
// No such poll is ErrNotFound; a locked one ErrLocked.
func (s *Store) AddParticipant(ctx context.Context, p *Participant) (int64, *time.Time, error) {
	p.CreatedAt = s.now().UTC().Truncate(time.Second)
	return s.changeUntil(ctx, p.PollID, "add participant", func(ctx context.Context, tx *db.Tx) error {
		// The count and the insert in one statement; change's version bump
		// holds the poll's row, so no other join counts meanwhile.
		err := db.Scan(tx.QueryRow(ctx, `INSERT INTO meet_participants (poll_id, name, name_key, edit_token, created_at)
			SELECT ?,?,?,?,? WHERE (SELECT COUNT(*) FROM meet_participants WHERE poll_id = ?) < ? RETURNING id`,
			p.PollID, p.Name, nameKey(p.Name), p.EditToken, p.CreatedAt.Unix(), p.PollID, MaxParticipants), &p.ID)
		switch {
		case errors.Is(err, errs.ErrNotFound): // no row inserted: the poll is full
			return errs.E(errs.Conflict, "This poll has reached its limit of %d participants.", MaxParticipants)
		case errors.Is(err, errs.ErrConflict):
			return ErrNameTaken
		}
		return err
	})
}

// RemoveParticipant deletes a participant with their timeframes and comments.
func (s *Store) RemoveParticipant(ctx context.Context, pollID string, id int64) (int64, error) {
	return s.change(ctx, pollID, "remove participant", func(ctx context.Context, tx *db.Tx) error {
		return deleteOne(ctx, tx, `DELETE FROM meet_participants WHERE poll_id = ? AND id = ?`, pollID, id)
	})
}

// PollParticipant returns the poll with pollID and its participant id in
// one query: the participant pages and every change of answers read both,
// and in cluster mode each query is a round trip to PostgreSQL.
func (s *Store) PollParticipant(ctx context.Context, pollID string, id int64) (*Poll, *Participant, error) {
	var pt Participant
	var created int64
	row := s.db.QueryRow(ctx, `SELECT `+pollColsPl+`, pt.id, pt.name, pt.edit_token, pt.created_at
		FROM meet_polls pl JOIN meet_participants pt ON pt.poll_id = pl.id WHERE pl.id = ? AND pt.id = ?`, pollID, id)
	p, err := scanPoll(rowAnd{row, []any{&pt.ID, &pt.Name, &pt.EditToken, &created}})
	if err != nil {
		return nil, nil, fmt.Errorf("meet: poll %s, participant %d: %w", pollID, id, notFound(err))
	}
	pt.PollID, pt.CreatedAt = p.ID, time.Unix(created, 0).UTC()
	return p, &pt, nil
}

// pollColsPl is pollCols of the table named pl.
var pollColsPl = "pl." + strings.Join(strings.Fields(strings.ReplaceAll(pollCols, ",", " ")), ", pl.")

// rowAnd scans a row's first columns where its caller says and the rest
// into more.
type rowAnd struct {
	row  *sql.Row
	more []any
}

func (r rowAnd) Scan(dst ...any) error { return r.row.Scan(append(dst, r.more...)...) }

// EditTokens returns the secret of every participant's private link, by
// participant id, for the organizer's page only.
func (s *Store) EditTokens(ctx context.Context, pollID string) (map[int64]string, error) {
	rows, err := s.db.Query(ctx, `SELECT id, edit_token FROM meet_participants WHERE poll_id = ?`, pollID)
	if err != nil {
		return nil, fmt.Errorf("meet: edit tokens: %w", err)
	}
	defer rows.Close()
	out := map[int64]string{}
	for rows.Next() {
		var id int64
		var tok string
		if err := rows.Scan(&id, &tok); err != nil {
			return nil, fmt.Errorf("meet: edit tokens: %w", err)
		}
		out[id] = tok
	}
	return out, rows.Err()
}

// Participants returns every participant of the poll in order of joining
// (one query, for the heat map's names and the counts).
func (s *Store) Participants(ctx context.Context, pollID string) ([]Participant, error) {
	out, err := db.All(ctx, s.db, s.db, func(rows *sql.Rows) (Participant, error) {
		p := Participant{PollID: pollID}
		var created int64
		err := rows.Scan(&p.ID, &p.Name, &created)
		p.CreatedAt = time.Unix(created, 0).UTC()
		return p, err
	}, `SELECT id, name, created_at FROM meet_participants WHERE poll_id = ? ORDER BY id`, pollID)
	if err != nil {
		return nil, fmt.Errorf("meet: participants: %w", err)
	}
	return out, nil
}

// Timeframes returns every timeframe of the poll (one query).
func (s *Store) Timeframes(ctx context.Context, pollID string) ([]Timeframe, error) {
	return s.timeframes(ctx, `SELECT id, participant_id, start_at, end_at, tier FROM meet_timeframes
		WHERE poll_id = ? ORDER BY participant_id, start_at`, pollID)
}

// ParticipantTimeframes returns one participant's timeframes.
func (s *Store) ParticipantTimeframes(ctx context.Context, pollID string, pid int64) ([]Timeframe, error) {
	return s.timeframes(ctx, `SELECT id, participant_id, start_at, end_at, tier FROM meet_timeframes
		WHERE poll_id = ? AND participant_id = ? ORDER BY start_at`, pollID, pid)
}

func (s *Store) timeframes(ctx context.Context, q string, args ...any) ([]Timeframe, error) {
	out, err := db.All(ctx, s.db, s.db, func(rows *sql.Rows) (Timeframe, error) {
		var t Timeframe
		var a, b int64
		err := rows.Scan(&t.ID, &t.ParticipantID, &a, &b, &t.Tier)
		t.Start, t.End = time.Unix(a, 0).UTC(), time.Unix(b, 0).UTC()
		return t, err
	}, q, args...)
	if err != nil {
		return nil, fmt.Errorf("meet: timeframes: %w", err)
	}
	return out, nil
}

// AddTimeframe adds timeframes of one participant (one typed range can be
// two pieces: see slots.go), in one change, merged with the ones they
// already gave: the list stays a union without duplicates or overlaps,
// where an overlap keeps the better tier (as the tally counts it). Rows that
// the merge leaves as they were are not rewritten. Each t.ID becomes the ID
// of the merged timeframe that holds t's start.
func (s *Store) AddTimeframe(ctx context.Context, pollID string, ts ...*Timeframe) (int64, error) {
	if len(ts) == 0 {
		return 0, errors.New("meet: add timeframe: none given")
	}
	pid := ts[0].ParticipantID
	for _, t := range ts {
		if t.ParticipantID != pid {
			return 0, errors.New("meet: add timeframe: of two participants at once")
		}
	}
	return s.change(ctx, pollID, "add timeframe", func(ctx context.Context, tx *db.Tx) error {
		rows, err := tx.Query(ctx, `SELECT id, start_at, end_at, tier FROM meet_timeframes
			WHERE poll_id = ? AND participant_id = ? ORDER BY start_at, id`, pollID, pid)
		if err != nil {
			return err
		}
		var old []Timeframe
		for rows.Next() {
			o := Timeframe{ParticipantID: pid}
			var a, b int64
			if err := rows.Scan(&o.ID, &a, &b, &o.Tier); err != nil {
				rows.Close()
				return err
			}
			o.Start, o.End = time.Unix(a, 0).UTC(), time.Unix(b, 0).UTC()
			old = append(old, o)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		all := old
		for _, t := range ts {
			all = append(all, *t)
		}
		merged := MergeTimeframes(all)
		if len(merged) > MaxTimeframes {
			return errs.E(errs.Conflict, "You already have %d timeframes; remove some first.", MaxTimeframes)
		}
		// Keep the rows the merge did not change; delete the others and
		// insert what replaces them.
		same := map[[3]int64]int64{}
		for _, o := range old {
			k := [3]int64{o.Start.Unix(), o.End.Unix(), int64(o.Tier)}
			if _, dup := same[k]; !dup {
				same[k] = o.ID
			}
		}
		keep := map[int64]bool{}
		for i, m := range merged {
			if id, ok := same[[3]int64{m.Start.Unix(), m.End.Unix(), int64(m.Tier)}]; ok && !keep[id] {
				keep[id], merged[i].ID = true, id
			}
		}
		for _, o := range old {
			if !keep[o.ID] {
				if _, err := tx.Exec(ctx, `DELETE FROM meet_timeframes WHERE id = ?`, o.ID); err != nil {
					return err
				}
			}
		}
		for i, m := range merged {
			if m.ID == 0 {
				if err := db.Scan(tx.QueryRow(ctx, `INSERT INTO meet_timeframes (poll_id, participant_id, start_at, end_at, tier)
					VALUES (?,?,?,?,?) RETURNING id`, pollID, pid, m.Start.Unix(), m.End.Unix(), m.Tier), &merged[i].ID); err != nil {
					return err
				}
			}
			for _, t := range ts {
				if !m.Start.After(t.Start) && m.End.After(t.Start) {
					t.ID = merged[i].ID
				}
			}
		}
		return nil
	})
}

// DeleteTimeframe removes a participant's timeframe.
func (s *Store) DeleteTimeframe(ctx context.Context, pollID string, pid, id int64) (int64, error) {
	return s.change(ctx, pollID, "delete timeframe", func(ctx context.Context, tx *db.Tx) error {
		return deleteOne(ctx, tx, `DELETE FROM meet_timeframes WHERE poll_id = ? AND participant_id = ? AND id = ?`, pollID, pid, id)
	})
}

// ReplaceAvailability sets a participant's whole availability (the painted grid).
func (s *Store) ReplaceAvailability(ctx context.Context, pollID string, pid int64, tfs []Timeframe) (int64, error) {
	return s.change(ctx, pollID, "replace availability", func(ctx context.Context, tx *db.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM meet_timeframes WHERE poll_id = ? AND participant_id = ?`, pollID, pid); err != nil {
			return err
		}
		return insertTimeframes(ctx, tx, pollID, pid, tfs)
	})
}

func insertTimeframes(ctx context.Context, tx *db.Tx, pollID string, pid int64, tfs []Timeframe) error {
	const per = 200
	for start := 0; start < len(tfs); start += per {
		chunk := tfs[start:min(start+per, len(tfs))]
		args := make([]any, 0, 5*len(chunk))
		for _, t := range chunk {
			args = append(args, pollID, pid, t.Start.Unix(), t.End.Unix(), t.Tier)
		}
		q := `INSERT INTO meet_timeframes (poll_id, participant_id, start_at, end_at, tier) VALUES ` +
			db.Values(len(chunk), 5)
		if _, err := tx.Exec(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}

// participantCommentsShown is how many of a participant's own comments
// their page shows (the newest).
const participantCommentsShown = 50

// ParticipantPage reads participant pid of poll pollID with the poll, and
// what their page shows: their timeframes (by start), their newest
// comments (newest first) and, on their own page, their imported busy
// times (by start). One query: the rows of a UNION told apart by its first
// column, the poll and participant first, the others with blanks in the
// poll's columns (in cluster mode each query is a round trip to
// PostgreSQL, and this page follows every change of answers). No such
// participant in the poll is ErrNotFound.
func (s *Store) ParticipantPage(ctx context.Context, pollID string, pid int64, own bool) (*ParticipantData, error) {
	q := `SELECT -1, 0, pt.id, pt.created_at, 0, 0, pt.name, pt.edit_token, ` + pollColsPl + `
			FROM meet_polls pl JOIN meet_participants pt ON pt.poll_id = pl.id WHERE pl.id = ? AND pt.id = ?
		UNION ALL
		SELECT 0, start_at, id, start_at, end_at, tier, '', ''` + pollBlanks + ` FROM meet_timeframes WHERE poll_id = ? AND participant_id = ?
		UNION ALL
		SELECT 1, -id, id, created_at, 0, 0, body, ''` + pollBlanks + ` FROM (SELECT id, created_at, body FROM meet_comments
			WHERE poll_id = ? AND participant_id = ? ORDER BY id DESC LIMIT ?) newest`
	args := []any{pollID, pid, pollID, pid, pollID, pid, participantCommentsShown}
	if own {
		q += `
		UNION ALL
		SELECT 2, start_at, 0, start_at, end_at, 0, '', ''` + pollBlanks + ` FROM meet_busy WHERE participant_id = ?`
		args = append(args, pid)
	}
	rows, err := s.db.Query(ctx, q+` ORDER BY 1, 2`, args...)
	if err != nil {
		return nil, fmt.Errorf("meet: poll %s, participant %d: %w", pollID, pid, err)
	}
	defer rows.Close()
	var (
		d       ParticipantData
		pt      Participant
		ps      pollScan
		kind    int
		sortKey int64
		id      int64
		a, b    int64
		tier    int
		text    string
		tok     string
	)
	dst := append([]any{&kind, &sortKey, &id, &a, &b, &tier, &text, &tok}, ps.dest()...)
	for rows.Next() {
		if err := rows.Scan(dst...); err != nil {
			return nil, fmt.Errorf("meet: poll %s, participant %d: %w", pollID, pid, err)
		}
		switch kind {
		case -1:
			d.Poll = ps.poll()
			pt = Participant{ID: id, PollID: pollID, Name: text, EditToken: tok, CreatedAt: time.Unix(a, 0).UTC()}
			d.Who = &pt
		case 0:
			d.Timeframes = append(d.Timeframes, Timeframe{ID: id, ParticipantID: pid, Start: time.Unix(a, 0).UTC(), End: time.Unix(b, 0).UTC(), Tier: tier})
		case 1:
			d.Comments = append(d.Comments, Comment{ID: id, ParticipantID: pid, Author: pt.Name, Body: text, CreatedAt: time.Unix(a, 0).UTC()})
		case 2:
			d.Busy = append(d.Busy, Busy{ParticipantID: pid, Start: time.Unix(a, 0).UTC(), End: time.Unix(b, 0).UTC()})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("meet: poll %s, participant %d: %w", pollID, pid, err)
	}
	if d.Poll == nil {
		return nil, fmt.Errorf("meet: poll %s, participant %d: %w", pollID, pid, errs.ErrNotFound)
	}
	return &d, nil
}

// PollData is what a poll's page shows: the poll, every participant (by
// id), every timeframe (by participant, then start) and one page of
// comments, newest first, with the next (older) page's cursor (zero: none).
type PollData struct {
	Poll       *Poll
	People     []Participant
	Timeframes []Timeframe
	Comments   []Comment
	Next       db.Cursor
}

// PollPage reads poll pollID with what its page shows, the comments older
// than the keyset cursor before (zero: the newest), at most limit, in one
// query from the primary: a UNION of rows told apart by its first column,
// the poll first, the others with blanks in the poll's columns, as
// ParticipantPage reads. No such poll is ErrNotFound.
func (s *Store) PollPage(ctx context.Context, pollID string, before db.Cursor, limit int) (*PollData, error) {
	return s.pollPage(ctx, s.db, pollID, before, limit)
}

// PollPageAt is PollPage for the cache entry of the page at version v: read
// from the database's lag-tolerant reader (a replica in cluster mode) if
// the poll read there shows v already, so the page holds every change up
// to v (a participant's own answer included), and again from the primary
// otherwise. A miss of the poll page is one round trip to the replica.
// Never for a read that decides.
func (s *Store) PollPageAt(ctx context.Context, pollID string, v int64, before db.Cursor, limit int) (*PollData, error) {
	var d *PollData
	_, err := s.db.AtVersion(ctx, v, func(q db.Querier) (int64, error) {
		var err error
		if d, err = s.pollPage(ctx, q, pollID, before, limit); err != nil {
			return 0, err
		}
		return d.Poll.Version, nil
	})
	return d, err
}

func (s *Store) pollPage(ctx context.Context, q db.Querier, pollID string, before db.Cursor, limit int) (*PollData, error) {
	beforeID := before.ID
	if beforeID <= 0 {
		beforeID = 1<<62 - 1
	}
	rows, err := q.Query(ctx, `SELECT -1, 0, 0, 0, 0, 0, 0, 0, '', `+pollCols+` FROM meet_polls WHERE id = ?
		UNION ALL
		SELECT 0, id, 0, id, id, created_at, 0, 0, name`+pollBlanks+` FROM meet_participants WHERE poll_id = ?
		UNION ALL
		SELECT 1, participant_id, start_at, id, participant_id, start_at, end_at, tier, ''`+pollBlanks+` FROM meet_timeframes WHERE poll_id = ?
		UNION ALL
		SELECT 2, -c.id, 0, c.id, c.participant_id, c.created_at, 0, 0, c.body`+pollBlanks+` FROM (SELECT id, participant_id, body, created_at
			FROM meet_comments WHERE poll_id = ? AND id < ? ORDER BY id DESC LIMIT ?) c
		ORDER BY 1, 2, 3, 4`, pollID, pollID, pollID, pollID, beforeID, limit+1)
	if err != nil {
		return nil, fmt.Errorf("meet: poll %s: %w", pollID, err)
	}
	defer rows.Close()
	var (
		d             PollData
		ps            pollScan
		kind          int
		k1, k2        int64
		id, pid, a, b int64
		tier          int
		text          string
	)
	names := map[int64]string{}
	dst := append([]any{&kind, &k1, &k2, &id, &pid, &a, &b, &tier, &text}, ps.dest()...)
	for rows.Next() {
		if err := rows.Scan(dst...); err != nil {
			return nil, fmt.Errorf("meet: poll %s: %w", pollID, err)
		}
		switch kind {
		case -1:
			d.Poll = ps.poll()
		case 0:
			d.People = append(d.People, Participant{ID: id, PollID: pollID, Name: text, CreatedAt: time.Unix(a, 0).UTC()})
			names[id] = text
		case 1:
			d.Timeframes = append(d.Timeframes, Timeframe{ID: id, ParticipantID: pid, Start: time.Unix(a, 0).UTC(), End: time.Unix(b, 0).UTC(), Tier: tier})
		case 2:
			d.Comments = append(d.Comments, Comment{ID: id, ParticipantID: pid, Author: names[pid], Body: text, CreatedAt: time.Unix(a, 0).UTC()})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("meet: poll %s: %w", pollID, err)
	}
	if d.Poll == nil {
		return nil, fmt.Errorf("meet: poll %s: %w", pollID, errs.ErrNotFound)
	}
	d.Comments, d.Next = db.Trim(d.Comments, limit, func(c Comment) db.Cursor { return db.Cursor{ID: c.ID} })
	return &d, nil
}
