package load

import (
	"fmt"
	"html/template"
	"math"
	"os"
	"strings"
)

// WriteHTML writes a self-contained HTML report: tables and inline SVG charts
// over time, no script and nothing fetched.
func (res *Result) WriteHTML(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	charts := []chart{
		res.chart("Requests per second", "req/s", func(s Second) float64 { return float64(s.Requests) }, nil),
		res.chart("Sessions: arrivals per second and alive", "sessions", func(s Second) float64 { return float64(s.Arrivals) },
			func(s Second) float64 { return float64(s.Active) }),
		res.chart("Sessions completed per second (registrations, in the race scenarios)", "sessions", func(s Second) float64 { return float64(s.Completed()) }, nil),
		res.chart("Latency: mean and p99 (ms)", "ms", func(s Second) float64 { return s.Mean }, func(s Second) float64 { return s.P99 }),
		res.chart("Errors per second", "errors", func(s Second) float64 { return float64(s.Errors) }, nil),
	}
	return reportTmpl.Execute(f, struct {
		R      *Result
		Charts []chart
	}{res, charts})
}

type chart struct {
	Title, Unit string
	End         string // the last second's label, at the right of the time axis
	Max         float64
	A, B        template.HTMLAttr // points="..."
	HasB        bool
	Ticks       []tick
}

type tick struct {
	Y     float64
	Label string
}

const chartW, chartH = 800.0, 200.0

func (res *Result) chart(title, unit string, a, b func(Second) float64) chart {
	c := chart{Title: title, Unit: unit, HasB: b != nil}
	n := len(res.Timeline)
	c.End = fmt.Sprintf("%d s", max(n-1, 0))
	for _, s := range res.Timeline {
		c.Max = math.Max(c.Max, a(s))
		if b != nil {
			c.Max = math.Max(c.Max, b(s))
		}
	}
	if c.Max == 0 {
		c.Max = 1
	}
	points := func(f func(Second) float64) template.HTMLAttr {
		var sb strings.Builder
		for i, s := range res.Timeline {
			x := chartW * float64(i) / math.Max(float64(n-1), 1)
			y := chartH - chartH*f(s)/c.Max
			fmt.Fprintf(&sb, "%.1f,%.1f ", x, y)
		}
		return template.HTMLAttr(`points="` + strings.TrimSpace(sb.String()) + `"`)
	}
	c.A = points(a)
	if b != nil {
		c.B = points(b)
	}
	for i := 0; i <= 4; i++ {
		v := c.Max * float64(i) / 4
		c.Ticks = append(c.Ticks, tick{Y: chartH - chartH*float64(i)/4, Label: fmt.Sprintf("%.4g", v)})
	}
	return c
}

// ChartSVG is one chart over the run's seconds, as the HTML report draws
// it: a, and b if not nil, against time, as an inline SVG that scales to
// its container (classes a and b colour the lines; the report's style
// sheet, or the page's, sets them).
func (res *Result) ChartSVG(title, unit string, a, b func(Second) float64) template.HTML {
	var sb strings.Builder
	if err := reportTmpl.ExecuteTemplate(&sb, "chart", res.chart(title, unit, a, b)); err != nil {
		return ""
	}
	return template.HTML(sb.String())
}

