// Package load is tutti's load engine, behind `tutti load`: scenarios are Go
// code living with their app, each a set of weighted sessions (the steps one
// simulated person takes: get a page, read a form out of it, post it, think).
//
// Two models: open (phases of arrival rates, Tsung's arrivalphase; sessions
// start on schedule whether or not the server keeps up) and closed (N sessions
// looping for a fixed time). Latency goes into HDR histograms measured from
// when a request was due, not from when the generator got round to it, so a
// slow server cannot hide its queueing (no coordinated omission).
//
// A run is bounded in time, refuses any target that is not a loopback
// address, and reports like Tsung: per request and per session the highest
// and lowest 10 s mean, highest rate, mean, count and percentiles; status
// codes; errors by kind; per phase and per second. Reports come as a terminal
// summary, JSON, and a self-contained HTML file with charts.
//
// An app's own load scenarios live in its load.go: a Factory that builds a
// Scenario whose sessions drive a Client (Get, Submit a Form read from the
// page, PostJSON, Stream, Think), listed in its module's Scenarios. Bulk data
// for them comes from the app's Seed (`tutti seed APP`).
package load
