package deploy

import (
	"flag"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/config"
	"github.com/tutti-dev/tutti/internal/files"
)

// ownVars are variables of the deployment tools themselves, not of the
// binary: local-cluster's settings and what its env verb prints for tests.
var ownVars = regexp.MustCompile(`^TUTTI_(CLUSTER_[A-Z0-9_]*|TEST_[A-Z0-9_]*|BIN)$`)

// TestVariablesAreSettings: every TUTTI_* name in deploy/ is one of the
// binary's settings (app.Settings: the core's and the apps'), or its _FILE form.
func TestVariablesAreSettings(t *testing.T) {
	known := map[string]bool{}
	var c config.Config
	for _, v := range app.Settings(flag.NewFlagSet("tutti", flag.ContinueOnError), &c, func(string) string { return "" }) {
		known[v.Env] = true
		known[v.Env+"_FILE"] = true
	}
	if !known["TUTTI_DATABASE_URL"] {
		t.Fatalf("app.Settings lists no TUTTI_DATABASE_URL: %v", known)
	}
	nameRE := regexp.MustCompile(`\bTUTTI_[A-Z0-9_]*[A-Z0-9]\b`)
	unknown := map[string][]string{}
	seen := 0
	for _, f := range deployFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range nameRE.FindAllString(string(b), -1) {
			seen++
			if !known[name] && !ownVars.MatchString(name) && !slices.Contains(unknown[name], f) {
				unknown[name] = append(unknown[name], f)
			}
		}
	}
	if seen < 20 {
		t.Fatalf("found %d TUTTI_* names in deploy/; want the files' many", seen)
	}
	names := make([]string, 0, len(unknown))
	for n := range unknown {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Errorf("%s (in %s) is not a setting of the binary (app.Settings)", n, strings.Join(unknown[n], ", "))
	}
}

// deployFiles lists the deployment files: everything in deploy/ but Go code.
func deployFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".go") {
			return err
		}
		files = append(files, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestProbesAreRoutes: every health path the deployment files probe answers
// 200 from the real server, and the live streams nginx leaves unbuffered
// are event streams.
func TestProbesAreRoutes(t *testing.T) {
	var dep deployment
	readYAML(t, "k8s/deployment.yaml", &dep)
	c := dep.Spec.Template.Spec.Containers[0]
	paths := map[string]string{
		"k8s readiness": c.ReadinessProbe.HTTPGet.Path,
		"k8s liveness":  c.LivenessProbe.HTTPGet.Path,
		"k8s startup":   c.StartupProbe.HTTPGet.Path,
	}
	if got := c.ReadinessProbe.HTTPGet.Path; got != "/readyz" {
		t.Errorf("readiness probe %q; want /readyz (database, bus and Redis reachable)", got)
	}
	if got := c.LivenessProbe.HTTPGet.Path; got != "/healthz" {
		t.Errorf("liveness probe %q; want /healthz (a database outage must not restart every pod)", got)
	}
	script := readFile(t, "local-cluster")
	for _, m := range regexp.MustCompile(`(?:tutti_port [^/]*|\$P_HTTPS)(/[a-z]+z)"`).FindAllStringSubmatch(script, -1) {
		paths["local-cluster "+m[0]] = m[1]
	}
	if len(paths) < 6 {
		t.Fatalf("probe paths %v; want the Deployment's three and local-cluster's", paths)
	}

	m := apptest.Start(t, "")
	web := apptest.NewWeb(t, m)
	for where, p := range paths {
		if res, body := web.Get(p); res.StatusCode != http.StatusOK {
			t.Errorf("%s probes %s: got %d %.80q; want 200", where, p, res.StatusCode, body)
		}
	}

	// The streams: the real one is an event stream, and every stream route
	// of the apps falls in nginx's unbuffered location.
	req, _ := http.NewRequest("GET", m.URL()+"/roar/stream", nil)
	cl := &http.Client{Timeout: 5 * time.Second}
	res, err := cl.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Errorf("/roar/stream: Content-Type %q; want text/event-stream", ct)
	}
	streams := routesMatching(t, regexp.MustCompile(`/stream$`))
	if !slices.Contains(streams, "/roar/stream") {
		t.Fatalf("stream routes %v; want /roar/stream among them", streams)
	}
	n := parseNginx(t).server("@@HTTPS_LISTEN@@")
	for _, r := range streams {
		loc := n.location(r)
		if loc == nil || loc.get("proxy_buffering") != "off" {
			t.Errorf("stream route %s: nginx location %v; want one with proxy_buffering off", r, loc)
			continue
		}
		if d := seconds(t, loc.get("proxy_read_timeout")); d < 60 {
			t.Errorf("stream route %s: proxy_read_timeout %ds; want at least 60 s (tutti's heartbeat is 25 s)", r, d)
		}
	}
	for _, r := range routesMatching(t, regexp.MustCompile(`/static/$`)) {
		loc := n.location(r + "app.0123456789.css")
		if loc == nil || loc.get("try_files") == "" {
			t.Errorf("static route %s: nginx location %v; want the exported files, then tutti", r, loc)
		}
	}
}

