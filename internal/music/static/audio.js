// music: audio posts. The waveform seeks its player and shows what was
// played; a listen is counted once (POST /music/p/{id}/play); a comment's
// "at" is filled from the player; the moments of timed comments seek; the
// share form measures a chosen file (peaks, duration: a stand-in for what
// the server cannot decode) and records a voice memo where the browser can
// (MediaRecorder). Every page works without this file.

const clock = (s) => {
  s = Math.max(0, Math.floor(s));
  const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, ss = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
};

// The player of an audio box, its length in seconds (the server's, until
// the browser knows it).
const playerOf = (box) => box.querySelector("audio");
const lengthOf = (box) => {
  const a = playerOf(box);
  return a && isFinite(a.duration) && a.duration > 0 ? a.duration : Number(box.dataset.duration) / 1000;
};

// seek plays box's audio from t seconds.
function seek(box, t) {
  const a = playerOf(box);
  if (!a) return;
  const go = () => {
    a.currentTime = Math.min(Math.max(t, 0), lengthOf(box));
    a.play().catch(() => {});
    paint(box);
  };
  if (a.readyState >= 1) go();
  else {
    a.preload = "metadata";
    a.addEventListener("loadedmetadata", go, { once: true });
    a.load();
  }
}

// paint moves the played part of box's waveform to the player's time.
function paint(box) {
  const a = playerOf(box), clip = box.querySelector(".played-clip"), svg = box.querySelector("svg.wave");
  if (!a || !clip || !svg) return;
  const w = svg.viewBox.baseVal.width, len = lengthOf(box);
  clip.setAttribute("width", len > 0 ? String((w * a.currentTime) / len) : "0");
}

for (const box of document.querySelectorAll(".audio[data-post]")) {
  const a = playerOf(box);
  if (!a) continue;
  let counted = false;
  a.addEventListener("timeupdate", () => paint(box));
  a.addEventListener("seeked", () => paint(box));
  a.addEventListener("play", () => {
    if (counted) return; // one listen, whatever the seeks and pauses
    counted = true;
    fetch(`/music/p/${box.dataset.post}/play`, { method: "POST", credentials: "same-origin" })
      .then((res) => {
        const plays = box.querySelector(".plays");
        if (res.ok && plays) {
          const n = Number(plays.dataset.plays) + 1;
          plays.dataset.plays = String(n);
          plays.textContent = n === 1 ? "1 play" : `${n} plays`;
        }
      })
      .catch(() => {});
  });
  a.addEventListener("ended", () => { counted = false; }); // the next play is another listen
}

document.addEventListener("click", (e) => {
  if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
  // A timed comment's tick, or its moment in a list: seek there.
  const at = e.target.closest("a[data-at]");
  if (at) {
    const post = at.getAttribute("href").match(/\/music\/p\/(\d+)\/audio/);
    const box = post && document.querySelector(`.audio[data-post="${post[1]}"]`);
    if (box) {
      e.preventDefault();
      seek(box, Number(at.dataset.at) / 1000);
    }
    return;
  }
  // The waveform: seek to where it was clicked.
  const svg = e.target.closest("svg.wave");
  if (svg) {
    const box = svg.closest(".audio"), r = svg.getBoundingClientRect();
    if (box && r.width > 0) seek(box, ((e.clientX - r.left) / r.width) * lengthOf(box));
  }
});

// An audio being processed (its author's page): the page comes again
// once its waveform is made (a check every 2 s, for a minute at most).
const busy = document.querySelector(".audio .processing")?.closest(".audio");
if (busy) {
  let tries = 0;
  const check = async () => {
    if (++tries > 30) return;
    try {
      const res = await fetch(`/music/p/${busy.dataset.post}`, { headers: { Accept: "text/html" } });
      const html = await res.text();
      if (res.ok && !html.includes('class="processing')) {
        location.reload();
        return;
      }
    } catch {}
    setTimeout(check, 2000);
  };
  setTimeout(check, 2000);
}

// A comment's "at" follows the player until it is typed in.
for (const input of document.querySelectorAll("input.at-input")) {
  const box = input.closest(".post")?.querySelector(".audio");
  const a = box && playerOf(box);
  if (!a) continue;
  const fill = () => { if (!input.dataset.typed) input.value = clock(a.currentTime); };
  a.addEventListener("pause", fill);
  a.addEventListener("seeked", fill);
  a.addEventListener("timeupdate", () => { if (!a.paused) fill(); });
  input.addEventListener("input", () => { input.dataset.typed = "1"; });
}

