// The talk control: a seat's phone as the referee's microphone.
//
// Hold the button while speaking (touch, mouse, or Space held down); a short tap (or
// Enter, or a screen reader's activation) starts it instead, and the next tap sends.
// While it is on, talk-worklet.js records 16 kHz mono 16-bit samples; they are posted
// in chunks of about 200 ms, one after another, to /seat/N/talk/ID/INDEX, and the
// release posts /seat/N/talk/ID/end.  What the referee heard, and its answer, come back
// through the page's live updates (the talk region).  Without a microphone (no secure
// page, permission refused, no device) the line under the button says why, once;
// every other button keeps working.
"use strict";
(function () {
  const box = document.getElementById("talk");
  const button = document.getElementById("talk-button");
  const line = document.getElementById("talk-state");
  if (!box || !button || !line) return;
  const words = box.dataset;
  const base = box.dataset.talk;
  const HOLD_MS = 400;          // a press longer than this is a hold; shorter, a tap
  const CHUNK_SAMPLES = 3200;   // 200 ms at 16 kHz
  const LIMIT_MS = 10500;       // the referee cuts at 10 s; the phone stops soon after

  let stream = null, context = null, node = null, starting = null;
  let talking = false, tapped = false, downAt = 0, quietClicksUntil = 0, limit = null;
  let utterance = null;         // a promise of the id the referee gave this utterance
  let sending = Promise.resolve(), index = 0, failed = false, flushed = null;
  let pending = [], pendingSamples = 0, generation = 0, seenHeard = null;

  const say = (text) => { line.textContent = text || ""; };

  function problem() {
    if (!window.isSecureContext) return words.insecure;
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) return words.nodevice;
    if (!window.AudioContext || !window.AudioWorkletNode) return words.unsupported;
    return null;
  }

  function why(err) {
    const name = err && err.name;
    if (name === "NotAllowedError" || name === "SecurityError") return words.denied;
    if (name === "NotFoundError" || name === "OverconstrainedError" || name === "NotReadableError") return words.nodevice;
    return words.failed;
  }

  // The microphone, opened at the first press and kept while the page is shown (so a
  // press records at once); released when the page is hidden.
  function microphone() {
    if (node) return Promise.resolve();
    if (starting) return starting;
    starting = (async () => {
      const AudioCtx = window.AudioContext;
      context = new AudioCtx();
      const resumed = context.resume();
      stream = await navigator.mediaDevices.getUserMedia({ audio: {
        echoCancellation: true, noiseSuppression: true, autoGainControl: true, channelCount: 1 } });
      await resumed;
      await context.audioWorklet.addModule(box.dataset.worklet);
      const source = context.createMediaStreamSource(stream);
      node = new AudioWorkletNode(context, "talk-capture", { numberOfInputs: 1, numberOfOutputs: 1, outputChannelCount: [1] });
      node.port.onmessage = (event) => {
        if (event.data.pcm) collect(new Int16Array(event.data.pcm));
        if (event.data.flushed && flushed) { flushed(); flushed = null; }
      };
      source.connect(node);
      node.connect(context.destination);   // it outputs silence; connected, it is always run
    })();
    starting.catch(() => closeMicrophone()).finally(() => { starting = null; });
    return starting;
  }

  function closeMicrophone() {
    if (stream) stream.getTracks().forEach((t) => t.stop());
    if (context) context.close().catch(() => {});
    stream = null; context = null; node = null;
  }

  async function postJSON(url, body) {
    let response;
    try {
      response = await fetch(url, { method: "POST", credentials: "same-origin", body: body || null,
        headers: { "Accept": "application/json", "Content-Type": body ? "application/octet-stream" : "text/plain" } });
    } catch (err) {
      document.dispatchEvent(new CustomEvent("facilitator:unreachable"));   // screens.js: "Connection lost"
      return { ok: false, message: words.offline };
    }
    let reply = {};
    try { reply = await response.json(); } catch (err) { reply = {}; }
    return { ok: response.ok, status: response.status, ...reply };
  }

  function collect(samples) {
    if (failed || !utterance) return;
    pending.push(samples);
    pendingSamples += samples.length;
    if (pendingSamples >= CHUNK_SAMPLES) send();
  }

  // One chunk, after the one before it (the referee checks their order).
  function send() {
    if (!pendingSamples) return;
    const chunk = new Int16Array(pendingSamples);
    let at = 0;
    for (const part of pending) { chunk.set(part, at); at += part.length; }
    pending = []; pendingSamples = 0;
    const number = index++;
    const id = utterance;
    sending = sending.then(async () => {
      const given = await id;
      if (failed || !given) return;
      const reply = await postJSON(`${base}/${given}/${number}`, chunk.buffer);
      if (!reply.ok) fail(reply.message || words.failed);
    });
  }

  function fail(message) {
    failed = true;
    say(message);
    if (talking) stop(false);
  }

  function setPressed(on) {
    button.setAttribute("aria-pressed", on ? "true" : "false");
    button.textContent = on ? (tapped ? words.toggled : words.holding) : words.idle;
  }

  async function start() {
    if (talking) return;
    const reason = problem();
    if (reason) { say(reason); return; }
    talking = true; failed = false; index = 0; pending = []; pendingSamples = 0; sending = Promise.resolve();
    utterance = null;
    generation += 1;
    setPressed(true);
    say("");
    try {
      await microphone();            // at once after the first press: it stays open
    } catch (err) {
      fail(why(err));
      return;
    }
    if (!talking) return;            // released while the microphone was opening
    // the press goes to the referee (it stops talking); what is said meanwhile waits for its id
    utterance = postJSON(base).then((reply) => {
      if (!reply.ok) { fail(reply.message || words.failed); return null; }
      return reply.utterance;
    });
    node.port.postMessage({ talk: true });
    limit = setTimeout(() => stop(true), LIMIT_MS);
  }

  async function stop(send_it) {
    if (!talking) return;
    talking = false; tapped = false;
    clearTimeout(limit);
    setPressed(false);
    const mine = generation;
    if (node) {
      const done = new Promise((resolve) => { flushed = resolve; });
      node.port.postMessage({ talk: false });
      await Promise.race([done, new Promise((resolve) => setTimeout(resolve, 500))]);
    }
    // not sent: asked not to, refused on the way, or a new press began meanwhile
    if (send_it === false || failed || mine !== generation) return;
    send();
    const chunks = index;
    const id = utterance;
    sending = sending.then(async () => {
      const given = await id;
      if (failed || !given) return;
      const reply = await postJSON(`${base}/${given}/end?chunks=${chunks}`);
      say(reply.ok ? (reply.message || words.sending) : (reply.message || words.failed));
    });
  }

  // Pointer: a hold talks while held; a tap turns it on, and the next tap sends.
  button.addEventListener("pointerdown", (e) => {
    if (e.button !== 0 && e.pointerType === "mouse") return;
    e.preventDefault();
    quietClicksUntil = Date.now() + 1000;
    if (talking) { stop(); return; }
    downAt = Date.now();
    tapped = false;
    try { button.setPointerCapture(e.pointerId); } catch (err) { /* not capturable */ }
    start();
  });
  const lift = () => {
    quietClicksUntil = Date.now() + 1000;
    if (!talking || tapped) return;
    if (Date.now() - downAt >= HOLD_MS) stop();
    else { tapped = true; setPressed(true); }
  };
  button.addEventListener("pointerup", lift);
  button.addEventListener("pointercancel", lift);
  button.addEventListener("contextmenu", (e) => e.preventDefault());   // a long press is not a menu

  // Keys: Space held down talks while held (a short press taps); Enter taps.
  button.addEventListener("keydown", (e) => {
    if (e.key !== " " && e.key !== "Enter") return;
    e.preventDefault();
    quietClicksUntil = Date.now() + 1000;
    if (e.repeat) return;
    if (talking) { stop(); return; }
    downAt = Date.now();
    tapped = e.key === "Enter";
    start();
  });
  button.addEventListener("keyup", (e) => {
    if (e.key !== " ") return;
    e.preventDefault();
    lift();
  });
  // A screen reader's activation (or any click not made by the pointer or the keys): a tap.
  button.addEventListener("click", (e) => {
    e.preventDefault();
    if (Date.now() < quietClicksUntil) return;
    if (talking) { stop(); return; }
    tapped = true;
    start();
  });

  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") {
      if (talking) stop(false);
      closeMicrophone();
    }
  });

  // The talk region follows the referee: shown only where it listens for voices; a new
  // hearing replaces the "Sent" line.
  // Focus never falls to the page's body: when the question's Yes and No go away (answered,
  // or closed by the referee) while focus was on them, it moves to the referee's answer,
  // and stays on the newest answer as the region is redrawn, until the player moves it.
  let answerHeldFocus = false;
  function keepFocus(region) {
    if (!answerHeldFocus || region.querySelector("form.talk-answer")) return;
    const active = document.activeElement;
    if (active && active !== document.body && active.isConnected) return;
    const target = region.querySelector(".reply") || line;
    target.focus({ preventScroll: true });
  }

  function follow() {
    const region = document.getElementById("region-talk");
    const state = region && region.querySelector("[data-listening]");
    if (!state) return;
    keepFocus(region);
    const on = state.dataset.listening === "yes";
    button.hidden = !on;
    const hint = document.getElementById("talk-hint");
    if (hint) hint.hidden = !on;
    if (!on && talking) stop(false);
    if (state.dataset.heard !== seenHeard) {
      if (seenHeard !== null && line.textContent === words.sending) say("");
      seenHeard = state.dataset.heard;
    }
  }
  const region = document.getElementById("region-talk");
  if (region) new MutationObserver(follow).observe(region, { childList: true, subtree: true });
  follow();

  // Yes / No on the referee's question about what this phone said: sent without leaving
  // the page (a page without this script posts the form); the live update that follows
  // shows the referee's answer and takes the buttons away.
  if (region) {
    region.addEventListener("focusin", (event) => {
      if (event.target.closest && event.target.closest("form.talk-answer")) answerHeldFocus = true;
    });
    region.addEventListener("focusout", (event) => {
      const next = event.relatedTarget;
      if (next && !region.contains(next)) answerHeldFocus = false;   // the player moved it elsewhere
    });
  }
  if (region) region.addEventListener("submit", async (event) => {
    const form = event.target.closest ? event.target.closest("form.talk-answer") : null;
    if (!form) return;
    event.preventDefault();
    answerHeldFocus = true;
    const chosen = event.submitter ? event.submitter.value : "";
    if (chosen !== "yes" && chosen !== "no") return;
    form.querySelectorAll("button").forEach((b) => { b.disabled = true; });
    let reply = {};
    try {
      const response = await fetch(form.getAttribute("action"), { method: "POST", credentials: "same-origin",
        body: "answer=" + chosen,
        headers: { "Accept": "application/json", "Content-Type": "application/x-www-form-urlencoded" } });
      try { reply = await response.json(); } catch (err) { reply = {}; }
    } catch (err) {
      reply = { message: words.offline };
      if (form.isConnected) form.querySelectorAll("button").forEach((b) => { b.disabled = false; });
    }
    say(reply.message || "");
  });

  // Say up front what will not work, so nobody holds a dead button.
  const reason = problem();
  if (reason) { say(reason); button.setAttribute("aria-disabled", "true"); }
  else if (navigator.permissions && navigator.permissions.query) {
    navigator.permissions.query({ name: "microphone" }).then((status) => {
      const show = () => {
        if (status.state === "denied") { say(words.denied); button.setAttribute("aria-disabled", "true"); }
        else if (line.textContent === words.denied) { say(""); button.removeAttribute("aria-disabled"); }
      };
      show();
      status.onchange = show;
    }).catch(() => {});
  }
})();