// routesMatching returns the GET patterns of internal/*/routes.go whose path
// matches re, with {wildcards} replaced by a sample value.
func routesMatching(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	files, err := filepath.Glob("../internal/*/routes.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no routes.go files: %v", err)
	}
	route := regexp.MustCompile(`"GET (/[^" ]*)"`)
	// An app's routes on its web.Router (/APP): rt.Get("/path", ...), and
	// on groups under a longer prefix (x := rt.Route("/r/{slug}", ...)).
	sub := regexp.MustCompile(`(\w+) := (\w+)\.Route\("([^"]*)"`)
	get := regexp.MustCompile(`(\w+)\.Get\("([^"]*)"`)
	wild := regexp.MustCompile(`\{[^}]+\}`)
	var out []string
	add := func(p string) {
		if p = wild.ReplaceAllString(p, "x1"); re.MatchString(p) {
			out = append(out, p)
		}
	}
	for _, f := range files {
		src := readFile(t, f)
		for _, m := range route.FindAllStringSubmatch(src, -1) {
			add(m[1])
		}
		prefix := map[string]string{}
		for _, m := range sub.FindAllStringSubmatch(src, -1) {
			prefix[m[1]] = prefix[m[2]] + m[3]
		}
		app := "/" + filepath.Base(filepath.Dir(f))
		for _, m := range get.FindAllStringSubmatch(src, -1) {
			add(app + prefix[m[1]] + m[2])
		}
	}
	return out
}

