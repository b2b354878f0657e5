package audio

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

const recordPage = `<!doctype html><meta charset=utf-8><title>rec</title><script>
async function rec(ms) {
  const stream = await navigator.mediaDevices.getUserMedia({audio: true});
  const r = new MediaRecorder(stream, {mimeType: 'audio/webm;codecs=opus'});
  const parts = [];
  r.ondataavailable = e => parts.push(e.data);
  const done = new Promise(res => r.onstop = res);
  r.start(250);
  await new Promise(res => setTimeout(res, ms));
  r.stop();
  await done;
  stream.getTracks().forEach(t => t.stop());
  const buf = new Uint8Array(await new Blob(parts).arrayBuffer());
  let s = '';
  for (let i = 0; i < buf.length; i++) s += String.fromCharCode(buf[i]);
  return r.mimeType + ' ' + btoa(s);
}
</script>`

// toneWAV is the fixtures' tone as a 48 kHz mono 16-bit WAV: 1.25 s of a
// 440 Hz sine at 0.8 of full scale, then 1.25 s of silence.
func toneWAV() []byte {
	const rate, n = 48000, 120000
	var b bytes.Buffer
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(36+2*n))
	b.WriteString("WAVEfmt ")
	binary.Write(&b, binary.LittleEndian, []uint32{16})
	binary.Write(&b, binary.LittleEndian, []uint16{1, 1})
	binary.Write(&b, binary.LittleEndian, []uint32{rate, 2 * rate})
	binary.Write(&b, binary.LittleEndian, []uint16{2, 16})
	b.WriteString("data")
	binary.Write(&b, binary.LittleEndian, uint32(2*n))
	for i := 0; i < n; i++ {
		var v float64
		if i < n/2 {
			v = 0.8 * math.Sin(2*math.Pi*440*float64(i)/rate)
		}
		binary.Write(&b, binary.LittleEndian, int16(v*32767))
	}
	return b.Bytes()
}

// recordChromium records ms of the tone through Chromium's fake microphone
// with MediaRecorder, as the music app's recorder does.
func recordChromium(t *testing.T, ms int) []byte {
	t.Helper()
	dir := t.TempDir()
	wav := filepath.Join(dir, "tone48k.wav")
	if err := os.WriteFile(wav, toneWAV(), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, recordPage)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	path := os.Getenv("TUTTI_CHROMIUM")
	if path == "" {
		path = "/usr/bin/chromium"
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(filepath.Join(dir, "profile")),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("use-fake-device-for-media-stream", true),
		chromedp.Flag("use-fake-ui-for-media-stream", true),
		chromedp.Flag("use-file-for-fake-audio-capture", wav),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, time.Minute)
	defer cancelT()
	if _, err := chromedp.Run(ctx, chromedp.Navigate("http://"+ln.Addr().String()+"/")); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	res, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf("rec(%d)", ms), chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("record: %v", err)
	}
	var mime, b64 string
	fmt.Sscan(res, &mime, &b64)
	if mime != "audio/webm;codecs=opus" {
		t.Fatalf("MediaRecorder type = %q; want audio/webm;codecs=opus", mime)
	}
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestBrowserChromiumRecording records afresh with the installed Chromium and
// reads it: Probe finds the length that the blocks carry, pion/opus decodes
// loud and silent stretches. TUTTI_AUDIO_WRITE_FIXTURE=1 also saves it as
// testdata/chromium.webm (then update chromiumDur and chromiumPeaks with
// the commands in testdata/README.md).
func TestBrowserChromiumRecording(t *testing.T) {
	if os.Getenv("TUTTI_TEST_BROWSER") == "" {
		t.Skip("set TUTTI_TEST_BROWSER=1 to record with Chromium (needs Debian's chromium)")
	}
	const ms = 2600
	data := recordChromium(t, ms)
	if os.Getenv("TUTTI_AUDIO_WRITE_FIXTURE") != "" {
		if err := os.WriteFile(filepath.Join("testdata", "chromium.webm"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	info, err := Probe(context.Background(), bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("Probe: %v", err)
	}
	t.Logf("Probe = %+v", info)
	// MediaRecorder stops when told, give or take a packet and the time
	// the fake device takes to start.
	if info.Format != "webm-opus" || info.Duration < ms*time.Millisecond*8/10 || info.Duration > ms*time.Millisecond+time.Second {
		t.Errorf("Probe = %+v; want webm-opus of about %d ms", info, ms)
	}
	p, err := Peaks(context.Background(), bytes.NewReader(data), int64(len(data)), 40)
	if err != nil {
		t.Fatalf("Peaks: %v", err)
	}
	t.Logf("peaks = %v", p)
	var loud, quiet int
	for _, v := range p {
		if v >= 60 {
			loud++
		}
		if v <= 10 {
			quiet++
		}
	}
	// The tone loops: 1.25 s on, 1.25 s off, from wherever it is.
	if loud < 8 || quiet < 8 {
		t.Errorf("peaks %v: %d loud, %d quiet; want >= 8 of each", p, loud, quiet)
	}
}
