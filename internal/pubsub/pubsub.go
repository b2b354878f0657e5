// Package pubsub is tutti's message bus: NATS with JetStream. By default the
// NATS server runs inside the process with no network listener and keeps its
// JetStream store in the data directory; with a URL it connects to an
// external NATS cluster instead. The apps see one Bus either way, so the same
// code serves embedded and cluster mode.
//
// An app rarely uses the Bus directly: live events reach other instances
// through internal/live, cache stamps through internal/version, and job
// wake-ups through internal/jobs. Use Publish and Subscribe for another
// message between instances that may be lost without harm; what must not be
// lost is a row (a job), written in the transaction of its change.
package pubsub

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Bus is a connection to NATS, and the embedded server if there is one.
type Bus struct {
	nc     *nats.Conn
	js     jetstream.JetStream
	srv    *server.Server // nil when connected to an external cluster
	log    *slog.Logger
	prefix string // begins every subject on the wire; callers never see it
}

// Open connects to url, or, if url is empty, starts an embedded NATS server
// with JetStream stored under storeDir.
func Open(url, storeDir string, log *slog.Logger) (*Bus, error) {
	return OpenPrefix(url, "", storeDir, log)
}

// OpenPrefix is Open with prefix put before every subject published or
// subscribed to (and taken off the subjects handed to subscribers), so that
// several sites, or tests, share one NATS without hearing each other.
// prefix is empty or ends with '.' (config.Validate checks it).
func OpenPrefix(url, prefix, storeDir string, log *slog.Logger) (*Bus, error) {
	b := &Bus{log: log, prefix: prefix}
	opts := []nats.Option{nats.Name("tutti"), nats.MaxReconnects(-1), nats.ReconnectWait(time.Second)}
	if url == "" {
		srv, err := server.NewServer(&server.Options{
			ServerName: "tutti-embedded", DontListen: true, JetStream: true, StoreDir: storeDir,
			NoSigs: true, NoLog: true,
		})
		if err != nil {
			return nil, fmt.Errorf("pubsub: embedded server: %w", err)
		}
		srv.Start()
		if !srv.ReadyForConnections(10 * time.Second) {
			srv.Shutdown()
			return nil, errors.New("pubsub: embedded server did not start")
		}
		b.srv = srv
		url = srv.ClientURL()
		opts = append(opts, nats.InProcessServer(srv))
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		b.shutdown()
		return nil, fmt.Errorf("pubsub: connect: %w", err)
	}
	b.nc = nc
	if b.js, err = jetstream.New(nc); err != nil {
		b.Close()
		return nil, fmt.Errorf("pubsub: jetstream: %w", err)
	}
	return b, nil
}

// Embedded reports whether the NATS server runs in this process.
func (b *Bus) Embedded() bool { return b.srv != nil }

// Publish sends data on subject (at most once, to current subscribers).
func (b *Bus) Publish(subject string, data []byte) error {
	if err := b.nc.Publish(b.prefix+subject, data); err != nil {
		return fmt.Errorf("pubsub: publish %s: %w", subject, err)
	}
	return nil
}

// Subscribe calls fn for every message on subject (wildcards allowed) until
// the returned function is called.
func (b *Bus) Subscribe(subject string, fn func(subject string, data []byte)) (func(), error) {
	sub, err := b.nc.Subscribe(b.prefix+subject, func(m *nats.Msg) {
		fn(strings.TrimPrefix(m.Subject, b.prefix), m.Data)
	})
	if err != nil {
		return nil, fmt.Errorf("pubsub: subscribe %s: %w", subject, err)
	}
	return func() { sub.Unsubscribe() }, nil
}

// JetStream gives durable streams and consumers. The Bus's prefix does not
// reach it: a caller puts the prefix in its stream names and subjects
// itself. (Nothing uses it yet: what must not be lost is a row; see the
// package comment.)
func (b *Bus) JetStream() jetstream.JetStream { return b.js }

// Ping checks that the bus answers (for /readyz).
func (b *Bus) Ping(ctx context.Context) error {
	if !b.nc.IsConnected() {
		return errors.New("pubsub: not connected")
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
	}
	return b.nc.FlushWithContext(ctx)
}

// Close drains the connection and stops the embedded server.
func (b *Bus) Close() error {
	var err error
	if b.nc != nil {
		err = b.nc.Drain()
		for i := 0; i < 100 && !b.nc.IsClosed(); i++ {
			time.Sleep(10 * time.Millisecond)
		}
	}
	b.shutdown()
	return err
}

func (b *Bus) shutdown() {
	if b.srv != nil {
		b.srv.Shutdown()
		b.srv.WaitForShutdown()
	}
}
