package web

import (
	"log/slog"
	"net/http"
	"net/http/pprof"
	"time"
)

// ServeDebug serves Go's profiles (net/http/pprof: /debug/pprof/, heap,
// profile, trace) on addr, apart from any site, until it fails. Keep addr
// on loopback. `tutti serve` and `tutti load run` take it as --debug-addr.
func ServeDebug(addr string, log *slog.Logger) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	log.Info("debug listener", "addr", addr)
	if err := srv.ListenAndServe(); err != nil {
		log.Warn("debug listener", "err", err)
	}
}