// peaksOf measures a recording or a chosen file: n peaks (0-255) and its
// length, or null where the browser cannot decode it.
async function peaksOf(blob, n = 200) {
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!Ctx) return null;
  const ctx = new Ctx();
  try {
    const buf = await ctx.decodeAudioData(await blob.arrayBuffer());
    const data = buf.getChannelData(0), step = Math.max(1, Math.floor(data.length / n)), out = [];
    let top = 0;
    for (let i = 0; i < n; i++) {
      let m = 0;
      for (let j = i * step; j < Math.min((i + 1) * step, data.length); j++) m = Math.max(m, Math.abs(data[j]));
      out.push(m);
      top = Math.max(top, m);
    }
    return { peaks: out.map((v) => Math.round(top > 0 ? (255 * v) / top : 0)), ms: Math.round(buf.duration * 1000) };
  } catch {
    return null;
  } finally {
    ctx.close();
  }
}

const form = document.querySelector("form[data-audio-form]");
if (form) {
  const file = form.querySelector("input[type=file]");
  const measure = async (blob) => {
    form.elements.peaks.value = "";
    form.elements.duration_ms.value = "";
    const m = blob && (await peaksOf(blob));
    if (m) {
      form.elements.peaks.value = m.peaks.join(",");
      form.elements.duration_ms.value = String(m.ms);
    }
  };
  file.addEventListener("change", () => measure(file.files[0]));

  // The recorder: record, stop, listen back, discard or post (the
  // recording goes in the form's file field, sent as a chosen file).
  const rec = form.querySelector(".recorder");
  if (rec && window.MediaRecorder && navigator.mediaDevices?.getUserMedia && window.DataTransfer) {
    const $ = (s) => rec.querySelector(s);
    const start = $(".rec-start"), stop = $(".rec-stop"), time = $(".rec-time"), listen = $(".rec-listen"),
      discard = $(".rec-discard"), status = $(".rec-status");
    let recorder = null, timer = 0, url = "";
    rec.hidden = false;
    const show = (state) => {
      start.hidden = state === "recording";
      stop.hidden = state !== "recording";
      time.hidden = state === "idle";
      listen.hidden = discard.hidden = state !== "recorded";
      start.lastChild.textContent = state === "recorded" ? " Record again" : " Record";
    };
    const clear = () => {
      if (url) URL.revokeObjectURL(url);
      url = "";
      listen.removeAttribute("src");
      file.value = "";
      measure(null);
    };
    start.addEventListener("click", async () => {
      clear();
      let stream;
      try {
        stream = await navigator.mediaDevices.getUserMedia({ audio: true });
      } catch {
        status.textContent = "The microphone is not available: allow it, or choose a file.";
        return;
      }
      const type = ["audio/webm;codecs=opus", "audio/ogg;codecs=opus", "audio/mp4"].find((t) => MediaRecorder.isTypeSupported(t));
      recorder = new MediaRecorder(stream, type ? { mimeType: type } : undefined);
      const chunks = [];
      recorder.addEventListener("dataavailable", (e) => { if (e.data.size) chunks.push(e.data); });
      recorder.addEventListener("stop", () => {
        stream.getTracks().forEach((t) => t.stop());
        clearInterval(timer);
        const mime = (recorder.mimeType || "audio/webm").split(";")[0];
        const ext = mime.includes("ogg") ? "ogg" : mime.includes("mp4") ? "m4a" : "webm";
        const blob = new Blob(chunks, { type: mime });
        const dt = new DataTransfer();
        dt.items.add(new File([blob], `voice-memo.${ext}`, { type: mime }));
        file.files = dt.files;
        url = URL.createObjectURL(blob);
        listen.src = url;
        status.textContent = `Recorded ${time.textContent}: listen, then post it, or discard it.`;
        show("recorded");
        measure(blob);
      });
      const began = Date.now();
      time.textContent = "0:00";
      timer = setInterval(() => {
        time.textContent = clock((Date.now() - began) / 1000);
        if (Date.now() - began >= 15 * 60 * 1000) recorder.stop(); // the limit
      }, 250);
      recorder.start(1000);
      status.textContent = "Recording…";
      show("recording");
    });
    stop.addEventListener("click", () => recorder?.state === "recording" && recorder.stop());
    discard.addEventListener("click", () => {
      clear();
      status.textContent = "Discarded.";
      show("idle");
    });
    show("idle");
  }
}