var reportTmpl = template.Must(template.New("report").Funcs(template.FuncMap{"percent": func(f float64) float64 { return 100 * f }}).Parse(`{{define "chart"}}<svg viewBox="-50 -10 860 230" width="860" height="230" style="max-width:100%;height:auto" role="img" aria-label="{{.Title}}">
{{range .Ticks}}<line class="grid" x1="0" x2="800" y1="{{.Y}}" y2="{{.Y}}"/><text x="-8" y="{{.Y}}" text-anchor="end">{{.Label}}</text>{{end}}
<text x="0" y="216" text-anchor="start">0 s</text><text x="800" y="216" text-anchor="end">{{.End}}</text>
<polyline class="a" {{.A}}/>{{if .HasB}}<polyline class="b" {{.B}}/>{{end}}
</svg>{{end}}<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>tutti load: {{.R.Settings.Scenario}}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2rem;color:#1d1d1f}
table{border-collapse:collapse;margin:1rem 0}th,td{padding:.25rem .6rem;border-bottom:1px solid #ddd;text-align:right}
th:first-child,td:first-child{text-align:left}svg{background:#fafafa;border:1px solid #ddd}
.a{fill:none;stroke:#3b5bdb;stroke-width:1.5}.b{fill:none;stroke:#e8590c;stroke-width:1.5}.grid{stroke:#e5e5e5}
text{font-size:11px;fill:#666}
</style></head><body>
<h1>{{.R.Settings.Scenario}}: {{.R.Settings.Model}} model</h1>
<p>Target {{.R.Settings.Target}}, started {{.R.Settings.StartedAt.Format "2006-01-02 15:04:05 UTC"}}, {{.R.Seconds}} s.
Requests {{.R.Totals.Requests}} ({{.R.Totals.RequestsPerSec}}/s, peak {{.R.Totals.PeakRequestsPerSec}}/s), errors {{.R.Totals.Errors}}, sessions {{.R.Totals.Sessions}} ({{.R.Totals.SessionsFailed}} failed: {{printf "%.2f" (percent .R.Totals.SuccessRate)}} % succeeded).
{{range .R.Sessions}}{{if .PerHour}}<br>{{.Name}}: {{.Count}} in {{.SpanSeconds}} s from the first start to the last end, {{printf "%.0f" .PerHour}} an hour estimated.{{end}}{{end}}</p>
{{range .Charts}}<h2>{{.Title}}</h2>
{{template "chart" .}}{{end}}
<h2>Requests</h2>
<table><tr><th>request</th><th>highest 10s mean</th><th>lowest 10s mean</th><th>highest rate</th><th>mean</th><th>count</th><th>errors</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>max</th></tr>
{{range .R.Requests}}<tr><td>{{.Name}}</td><td>{{.Highest10s}} ms</td><td>{{.Lowest10s}} ms</td><td>{{.HighestRate}}/s</td><td>{{.Mean}} ms</td><td>{{.Count}}</td><td>{{.Errors}}</td><td>{{.P50}}</td><td>{{.P90}}</td><td>{{.P99}}</td><td>{{.P999}}</td><td>{{.Max}}</td></tr>
{{end}}</table>
<h2>Sessions</h2>
<table><tr><th>session</th><th>highest 10s mean</th><th>lowest 10s mean</th><th>highest rate</th><th>mean</th><th>count</th><th>errors</th><th>p50</th><th>p99</th><th>max</th></tr>
{{range .R.Sessions}}<tr><td>{{.Name}}</td><td>{{.Highest10s}} ms</td><td>{{.Lowest10s}} ms</td><td>{{.HighestRate}}/s</td><td>{{.Mean}} ms</td><td>{{.Count}}</td><td>{{.Errors}}</td><td>{{.P50}}</td><td>{{.P99}}</td><td>{{.Max}}</td></tr>
{{end}}</table>
{{if .R.Samples}}<h2>Samples</h2>
<table><tr><th>sample</th><th>highest 10s mean</th><th>lowest 10s mean</th><th>highest rate</th><th>mean</th><th>count</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>max</th></tr>
{{range .R.Samples}}<tr><td>{{.Name}}</td><td>{{.Highest10s}} ms</td><td>{{.Lowest10s}} ms</td><td>{{.HighestRate}}/s</td><td>{{.Mean}} ms</td><td>{{.Count}}</td><td>{{.P50}}</td><td>{{.P90}}</td><td>{{.P99}}</td><td>{{.P999}}</td><td>{{.Max}}</td></tr>
{{end}}</table>
{{end}}<h2>Phases</h2>
<table><tr><th>phase</th><th>rate/s</th><th>arrivals</th><th>requests</th><th>errors</th><th>p50 ms</th><th>p99 ms</th><th>max ms</th></tr>
{{range .R.Phases}}<tr><td>{{.Index}}</td><td>{{.Rate}}</td><td>{{.Arrivals}}</td><td>{{.Requests}}</td><td>{{.Errors}}</td><td>{{.P50}}</td><td>{{.P99}}</td><td>{{.Max}}</td></tr>
{{end}}</table>
<h2>Status codes</h2><table>{{range $k, $v := .R.Status}}<tr><td>{{$k}}</td><td>{{$v}}</td></tr>{{end}}</table>
<h2>Errors</h2><table>{{range $k, $v := .R.Errors}}<tr><td>{{$k}}</td><td>{{$v}}</td></tr>{{else}}<tr><td>none</td></tr>{{end}}</table>
</body></html>
`))
