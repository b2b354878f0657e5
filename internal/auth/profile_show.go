package auth

import "net/http"

// profileShow is the public profile: name, picture, bio. An unknown user is 404.
func (s *Service) profileShow(w http.ResponseWriter, r *http.Request) {
	u, err := s.ByUsername(r.Context(), r.PathValue("username"))
	if err != nil {
		s.Site.Error(w, r, err)
		return
	}
	h := s.head(r, u.Name())
	h.Description = u.Name() + " on tutti"
	if UserFrom(r.Context()) != nil {
		private(w)
	}
	s.Site.Render(w, r, http.StatusOK, ProfilePage(s, h, u))
}
