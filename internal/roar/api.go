package roar

import "net/http"

// apiRoutes mounts the JSON API under /roar/api/.
func (a *App) apiRoutes(mux *http.ServeMux) {}
