// Command chromerec records testdata/chromium.webm: a real Chromium
// MediaRecorder recording (audio/webm;codecs=opus) of a WAV file played
// through Chromium's fake microphone. Run from the repository root:
//
//	go run ./internal/media/audio/testdata/chromerec -in tone48k.wav -out internal/media/audio/testdata/chromium.webm -ms 2500
package main

import (
	"context"
	"encoding/base64"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/chromedp/chromedp"
)

const page = `<!doctype html><meta charset=utf-8><title>rec</title><script>
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

func main() {
	in := flag.String("in", "", "WAV file for the fake microphone")
	out := flag.String("out", "chromium.webm", "output file")
	ms := flag.Int("ms", 2500, "recording length in milliseconds")
	flag.Parse()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, page)
	}))
	dir, _ := os.MkdirTemp("", "chromerec")
	defer os.RemoveAll(dir)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath("/usr/bin/chromium"), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(dir),
		chromedp.Flag("use-fake-device-for-media-stream", true),
		chromedp.Flag("use-fake-ui-for-media-stream", true),
		chromedp.Flag("use-file-for-fake-audio-capture", *in),
		chromedp.Flag("autoplay-policy", "no-user-gesture-required"),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, time.Minute)
	defer cancelT()
	if _, err := chromedp.Run(ctx, chromedp.Navigate("http://"+ln.Addr().String()+"/")); err != nil {
		log.Fatal(err)
	}
	res, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf("rec(%d)", *ms), chromedp.EvalAwaitPromise))
	if err != nil {
		log.Fatal(err)
	}
	var mime, b64 string
	fmt.Sscan(res, &mime, &b64)
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("%s: %d bytes, %s", *out, len(data), mime)
}
