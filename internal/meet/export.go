package meet

import (
	"encoding/csv"
	"io"
	"sort"
	"strconv"
	"time"

	"github.com/tutti-dev/tutti/internal/text"
)

// WriteCSV writes every timeframe of the poll, one row each, in loc. Cells
// that a spreadsheet would run as a formula are prefixed with a quote. The
// date, start and end columns are loc's wall clock; start_at and end_at are
// the same instants in RFC 3339 with loc's offset, which tell the two passes
// of a repeated hour apart (and give the end's date). An end at a clock
// change is read in the offset before it (endIn), as the pages read it.
func WriteCSV(w io.Writer, p *Poll, ps []Participant, tfs []Timeframe, loc *time.Location) error {
	names := make(map[int64]string, len(ps))
	for _, pt := range ps {
		names[pt.ID] = pt.Name
	}
	rows := append([]Timeframe(nil), tfs...)
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := names[rows[i].ParticipantID], names[rows[j].ParticipantID]
		if a != b {
			return a < b
		}
		return rows[i].Start.Before(rows[j].Start)
	})
	cw := csv.NewWriter(w)
	cw.Write([]string{"participant", "date", "start", "end", "tier", "tier_name", "zone", "start_at", "end_at"})
	for _, tf := range rows {
		s, e := tf.Start.In(loc), endIn(tf.End, loc)
		cw.Write([]string{text.CSVCell(names[tf.ParticipantID]), s.Format(time.DateOnly), s.Format("15:04"), e.Format("15:04"),
			strconv.Itoa(tf.Tier), tierName(tf.Tier), loc.String(), s.Format(time.RFC3339), e.Format(time.RFC3339)})
	}
	cw.Flush()
	return cw.Error()
}
