package meet

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"
	"time"
)

// ClipTimeframes fits timeframes to a poll's new slots (sorted, as Poll.Slots
// returns them): each keeps its instants, cut into the runs of consecutive
// slots it still covers. kept holds those pieces for the timeframes that
// changed, lost the stretches that no longer fit (with their participant and
// tier), and changed the IDs of the timeframes that are not kept whole.
func ClipTimeframes(slots []time.Time, tfs []Timeframe) (kept, lost []Timeframe, changed []int64) {
	for _, tf := range tfs {
		var pieces []Timeframe
		i := sort.Search(len(slots), func(i int) bool { return !slots[i].Before(tf.Start) })
		for ; i < len(slots) && !slots[i].Add(Slot).After(tf.End); i++ {
			if n := len(pieces); n > 0 && pieces[n-1].End.Equal(slots[i]) {
				pieces[n-1].End = slots[i].Add(Slot)
				continue
			}
			pieces = append(pieces, Timeframe{ParticipantID: tf.ParticipantID, Start: slots[i], End: slots[i].Add(Slot), Tier: tf.Tier})
		}
		if len(pieces) == 1 && pieces[0].Start.Equal(tf.Start) && pieces[0].End.Equal(tf.End) {
			continue
		}
		changed = append(changed, tf.ID)
		kept = append(kept, pieces...)
		from := tf.Start
		for _, p := range pieces {
			if from.Before(p.Start) {
				lost = append(lost, Timeframe{ID: tf.ID, ParticipantID: tf.ParticipantID, Start: from, End: p.Start, Tier: tf.Tier})
			}
			from = p.End
		}
		if from.Before(tf.End) {
			lost = append(lost, Timeframe{ID: tf.ID, ParticipantID: tf.ParticipantID, Start: from, End: tf.End, Tier: tf.Tier})
		}
	}
	sort.SliceStable(lost, func(i, j int) bool {
		if lost[i].ParticipantID != lost[j].ParticipantID {
			return lost[i].ParticipantID < lost[j].ParticipantID
		}
		return lost[i].Start.Before(lost[j].Start)
	})
	return kept, lost, changed
}

// LossToken names exactly what an edit takes away: the organizer confirms
// this token, and an edit that would take anything else (an answer given
// meanwhile, other dates typed in) asks again.
func LossToken(lost []Timeframe) string {
	h := sha256.New()
	for _, t := range lost {
		h.Write([]byte(strconv.FormatInt(t.ParticipantID, 10) + ":" + strconv.FormatInt(t.Start.Unix(), 10) + ":" +
			strconv.FormatInt(t.End.Unix(), 10) + ":" + strconv.Itoa(t.Tier) + ";"))
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// editLoss is the confirmation an edit that takes answers away asks for:
// who loses which times, in the organizer's zone.
type editLoss struct {
	Token  string // LossToken of the loss, sent back by "Save anyway"
	Zone   string
	People []personLoss
}

type personLoss struct {
	Name  string
	Times []string // "Mon 2 Mar, 09:00–10:00 (preferred)"
}

// describeLoss groups the lost stretches (sorted by participant) by person.
func describeLoss(lost []Timeframe, people []Participant, zone string, loc *time.Location) *editLoss {
	names := make(map[int64]string, len(people))
	for _, p := range people {
		names[p.ID] = p.Name
	}
	l := &editLoss{Token: LossToken(lost), Zone: zone}
	for i, t := range lost {
		if i == 0 || lost[i-1].ParticipantID != t.ParticipantID {
			l.People = append(l.People, personLoss{Name: names[t.ParticipantID]})
		}
		p := &l.People[len(l.People)-1]
		p.Times = append(p.Times, fmtRange(t.Start, t.End, loc)+" ("+tierName(t.Tier)+")")
	}
	return l
}