// TestNginxTemplate checks what the brief of the load balancer asks.
func TestNginxTemplate(t *testing.T) {
	n := parseNginx(t)
	srv := n.server("@@HTTPS_LISTEN@@")
	if srv == nil {
		t.Fatal("no https server block")
	}
	next := strings.Fields(srv.get("proxy_next_upstream"))
	// POSTs too (non_idempotent): tutti carries a request out once by its
	// X-Request-Id, which must be nginx's own, the same on every send.
	for _, want := range []string{"error", "timeout", "http_502", "http_503", "non_idempotent"} {
		if !slices.Contains(next, want) {
			t.Errorf("proxy_next_upstream %v: want %s", next, want)
		}
	}
	if !slices.Contains(srv.all("proxy_set_header"), "X-Request-Id $request_id") {
		t.Errorf("proxy_set_header %q: want X-Request-Id $request_id (nginx's, not the client's)", srv.all("proxy_set_header"))
	}
	if got := size(t, srv.get("client_max_body_size")); got != auth.SettingsBodyLimit {
		t.Errorf("client_max_body_size %d; want tutti's largest body limit %d (auth.SettingsBodyLimit)", got, auth.SettingsBodyLimit)
	}
	for _, h := range []string{"X-Forwarded-For", "X-Forwarded-Proto"} {
		if !slices.ContainsFunc(srv.all("proxy_set_header"), func(v string) bool { return strings.HasPrefix(v, h+" ") }) {
			t.Errorf("proxy_set_header %s missing", h)
		}
	}
	if strings.Contains(readFile(t, "nginx/tutti.conf.tmpl"), "Strict-Transport-Security") {
		t.Error("nginx sets HSTS; the app sends it (TUTTI_TRUSTED_PROXIES)")
	}
	up := n.block("upstream tutti")
	if up == nil || up.get("keepalive") == "" {
		t.Errorf("upstream tutti %v: want keepalive", up)
	}
	// Private uploads are never served by their key (media.ServePrivate).
	if loc := srv.location("/files/" + files.PrivatePrefix + "tracks/x.mp3"); loc == nil || loc.get("return") != "404" {
		t.Errorf("/files/%s...: nginx location %v; want 404", files.PrivatePrefix, loc)
	}
	if loc := srv.location("/files/avatars/x.jpg"); loc == nil || loc.get("proxy_pass") == "" {
		t.Errorf("/files/avatars/...: nginx location %v; want tutti", loc)
	}
	plain := n.server("@@HTTP_LISTEN@@")
	if plain == nil || !strings.HasPrefix(plain.location("/").get("return"), "301 @@PUBLIC_URL@@") {
		t.Errorf("http server %v: want a 301 to https", plain)
	}

	// Every placeholder is filled by both renderers, and they fill no other.
	placeholders := func(s string) []string {
		var out []string
		for _, m := range regexp.MustCompile(`@@[A-Z_]+@@`).FindAllString(s, -1) {
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
		sort.Strings(out)
		return out
	}
	tmpl := readFile(t, "nginx/tutti.conf.tmpl")
	body := regexp.MustCompile(`(?m)^#.*\n`).ReplaceAllString(tmpl, "") // the renderers drop the header
	want := placeholders(body)
	if len(want) < 5 {
		t.Fatalf("placeholders %v; want the template's", want)
	}
	for _, f := range []string{"local-cluster", "compose.yaml"} {
		if got := placeholders(readFile(t, f)); !slices.Equal(got, want) {
			t.Errorf("%s fills %v; the template has %v", f, got, want)
		}
	}
}

// TestSystemdUnit: one instance per port, settings from a file, hardened,
// and given time to drain.
func TestSystemdUnit(t *testing.T) {
	u := parseUnit(t, "systemd/tutti@.service")
	svc := u["Service"]
	if svc == nil {
		t.Fatal("no [Service] section")
	}
	if got := svc["ExecStart"]; len(got) != 1 || !strings.HasSuffix(got[0], "tutti serve") {
		t.Errorf("ExecStart %v; want .../tutti serve", got)
	}
	if len(svc["EnvironmentFile"]) == 0 {
		t.Error("no EnvironmentFile")
	}
	env := map[string]string{}
	for _, e := range svc["Environment"] {
		k, v, _ := strings.Cut(e, "=")
		env[k] = v
	}
	if _, port, err := net.SplitHostPort(env["TUTTI_ADDR"]); err != nil || port != "%i" {
		t.Errorf("TUTTI_ADDR %q: want the instance's port %%i", env["TUTTI_ADDR"])
	}
	if !strings.Contains(env["TUTTI_DATA_DIR"], "%i") {
		t.Errorf("TUTTI_DATA_DIR %q: want one per instance", env["TUTTI_DATA_DIR"])
	}
	for k, want := range map[string]string{
		"DynamicUser": "yes", "NoNewPrivileges": "yes", "ProtectSystem": "strict",
		"ProtectHome": "yes", "PrivateTmp": "yes", "CapabilityBoundingSet": "", "Restart": "always",
	} {
		if got := svc[k]; len(got) != 1 || got[0] != want {
			t.Errorf("%s=%v; want %q", k, got, want)
		}
	}
	stop, err := time.ParseDuration(svc["TimeoutStopSec"][0])
	if err != nil || stop <= config.Default().ShutdownTimeout {
		t.Errorf("TimeoutStopSec %v; want more than tutti's shutdown timeout %v", svc["TimeoutStopSec"], config.Default().ShutdownTimeout)
	}
}

// TestKubernetes: probes, ports and names agree across the manifests.
func TestKubernetes(t *testing.T) {
	var dep deployment
	readYAML(t, "k8s/deployment.yaml", &dep)
	var cm struct {
		Kind     string
		Metadata meta
		Data     map[string]string
	}
	readYAML(t, "k8s/configmap.yaml", &cm)
	var secret struct {
		Kind       string
		Metadata   meta
		StringData map[string]string `yaml:"stringData"`
	}
	readYAML(t, "k8s/secret.example.yaml", &secret)
	var svc struct {
		Kind     string
		Metadata meta
		Spec     struct {
			Selector map[string]string
			Ports    []struct {
				Name       string
				Port       int
				TargetPort string `yaml:"targetPort"`
			}
		}
	}
	readYAML(t, "k8s/service.yaml", &svc)
	var hpa struct {
		Kind string
		Spec struct {
			ScaleTargetRef struct{ Kind, Name string } `yaml:"scaleTargetRef"`
			MinReplicas    int                         `yaml:"minReplicas"`
			MaxReplicas    int                         `yaml:"maxReplicas"`
		}
	}
	readYAML(t, "k8s/hpa.yaml", &hpa)
	var pdb struct {
		Kind string
		Spec struct {
			MinAvailable int      `yaml:"minAvailable"`
			Selector     selector `yaml:"selector"`
		}
	}
	readYAML(t, "k8s/pdb.yaml", &pdb)
	var kust struct{ Resources []string }
	readYAML(t, "k8s/kustomization.yaml", &kust)

	kinds := map[string]string{"Deployment": dep.Kind, "ConfigMap": cm.Kind, "Secret": secret.Kind,
		"Service": svc.Kind, "HorizontalPodAutoscaler": hpa.Kind, "PodDisruptionBudget": pdb.Kind}
	for want, got := range kinds {
		if got != want {
			t.Errorf("kind %q; want %q", got, want)
		}
	}
	for _, r := range kust.Resources {
		if _, err := os.Stat(filepath.Join("k8s", r)); err != nil {
			t.Errorf("kustomization: %v", err)
		}
	}

	pod := dep.Spec.Template
	labels := pod.Metadata.Labels
	for name, sel := range map[string]map[string]string{
		"Deployment selector": dep.Spec.Selector.MatchLabels, "Service selector": svc.Spec.Selector,
		"PodDisruptionBudget selector": pdb.Spec.Selector.MatchLabels,
	} {
		if len(sel) == 0 {
			t.Errorf("%s is empty", name)
		}
		for k, v := range sel {
			if labels[k] != v {
				t.Errorf("%s %s=%s does not select the pods (labels %v)", name, k, v, labels)
			}
		}
	}
	if hpa.Spec.ScaleTargetRef.Kind != "Deployment" || hpa.Spec.ScaleTargetRef.Name != dep.Metadata.Name {
		t.Errorf("HPA scales %v; want Deployment %s", hpa.Spec.ScaleTargetRef, dep.Metadata.Name)
	}
	if hpa.Spec.MinReplicas < 2 || hpa.Spec.MaxReplicas <= hpa.Spec.MinReplicas {
		t.Errorf("HPA replicas %d..%d; want at least two, room to grow", hpa.Spec.MinReplicas, hpa.Spec.MaxReplicas)
	}
	if pdb.Spec.MinAvailable < 1 || pdb.Spec.MinAvailable >= hpa.Spec.MinReplicas {
		t.Errorf("PDB minAvailable %d; want 1..%d (drains must be possible)", pdb.Spec.MinAvailable, hpa.Spec.MinReplicas-1)
	}

	// Ports: the listen address, the container port, the probes, the Service.
	c := pod.Spec.Containers[0]
	ports := map[string]int{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	_, listen, err := net.SplitHostPort(cm.Data["TUTTI_ADDR"])
	if err != nil {
		t.Fatalf("ConfigMap TUTTI_ADDR %q: %v", cm.Data["TUTTI_ADDR"], err)
	}
	if host, _, _ := net.SplitHostPort(cm.Data["TUTTI_ADDR"]); host == "127.0.0.1" || host == "localhost" {
		t.Errorf("TUTTI_ADDR %q listens on loopback: the kubelet's probes cannot reach it", cm.Data["TUTTI_ADDR"])
	}
	if strconv.Itoa(ports["http"]) != listen {
		t.Errorf("container port http=%d; TUTTI_ADDR listens on %s", ports["http"], listen)
	}
	for name, p := range map[string]probe{"readiness": c.ReadinessProbe, "liveness": c.LivenessProbe, "startup": c.StartupProbe} {
		if _, ok := ports[p.HTTPGet.Port]; !ok {
			t.Errorf("%s probe port %q is not a container port %v", name, p.HTTPGet.Port, ports)
		}
	}
	for _, p := range svc.Spec.Ports {
		if _, ok := ports[p.TargetPort]; !ok {
			t.Errorf("Service targetPort %q is not a container port %v", p.TargetPort, ports)
		}
	}
	if grace := pod.Spec.TerminationGracePeriodSeconds; time.Duration(grace)*time.Second <= config.Default().ShutdownTimeout {
		t.Errorf("terminationGracePeriodSeconds %d; want more than tutti's shutdown timeout", grace)
	}
	// Configuration comes from the ConfigMap and the Secret by name.
	refs := map[string]bool{}
	for _, e := range c.EnvFrom {
		refs["ConfigMap/"+e.ConfigMapRef.Name] = e.ConfigMapRef.Name != ""
		refs["Secret/"+e.SecretRef.Name] = e.SecretRef.Name != ""
	}
	if !refs["ConfigMap/"+cm.Metadata.Name] || !refs["Secret/"+secret.Metadata.Name] {
		t.Errorf("envFrom %v; want ConfigMap %s and Secret %s", refs, cm.Metadata.Name, secret.Metadata.Name)
	}
	for k := range secret.StringData {
		if _, dup := cm.Data[k]; dup {
			t.Errorf("%s is in both the ConfigMap and the Secret", k)
		}
	}
	if secret.StringData["TUTTI_DATABASE_URL"] == "" {
		t.Error("the Secret holds no TUTTI_DATABASE_URL")
	}
}

// TestCompose: the services exist and the instances point at them.
func TestCompose(t *testing.T) {
	var cf struct {
		Services map[string]struct {
			Image       string
			Environment map[string]string
			Ports       []string
			Expose      []string
			Volumes     []string
			Networks    map[string]struct {
				IPv4 string `yaml:"ipv4_address"`
			}
		}
	}
	readYAML(t, "compose.yaml", &cf)
	for _, s := range []string{"postgres-primary", "postgres-replica", "redis", "nats1", "nats2", "nats3", "minio", "nginx", "tutti1", "tutti2"} {
		if _, ok := cf.Services[s]; !ok {
			t.Errorf("service %s missing", s)
		}
	}
	hostOf := func(raw string) string {
		u, err := url.Parse(raw)
		if err != nil {
			t.Errorf("%q: %v", raw, err)
			return ""
		}
		return u.Host
	}
	for _, name := range []string{"tutti1", "tutti2"} {
		env := cf.Services[name].Environment
		for k, want := range map[string]string{
			"TUTTI_DATABASE_URL": "postgres-primary:5432", "TUTTI_DATABASE_REPLICA_URL": "postgres-replica:5432",
			"TUTTI_REDIS_URL": "redis:6379", "TUTTI_STORAGE_URL": "minio:9000",
		} {
			if got := hostOf(env[k]); got != want {
				t.Errorf("%s %s host %q; want %q", name, k, got, want)
			}
		}
		for i, u := range strings.Split(env["TUTTI_NATS_URL"], ",") {
			if got, want := hostOf(u), "nats"+strconv.Itoa(i+1)+":4222"; got != want {
				t.Errorf("%s TUTTI_NATS_URL node %d %q; want %q", name, i+1, got, want)
			}
		}
		_, port, err := net.SplitHostPort(env["TUTTI_ADDR"])
		if err != nil || !slices.Contains(cf.Services[name].Expose, port) {
			t.Errorf("%s listens on %q, exposes %v", name, env["TUTTI_ADDR"], cf.Services[name].Expose)
		}
		if !strings.Contains(readFile(t, "compose.yaml"), "server "+name+":"+port+" ") {
			t.Errorf("nginx's upstream does not list %s:%s", name, port)
		}
		if nginxIP := cf.Services["nginx"].Networks["default"].IPv4; env["TUTTI_TRUSTED_PROXIES"] != nginxIP {
			t.Errorf("%s trusts %q; nginx is %q", name, env["TUTTI_TRUSTED_PROXIES"], nginxIP)
		}
	}
	for _, s := range cf.Services {
		for _, v := range s.Volumes {
			if src, _, _ := strings.Cut(v, ":"); strings.HasPrefix(src, "./") {
				if _, err := os.Stat(src); err != nil {
					t.Errorf("volume %s: %v", v, err)
				}
			}
		}
	}
}

// ---- the files' shapes ----------------------------------------------------

type meta struct {
	Name   string
	Labels map[string]string
}

type selector struct {
	MatchLabels map[string]string `yaml:"matchLabels"`
}

type probe struct {
	HTTPGet struct {
		Path string
		Port string
	} `yaml:"httpGet"`
}

type deployment struct {
	Kind     string
	Metadata meta
	Spec     struct {
		Selector selector
		Template struct {
			Metadata meta
			Spec     struct {
				TerminationGracePeriodSeconds int `yaml:"terminationGracePeriodSeconds"`
				Containers                    []struct {
					Ports []struct {
						Name          string
						ContainerPort int `yaml:"containerPort"`
					}
					EnvFrom []struct {
						ConfigMapRef struct{ Name string } `yaml:"configMapRef"`
						SecretRef    struct{ Name string } `yaml:"secretRef"`
					} `yaml:"envFrom"`
					ReadinessProbe probe `yaml:"readinessProbe"`
					LivenessProbe  probe `yaml:"livenessProbe"`
					StartupProbe   probe `yaml:"startupProbe"`
				}
			}
		}
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func readYAML(t *testing.T, name string, v any) {
	t.Helper()
	if err := yaml.Unmarshal([]byte(readFile(t, name)), v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// parseUnit reads a systemd unit: section -> key -> values (in order).
func parseUnit(t *testing.T, name string) map[string]map[string][]string {
	t.Helper()
	u := map[string]map[string][]string{}
	var sec map[string][]string
	for i, line := range strings.Split(readFile(t, name), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			sec = map[string][]string{}
			u[line[1:len(line)-1]] = sec
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok || sec == nil {
				t.Fatalf("%s:%d: %q is not KEY=value in a section", name, i+1, line)
			}
			sec[k] = append(sec[k], v)
		}
	}
	return u
}

func seconds(t *testing.T, s string) int {
	t.Helper()
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Errorf("duration %q: %v", s, err)
	}
	return int(d / time.Second)
}

func size(t *testing.T, s string) int {
	t.Helper()
	mult := 1
	switch {
	case strings.HasSuffix(s, "k"):
		mult, s = 1<<10, strings.TrimSuffix(s, "k")
	case strings.HasSuffix(s, "m"):
		mult, s = 1<<20, strings.TrimSuffix(s, "m")
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Errorf("size %q: %v", s, err)
	}
	return n * mult
}

// TestSettingsValidate: each place that configures instances gives a
// configuration the binary accepts (config.Validate parses the URLs).
func TestSettingsValidate(t *testing.T) {
	sets := map[string]map[string]string{}

	var cf struct {
		Services map[string]struct{ Environment map[string]string }
	}
	readYAML(t, "compose.yaml", &cf)
	sets["compose tutti1"] = cf.Services["tutti1"].Environment

	var cm struct{ Data map[string]string }
	readYAML(t, "k8s/configmap.yaml", &cm)
	var secret struct {
		StringData map[string]string `yaml:"stringData"`
	}
	readYAML(t, "k8s/secret.example.yaml", &secret)
	k8s := map[string]string{}
	for k, v := range cm.Data {
		k8s[k] = v
	}
	for k, v := range secret.StringData {
		k8s[k] = v
	}
	sets["k8s ConfigMap + Secret"] = k8s

	sets["systemd tutti.env.example"] = envLines(t, readFile(t, "systemd/tutti.env.example"))

	cmd := exec.Command("bash", "./local-cluster", "env")
	cmd.Env = append(os.Environ(), "TUTTI_CLUSTER_DIR="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("local-cluster env: %v", err)
	}
	lc := map[string]string{}
	for k, v := range envLines(t, strings.ReplaceAll(string(out), "export ", "")) {
		if strings.HasPrefix(k, "TUTTI_") && !ownVars.MatchString(k) {
			lc[k] = strings.Trim(v, "'")
		}
	}
	sets["local-cluster env"] = lc

	for name, env := range sets {
		if env["TUTTI_DATABASE_URL"] == "" {
			t.Errorf("%s: no TUTTI_DATABASE_URL in %v", name, env)
			continue
		}
		var c config.Config
		fs := flag.NewFlagSet("tutti", flag.ContinueOnError)
		app.Settings(fs, &c, func(k string) string { return env[k] })
		if err := fs.Parse(nil); err != nil {
			t.Fatal(err)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// envLines reads NAME=value lines, skipping comments.
func envLines(t *testing.T, s string) map[string]string {
	t.Helper()
	env := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("%q is not NAME=value", line)
		}
		env[k] = v
	}
	return env
}
