// Package deploy holds tutti's deployment files (nginx, systemd, compose,
// Kubernetes) and deploy/local-cluster; it has no Go code of its own. Its
// tests check the files against the real binary: probe paths are routes,
// ports agree, and every TUTTI_* variable named is a real setting.
package deploy
