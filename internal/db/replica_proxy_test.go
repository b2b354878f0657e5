package db_test

import (
	"context"
	"database/sql"
	"io"
	"net"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
)

// proxy forwards TCP connections to a server, counting what the clients
// send (one read per request a client flushes: pgx writes each round trip
// in one write), and can cut every connection at once, as a host that dies.
type proxy struct {
	ln     net.Listener
	to     string
	sends  atomic.Int64
	mu     sync.Mutex
	conns  []net.Conn
	closed bool
}

func startProxy(t *testing.T, to string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, to: to}
	t.Cleanup(p.cut)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", to)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			if p.closed {
				c.Close()
				s.Close()
			}
			p.conns = append(p.conns, c, s)
			p.mu.Unlock()
			go io.Copy(c, s)
			go func() {
				buf := make([]byte, 64<<10)
				for {
					n, err := c.Read(buf)
					if n > 0 {
						p.sends.Add(1)
						if _, err := s.Write(buf[:n]); err != nil {
							return
						}
					}
					if err != nil {
						s.Close()
						return
					}
				}
			}()
		}
	}()
	return p
}

// cut closes the listener and every connection, abruptly.
func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	p.ln.Close()
	for _, c := range p.conns {
		c.Close()
	}
}

// A single-row read on the replica costs one round trip, and when the
// replica's host goes away, QueryRow (and Query) fall back to the primary
// with no error. The "replica" is the primary's server behind a proxy.
func TestReplicaQueryRowOneRoundTripAndFallback(t *testing.T) {
	base := os.Getenv(dbtest.Env)
	if base == "" {
		t.Skip(dbtest.Env + " is not set")
	}
	ctx := context.Background()
	d := dbtest.Open(t, base)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	p := startProxy(t, u.Host)
	u.Host = p.ln.Addr().String()
	if err := d.AddReplica(ctx, u.String()); err != nil {
		t.Fatal(err)
	}
	read := func() int64 {
		t.Helper()
		var n int64
		if err := db.Scan(d.Lagging().QueryRow(ctx, "SELECT 40 + ?::bigint", 2), &n); err != nil || n != 42 {
			t.Fatalf("QueryRow through Lagging: %d, %v; want 42, nil", n, err)
		}
		return n
	}
	read() // connects and prepares the statement
	read()
	before := p.sends.Load()
	read()
	if got := p.sends.Load() - before; got != 1 {
		t.Errorf("a single-row read on the replica sent %d requests; want 1 (no ping before it)", got)
	}
	if served, fell, _ := d.ReplicaStats(); served != 3 || fell != 0 {
		t.Errorf("served %d, fell back %d; want 3, 0", served, fell)
	}

	// AtVersion: the replica when its row shows the version, else the
	// primary, with the read run again there.
	var ran []bool // whether each run was on the primary
	version := func(q db.Querier) (int64, error) {
		ran = append(ran, q == db.Querier(d))
		var v int64
		return v, db.Scan(q.QueryRow(ctx, "SELECT 5 + 0 * ?::bigint", 1), &v)
	}
	if q, err := d.AtVersion(ctx, 5, version); err != nil || q == db.Querier(d) || len(ran) != 1 || ran[0] {
		t.Errorf("AtVersion(5) at 5: primary %v, err %v, runs %v; want the replica, nil, [false]", q == db.Querier(d), err, ran)
	}
	ran = nil
	if q, err := d.AtVersion(ctx, 6, version); err != nil || q != db.Querier(d) || len(ran) != 2 || ran[0] || !ran[1] {
		t.Errorf("AtVersion(6) at 5: primary %v, err %v, runs %v; want the primary, nil, [false true]", q == db.Querier(d), err, ran)
	}
	if served, fell, behind := d.ReplicaStats(); served != 4 || fell != 0 || behind != 1 {
		t.Errorf("after AtVersion: served %d, fell back %d, behind %d; want 4, 0, 1", served, fell, behind)
	}

	p.cut()
	ran = nil
	if q, err := d.AtVersion(ctx, 5, version); err != nil || q != db.Querier(d) || len(ran) != 2 || !ran[1] {
		t.Errorf("AtVersion with the replica's host gone: primary %v, err %v, runs %v; want the primary, nil, [false true]", q == db.Querier(d), err, ran)
	}
	for range 3 {
		read()
		rows, err := d.Lagging().Query(ctx, "SELECT 1")
		if err != nil {
			t.Fatalf("Query with the replica's host gone: %v; want the primary's rows", err)
		}
		rows.Close()
	}
	if served, fell, _ := d.ReplicaStats(); served != 4 || fell != 7 {
		t.Errorf("after the cut: served %d, fell back %d; want 4, 7", served, fell)
	}
}

// A replica that goes away while its answer is being read (a restart or a
// failover under a long read) costs the reader nothing: All reads the rest
// from the primary, whole.
func TestAllFallsBackWhenTheReplicaDiesMidAnswer(t *testing.T) {
	base := os.Getenv(dbtest.Env)
	if base == "" {
		t.Skip(dbtest.Env + " is not set")
	}
	ctx := context.Background()
	d := dbtest.Open(t, base)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	p := startProxy(t, u.Host)
	u.Host = p.ln.Addr().String()
	if err := d.AddReplica(ctx, u.String()); err != nil {
		t.Fatal(err)
	}
	const n = 200_000 // far more than one network read: the cut lands mid-answer
	scanned := 0
	got, err := db.All(ctx, d, d.Lagging(), func(rows *sql.Rows) (int64, error) {
		if scanned++; scanned == 10 {
			p.cut()
		}
		var v int64
		return v, rows.Scan(&v)
	}, "SELECT generate_series(1, ?::bigint)", n)
	if err != nil || len(got) != n || got[n-1] != n {
		t.Fatalf("All with the replica cut after 10 rows: %d rows, %v; want %d, nil", len(got), err, n)
	}
	if _, fell, _ := d.ReplicaStats(); fell < 1 {
		t.Errorf("fell back %d times; want the read counted as sent to the primary", fell)
	}
	// Without a replica's failure, a statement's own error stands.
	if _, err := db.All(ctx, d, d.Lagging(), func(rows *sql.Rows) (int64, error) { var v int64; return v, rows.Scan(&v) },
		"SELECT 1/0"); err == nil {
		t.Error("a statement's own error was lost")
	}
}
