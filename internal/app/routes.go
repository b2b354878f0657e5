package app

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tutti-dev/tutti/internal/files"
	"github.com/tutti-dev/tutti/internal/web"
)

func (m *Main) routes() http.Handler {
	mux := http.NewServeMux()
	m.Site.Static(m.Site.Assets)
	// Pages link their icon (web.Layout); clients that ask for the old
	// default name are sent to it rather than answered 404.
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=86400")
		http.Redirect(w, r, m.Site.Assets.URL("favicon.svg"), http.StatusMovedPermanently)
	})
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Cache-Control", "no-store")
		if err := m.DB.Ping(ctx); err != nil {
			m.Log.Warn("not ready", "err", err)
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte("database unreachable\n"))
			return
		}
		if m.Redis != nil {
			if err := m.Redis.Ping(ctx).Err(); err != nil {
				m.Log.Warn("not ready", "err", err)
				w.WriteHeader(http.StatusServiceUnavailable)
				w.Write([]byte("redis unreachable\n"))
				return
			}
		}
		if err := m.Bus.Ping(ctx); err != nil {
			m.Log.Warn("not ready", "err", err)
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte("message bus unreachable\n"))
			return
		}
		w.Write([]byte("ready\n"))
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		m.Site.Render(w, r, http.StatusOK, Landing(m.Site))
	})
	mux.Handle("GET "+files.Prefix, files.Handler(m.Files, files.Prefix))
	m.Auth.Routes(mux)
	for i, a := range m.Apps {
		a.Routes(web.NewRouter(mux, "/"+m.modules[i].Name))
	}
	m.Ops.Routes(mux)
	for _, a := range m.Site.Apps {
		if !a.Ready {
			mux.HandleFunc("GET "+a.Path, func(w http.ResponseWriter, r *http.Request) {
				m.Site.Render(w, r, http.StatusOK, ComingSoon(m.Site, a))
			})
		}
	}
	mux.HandleFunc("GET /", m.Site.NotFound)
	metrics := web.NewMetrics(m.Registry)
	metrics.Flight = m.flight
	common := []web.Middleware{web.WithRequestID, web.Observe(m.Log, metrics), web.Recover(m.Site), web.SecurityHeaders}
	// The full lane's latency is the site's health the waiting rooms admit
	// by (m.Pace): the pages of those admitted, not the cached or light
	// ones.
	full := web.Chain(mux, slices.Concat([]web.Middleware{m.Pace.Handler}, common, []web.Middleware{
		web.CrossOrigin(m.Site),
		web.WithOrigin,
		m.Auth.Middleware,
		m.Site.LimitBody(m.Config.MaxBodyBytes, mux),
	})...)
	return m.proxies.Middleware(m.Site.HotLane(m.Site.EarlyLane(full, common...), metrics))
}
