package web

import (
	"fmt"
	"strings"
	"testing"
)

// gridPage is an HTML body shaped like a poll page that misses the cache: a
// grid of people by time slots, with repeated class names and titles.
func gridPage() []byte {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Team offsite</title>` +
		`<link rel="stylesheet" href="/static/app.0123456789.css"></head><body><main><h1>Team offsite</h1><table class="grid">`)
	for p := range 40 {
		fmt.Fprintf(&b, `<tr><th scope="row"><a href="/meet/polls/abcdefgh/p/%d">Participant %d</a></th>`, 1000+p*37, p)
		for s := range 48 {
			tier := []string{"yes", "ifneedbe", "no"}[(p*7+s*3)%3]
			fmt.Fprintf(&b, `<td class="cell %s" title="Participant %d: %s at %02d:%02d">%s</td>`, tier, p, tier, 8+s/4, s%4*15, tier[:1])
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString(`</table></main></body></html>`)
	return []byte(b.String())
}

// BenchmarkNewPage is the compression a page pays once per version, when it
// is built on a miss (a poll's page after each answer).
func BenchmarkNewPage(b *testing.B) {
	body := gridPage()
	var size int
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		size = len(NewPage("text/html; charset=utf-8", body, `"v1"`).Gzip)
	}
	b.ReportMetric(float64(size), "gzip-bytes")
}
