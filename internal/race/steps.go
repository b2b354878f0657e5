package race

// The held entry's pages, in order, each with the step a hold records
// when the page is saved (Hold.Step is the furthest done). A race shows
// the extras' pages only when it offers them (Race.Offers), so a hold
// needs the step of the page before a page that its race shows.
const (
	stepDetails  = 1
	stepTeam     = 2
	stepDonation = 3
	stepStore    = 4
	stepWaiver   = 5
)

var stepPages = []struct {
	step        int
	path, label string
}{
	{stepDetails, "details", "Details"},
	{stepTeam, "team", "Team"},
	{stepDonation, "donation", "Donation"},
	{stepStore, "store", "Store"},
	{stepWaiver, "waiver", "Waiver"},
}

// shows reports whether race r's wizard has page step.
func (r *Race) shows(step int) bool {
	teams, donation, store := r.Offers()
	switch step {
	case stepTeam:
		return teams
	case stepDonation:
		return donation
	case stepStore:
		return store
	}
	return true
}

// needs is the step a hold must have done to see page step of r: that of
// the page before it that r shows (0 for the first). The review and the
// payment need stepWaiver.
func (r *Race) needs(step int) int {
	n := 0
	for _, p := range stepPages {
		if p.step >= step {
			break
		}
		if r.shows(p.step) {
			n = p.step
		}
	}
	return n
}

// nextPage is the path of r's page after step ("review" after the last).
func (r *Race) nextPage(step int) string {
	for _, p := range stepPages {
		if p.step > step && r.shows(p.step) {
			return p.path
		}
	}
	return "review"
}

// prevPage is the path of r's page before step ("details" for the first).
func (r *Race) prevPage(step int) string {
	n := r.needs(step)
	for _, p := range stepPages {
		if p.step == n {
			return p.path
		}
	}
	return "details"
}

// wizardSteps are the labels of r's registration pages, for the progress
// list.
func (r *Race) wizardSteps() []string {
	out := []string{"Account", "Event"}
	for _, p := range stepPages {
		if r.shows(p.step) {
			out = append(out, p.label)
		}
	}
	return append(out, "Review", "Payment")
}
