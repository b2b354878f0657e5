package auth

import "net/http"

// logoutPost signs out (POST only: a link or an image must not sign anyone out).
func (s *Service) logoutPost(w http.ResponseWriter, r *http.Request) {
	if err := s.Logout(w, r); err != nil {
		s.Site.Error(w, r, err)
		return
	}
	s.redirect(w, r, "/account/login?bye=1")
}
