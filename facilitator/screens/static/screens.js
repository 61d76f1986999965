// Live screens without a build step: server-sent events replace the regions whose
// HTML changed; append-only logs (data-append) get only their new items, so a screen
// reader hears each announcement once.  Forms post in the background; the reply's
// private lines (or public ones) show next to the form at once, until the game moves on.
"use strict";
(function () {
  const last = {};
  let picked = null;
  let current = Number(document.body.dataset.version) || 0;   // the newest version shown
  const action = () => document.body.dataset.action || null;

  function focusKey() {
    const el = document.activeElement;
    return el && el.id ? el.id : null;
  }

  function apply(name, html, whole) {
    if (last[name] === html) return;
    last[name] = html;
    const region = document.getElementById("region-" + name);
    if (!region) return;
    const fresh = document.createElement("div");
    fresh.innerHTML = html;
    const oldLog = region.querySelector("[data-append]");
    const newLog = fresh.querySelector("[data-append]");
    if (oldLog && newLog && whole) {
      // after a reconnection the server may number its log anew: replace it quietly
      // (a screen reader is not read the whole log again; "Connected again." is said)
      const live = oldLog.getAttribute("aria-live");
      oldLog.setAttribute("aria-live", "off");
      oldLog.replaceChildren(...Array.from(newLog.children));
      toNewest(oldLog);
      setTimeout(() => { if (live) oldLog.setAttribute("aria-live", live); else oldLog.removeAttribute("aria-live"); }, 500);
      return;
    }
    if (oldLog && newLog) {
      const seen = Math.max(0, ...Array.from(oldLog.children, (li) => Number(li.dataset.n) || 0));
      for (const li of Array.from(newLog.children)) {
        if ((Number(li.dataset.n) || 0) > seen) oldLog.appendChild(li);
      }
      toNewest(oldLog);
      return;
    }
    const focused = focusKey();
    const focusedForm = document.activeElement && document.activeElement.closest ? document.activeElement.closest("form.control") : null;
    const focusedKey = focusedForm && region.contains(focusedForm) ? formKey(focusedForm) : null;
    const typed = {};
    region.querySelectorAll("input[id]").forEach((i) => { typed[i.id] = i.value; });
    // a picker keeps what was picked when its form is redrawn (never back to a default)
    const chosen = {};
    region.querySelectorAll("select[id]").forEach((c) => { chosen[c.id] = c.value; });
    // a form's reply (and a question it asks) stays beside it when the form is redrawn
    const replies = {};
    region.querySelectorAll("form.control").forEach((f) => {
      const spot = f.querySelector("[data-feedback]");
      const ask = f.querySelector("[data-ask]");
      if ((spot && spot.textContent) || ask) replies[formKey(f)] = { text: spot ? spot.textContent : "", ask: ask, version: spot ? spot.dataset.version : undefined };
    });
    // a folded part the reader opened (the questions, the catalogue) stays open
    const opened = Array.from(region.querySelectorAll("details"), (d) => d.open);
    const scrolls = {};
    region.querySelectorAll(".scroller[id]").forEach((b) => { scrolls[b.id] = b.scrollTop; });
    // the page's reply placed after a board (placeReply) stays after the board redrawn
    const reply = document.getElementById("feedback");
    const held = reply && region.contains(reply) ? reply : null;
    if (held) held.remove();
    region.innerHTML = html;
    if (held) { const board = region.querySelector("[data-board]"); if (board) board.after(held); else region.before(held); }
    region.querySelectorAll("input[id]").forEach((i) => { if (typed[i.id]) i.value = typed[i.id]; });
    region.querySelectorAll("select[id]").forEach((c) => {
      if (chosen[c.id] && Array.from(c.options).some((o) => o.value === chosen[c.id])) c.value = chosen[c.id];
    });
    const folds = region.querySelectorAll("details");
    if (folds.length === opened.length) folds.forEach((d, i) => { d.open = opened[i]; });
    for (const [key, kept] of Object.entries(replies)) {
      const f = formByKey(key);
      if (!f) { if (kept.text) pageFeedback(kept.text, kept.version); continue; }
      const spot = f.querySelector("[data-feedback]");
      if (spot && kept.text) stamp(spot, kept.text, kept.version);
      if (kept.ask) f.appendChild(kept.ask);
    }
    region.querySelectorAll(".scroller[id]").forEach((b) => { if (b.id in scrolls) b.scrollTop = scrolls[b.id]; });
    region.querySelectorAll("[data-newest]").forEach(toNewest);
    const again = focused && document.getElementById(focused);
    if (again) again.focus({ preventScroll: true });   // a redraw never moves the page
    else if (focusedKey) {
      // the focused control is gone (the move was made): focus stays on its form (on
      // its reply, when it has one) if it is still there, else on the page's reply
      const f = formByKey(focusedKey);
      const target = f ? (f.querySelector("[data-feedback]:not(:empty)") || f.querySelector("button, select, input:not([type=hidden])"))
        : document.getElementById("feedback");
      if (target) focusOn(target);
    }
    picked = null;
  }

  // Logs show their newest line: scrolled to the bottom on load and on every change.
  function toNewest(log) {
    const box = log.closest(".scroller") || log;
    box.scrollTop = box.scrollHeight;
  }

  // The live stream.  When the server cannot be reached (a crash, a restart, a phone
  // out of range) the page says so in #connection, visibly and to a screen reader,
  // and keeps trying; the first update after it is back replaces every region whole
  // (a restarted server numbers its log anew).  A page of another kind (the lobby
  // became a game, or the game the lobby again) is reloaded.
  let lost = false;
  let retry = null;
  let delay = 1000;
  const notice = () => document.getElementById("connection");

  // A reply says what the click did; once the game has moved on (a newer live update)
  // it no longer says what is so, and goes (the announcements and messages keep it).
  function stamp(spot, text, version) {
    spot.textContent = text;
    if (version !== undefined && version !== null && text) spot.dataset.version = String(version);
    else delete spot.dataset.version;
  }
  function clearReplies(version) {
    document.querySelectorAll("[data-feedback][data-version], #feedback[data-version]").forEach((spot) => {
      if (Number(spot.dataset.version) < version) { spot.textContent = ""; delete spot.dataset.version; }
    });
  }

  // At the game's end the screens close: the page keeps what it shows (the result),
  // says so, and stops trying to reconnect.
  let closed = false;
  function setClosed() {
    closed = true;
    const el = notice();
    if (el) { el.classList.remove("back"); el.classList.add("closed"); el.textContent = el.dataset.closed; }
  }

  function setLost(isLost) {
    if (closed) return;
    const el = notice();
    if (isLost && !lost && el) { el.classList.remove("back"); el.textContent = el.dataset.lost; }
    if (!isLost && lost && el) {
      el.classList.add("back");
      el.textContent = el.dataset.back;
      setTimeout(() => { if (!lost && el.classList.contains("back")) { el.textContent = ""; el.classList.remove("back"); } }, 4000);
    }
    lost = isLost;
  }

  // A click or a talk that could not be sent: the page says the connection is lost
  // (its live stream may still be open while new connections fail) and asks for the
  // page every two seconds until the service answers again.
  let probing = null;
  function unreachable() {
    setLost(true);
    if (probing || closed) return;
    probing = setInterval(async () => {
      try {
        await fetch(window.location.href, { method: "HEAD", credentials: "same-origin", cache: "no-store" });
      } catch (err) { return; }
      clearInterval(probing);
      probing = null;
      setLost(false);
    }, 2000);
  }
  document.addEventListener("facilitator:unreachable", unreachable);

  function connect() {
    const url = document.body.dataset.live;
    if (!url || !window.EventSource) return;
    retry = null;
    const source = new EventSource(url);
    const loaded = document.body.dataset.version;
    let fresh = lost;
    source.onopen = () => { delay = 1000; };
    source.onmessage = (e) => {
      const data = JSON.parse(e.data);
      const page = document.body.dataset.page;
      if (data.page !== undefined && page && data.page !== page) { source.close(); window.location.reload(); return; }
      document.body.dataset.seen = data.version;
      if (!fresh && String(data.version) === loaded && !Object.keys(last).length) {
        // the page was rendered at this very version: keep it (redrawing the same
        // prompt would make a screen reader announce "Your turn" a second time)
        for (const [name, html] of Object.entries(data.regions)) last[name] = html;
        setLost(false);
        return;
      }
      const whole = fresh;
      if (fresh) { for (const k of Object.keys(last)) delete last[k]; }
      for (const [name, html] of Object.entries(data.regions)) apply(name, html, fresh);
      fresh = false;
      document.body.dataset.version = data.version;
      current = Number(data.version) || current;
      // after a reconnection (a restarted server numbers its versions anew) every reply is old
      clearReplies(whole ? Infinity : current);
      setLost(false);
    };
    source.addEventListener("closed", () => { source.close(); setClosed(); });
    source.onerror = () => {
      if (closed) { source.close(); return; }
      setLost(true);
      fresh = true;
      if (source.readyState === EventSource.CLOSED && !retry) {
        // refused (e.g. the server answered before it was ready): try again ourselves;
        // a page whose seat was released meanwhile reloads into the page that says why
        retry = setTimeout(async () => {
          try {
            const probe = await fetch(window.location.href, { method: "HEAD", credentials: "same-origin", cache: "no-store" });
            if (probe.status === 403 || probe.status === 404) { window.location.reload(); return; }
          } catch (err) { /* still unreachable */ }
          connect();
        }, delay);
        delay = Math.min(delay * 2, 10000);
      }
    };
    source.addEventListener("released", () => { source.close(); window.location.reload(); });
    // a newer page of this seat (another tab, a reload) took the live updates: say so, stop
    source.addEventListener("replaced", () => {
      source.close();
      closed = true;
      const el = notice();
      if (el) { el.classList.remove("back"); el.classList.add("closed"); el.textContent = el.dataset.replaced; }
    });
  }

  // A live update may redraw a form between a request and its answer: answer into the
  // form that is on the page now (a form is known by where it posts and its control).
  const checkForm = (id) => document.querySelector(`form[data-control="${id}"]`);
  function formKey(form) {
    const control = form.querySelector("input[name=control]");
    return (form.getAttribute("action") || "") + "|" + (control ? control.value : "");
  }
  const formByKey = (key) => Array.from(document.querySelectorAll("form.control")).find((f) => formKey(f) === key) || null;
  const live = (form, key) => (form && form.isConnected ? form : (key ? formByKey(key) : null));
  const words = (name) => { const el = notice(); return (el && el.dataset[name]) || ""; };

  // Focus moved by the page (never by a redraw alone): a reply or a form's reply line
  // is focusable for it, without joining the tab order.
  function focusOn(el) {
    if (!el.matches("button, select, input, textarea, a[href]") && !el.hasAttribute("tabindex")) el.tabIndex = -1;
    el.focus({ preventScroll: true });
  }

  // On a phone the page's reply (a tap on a board, a form that went away with the move)
  // stands in the page's flow where the seat acted: after the board it touched, else
  // just before its moves; never sticky over the controls needed next or the board.
  function placeReply(spot, near) {
    if (!document.body.classList.contains("seat")) return;
    // the board tapped may have been redrawn meanwhile: the one on the page now
    const board = near ? (near.isConnected ? near : document.querySelector("[data-board]")) : null;
    const controls = document.getElementById("region-controls");
    const focused = document.activeElement === spot;     // moving a node takes its focus away
    if (board) board.after(spot);
    else if (controls) controls.before(spot);
    if (focused) spot.focus({ preventScroll: true });
  }

  function pageFeedback(text, version, near) {
    const spot = document.getElementById("feedback");
    if (!spot) return;
    if (text) placeReply(spot, near);
    stamp(spot, text, version);
    if (text && document.body.classList.contains("seat")) spot.scrollIntoView({ block: "nearest" });
  }

  // ``version``: the live version the reply belongs to (a reply to a click); none for
  // the answer of a checked field, which stays while its words are typed.  ``near``:
  // the board a tap was on.  A reply that lands while focus is lost (its control went
  // with the move) takes the focus, so a keyboard or screen-reader user is where it is.
  function show(form, text, key, version, near) {
    form = live(form, key);
    const spot = form && form.querySelector("[data-feedback]");
    if (spot) stamp(spot, text, version);
    else pageFeedback(text, version, near);
    const lost = !document.activeElement || document.activeElement === document.body;
    const shown = spot || document.getElementById("feedback");
    if (text && lost && shown) focusOn(shown);
  }

  // A click that discards progress (or releases a seat) is asked first: the question
  // and Yes / No appear in the form; Yes sends it again, confirmed.
  function ask(form, key, url, body, question) {
    form = live(form, key);
    if (!form) { pageFeedback(question); return; }
    const old = form.querySelector("[data-ask]");
    if (old) old.remove();
    const box = document.createElement("div");
    box.className = "ask";
    box.dataset.ask = "";
    box.setAttribute("role", "group");
    const text = document.createElement("p");
    text.setAttribute("role", "alert");
    text.className = "question";
    text.textContent = question;
    box.setAttribute("aria-label", question);
    const yes = document.createElement("button");
    yes.type = "button";
    yes.className = "yes";
    yes.textContent = words("yes");
    const no = document.createElement("button");
    no.type = "button";
    no.className = "no";
    no.textContent = words("no");
    yes.addEventListener("click", () => {
      const confirmed = new URLSearchParams(body);
      confirmed.set("confirm", "yes");
      const holder = box.closest("form");
      // focus goes to where the answer will be (the form's reply line), not to the page
      // body with the question that held it
      const spot = holder && holder.querySelector("[data-feedback]");
      if (spot) focusOn(spot);
      box.remove();
      post(url, confirmed, holder, key);
    });
    no.addEventListener("click", () => {
      const holder = box.closest("form");
      box.remove();
      show(holder, words("kept"), key, current);
      const first = holder && holder.querySelector("button, select, input:not([type=hidden])");
      if (first) first.focus();
    });
    box.append(text, yes, no);
    form.appendChild(box);
    no.focus();
  }

  async function post(url, body, form, key, near) {
    key = key || (form ? formKey(form) : null);
    let response;
    try {
      response = await fetch(url, { method: "POST", body: body, credentials: "same-origin",
        headers: { "Accept": "application/json", "Content-Type": "application/x-www-form-urlencoded" } });
    } catch (err) {
      show(form, words("offline"), key, undefined, near);   // the service is down (or the phone is out of range)
      unreachable();
      return;
    }
    if (response.redirected || !response.ok) {
      if (response.status === 403) { window.location.reload(); return; }
      const why = response.status === 409 ? "stale" : (response.status === 422 ? "choose" : "failed");
      show(form, words(why), key, current, near);
      return;
    }
    const reply = await response.json();
    if (reply.confirm) { ask(form, key, url, body, reply.confirm); return; }
    // sent: a picker with nothing preselected goes back to "Choose" (the next move is picked afresh)
    const sent = live(form, key);
    if (sent) sent.querySelectorAll("select[required]").forEach((c) => { c.value = ""; });
    const lines = (reply.private && reply.private.length ? reply.private : reply.public) || [];
    show(form, lines.length ? lines.join(" ") : (reply.accepted === null ? words("queued") : ""), key,
      reply.version !== undefined ? reply.version : current, near);
  }

  document.addEventListener("submit", (e) => {
    const form = e.target;
    if (!(form instanceof HTMLFormElement) || !form.classList.contains("control")) return;
    e.preventDefault();
    if (form.dataset.check) restamp(form.dataset.control);
    const body = new URLSearchParams(new FormData(form, e.submitter));
    post(form.getAttribute("action"), body, form);
    if (form.classList.contains("text")) { const i = form.querySelector("input:not([type=hidden])"); if (i) i.select(); }
  });

  // Checked text fields: what Submit would say, shown while typing (nothing is logged).
  // A check that answers after a later keystroke or a Submit is stale and dropped.
  const timers = new Map();
  const stamps = new Map();
  const restamp = (id) => { clearTimeout(timers.get(id)); const n = (stamps.get(id) || 0) + 1; stamps.set(id, n); return n; };
  document.addEventListener("input", (e) => {
    const input = e.target;
    const form = input instanceof HTMLInputElement ? input.closest("form[data-check]") : null;
    if (!form) return;
    const id = form.dataset.control;
    const stamp = restamp(id);
    timers.set(id, setTimeout(async () => {
      const field = checkForm(id) && checkForm(id).querySelector("input:not([type=hidden])");
      const value = field ? field.value : input.value;
      if (!value.trim()) { show(checkForm(id), ""); return; }
      const query = new URLSearchParams({ control: id, value: value });
      const response = await fetch(form.dataset.check + "?" + query, { credentials: "same-origin",
        headers: { "Accept": "application/json" } });
      if (response.ok && stamps.get(id) === stamp) show(checkForm(id), (await response.json()).text);
    }, 250));
  });

  // A placement board by touch: pick a card, then a slot; the turn buttons turn it.
  // The board names the controls it posts to (data-place, data-turn).
  document.addEventListener("click", (e) => {
    const target = e.target instanceof Element ? e.target.closest("button") : null;
    const url = action();
    const board = target ? target.closest("[data-board]") : null;
    if (!target || !url || !board) return;
    if (target.dataset.card) {
      const same = picked === target.dataset.card;
      document.querySelectorAll("button[data-card]").forEach((b) => b.setAttribute("aria-pressed", "false"));
      picked = same ? null : target.dataset.card;
      if (picked) target.setAttribute("aria-pressed", "true");
    } else if (target.dataset.slot && picked) {
      post(url, new URLSearchParams({ control: board.dataset.place, card: picked, slot: target.dataset.slot }), null, null, board);
      picked = null;
    } else if (target.dataset.turn) {
      post(url, new URLSearchParams({ control: board.dataset.turn, card: target.dataset.turn }), null, null, board);
    }
  });

  function start() {
    document.querySelectorAll("[data-newest]").forEach(toNewest);
    // a window that changes size (a phone turned, a table screen resized) keeps the newest line in view
    window.addEventListener("resize", () => document.querySelectorAll("[data-newest]").forEach(toNewest));
    connect();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
