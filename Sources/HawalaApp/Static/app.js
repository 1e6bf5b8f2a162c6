// Hawala's only script: conveniences on top of pages that work as plain forms without it.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  const body = document.body;

  // The browser's time zone, for dates shown in it ("today 14:07"); the server reads the cookie.
  try {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (zone && !document.cookie.includes("hawala_tz=" + encodeURIComponent(zone))) {
      document.cookie = "hawala_tz=" + encodeURIComponent(zone) + "; Path=/; SameSite=Strict; Max-Age=31536000";
    }
  } catch { /* the machine's zone then */ }

  // The menu: open on wide screens where the browser can't show a closed <details>' content.
  const menu = document.querySelector("details.menu");
  if (menu && !CSS.supports("selector(::details-content)")) {
    const wide = window.matchMedia("(min-width: 768px)");
    const fit = () => { menu.open = wide.matches; };
    fit();
    wide.addEventListener("change", fit);
  }

  // A page that reloads itself on time (the words hide): the script does it, a meta refresh
  // only without scripts (a timed refresh is not something a page should do to a reader).
  const reloadAfter = Number(body.dataset.reloadAfter || 0);
  if (reloadAfter > 0) setTimeout(() => location.reload(), reloadAfter * 1000);

  // The lock returns to this page after the unlock.
  for (const field of document.querySelectorAll("input[data-here]")) field.value = location.pathname + location.search;

  // Copy buttons: shown only when the script runs; they copy the text of the element they name.
  for (const button of document.querySelectorAll("button[data-copy]")) {
    const source = document.getElementById(button.dataset.copy);
    if (!source || !navigator.clipboard) continue;
    button.hidden = false;
    button.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(source.textContent.trim());
        button.textContent = "Copied";
      } catch {
        button.textContent = "Select the text to copy it";
      }
    });
  }
  // Share buttons: where the browser has the Web Share API (phones), the system's share sheet
  // with the text of the element they name; hidden elsewhere (copy is beside them).
  for (const button of document.querySelectorAll("button[data-share]")) {
    const source = document.getElementById(button.dataset.share);
    if (!source || typeof navigator.share !== "function") continue;
    button.hidden = false;
    button.addEventListener("click", async () => {
      try {
        await navigator.share({ title: button.dataset.shareTitle || document.title, text: source.textContent.trim() });
      } catch (error) {
        // Closing the share sheet is no error to show; anything else says copy works.
        if (error && error.name !== "AbortError") button.textContent = "Sharing failed: copy it instead";
      }
    });
  }
  // Print buttons (the browser's own print works without them).
  for (const button of document.querySelectorAll("button[data-print]")) {
    button.hidden = false;
    button.addEventListener("click", () => window.print());
  }
  // Esc clears a field marked data-escape="clear" (an answer typed wrong, before it is sent).
  for (const field of document.querySelectorAll("input[data-escape=clear]")) {
    field.addEventListener("keydown", (event) => {
      if (event.key === "Escape") { field.value = ""; event.preventDefault(); }
    });
  }

  // What was typed in this page's forms survives the idle lock (kept in this tab only, never a
  // password): saved before the page goes to the unlock, put back when it comes back.
  const keptKey = "hawala.kept:" + location.pathname;
  // The same fields the server keeps across a lock (AppSessions.InterruptedForm.kept): never a
  // secret (a password, a word, a phrase, a share).
  const keptNames = new Set(["input", "amount", "comment", "description", "name", "words", "network"]);
  const keptFields = () => [...document.querySelectorAll("main form input:not([type=password]):not([type=hidden]):not([type=file]), main form textarea, main form select")]
    .filter((field) => field.id && keptNames.has(field.name));
  const keep = () => {
    const values = {};
    for (const field of keptFields()) if (field.value && field.type !== "radio" && field.type !== "checkbox") values[field.id] = field.value;
    if (Object.keys(values).length) sessionStorage.setItem(keptKey, JSON.stringify(values));
  };
  try {
    const saved = JSON.parse(sessionStorage.getItem(keptKey) || "null");
    sessionStorage.removeItem(keptKey);
    if (saved) for (const [id, value] of Object.entries(saved)) {
      const field = document.getElementById(id);
      if (field && !field.value) field.value = value;
    }
  } catch { /* nothing kept */ }
  // The Lock button keeps what was typed as the idle lock does: back after the unlock.
  const lockForm = document.querySelector("form.lock");
  if (lockForm) lockForm.addEventListener("submit", keep);

  // A form whose answer takes seconds (a key stretched with Argon2id): said at once, the button
  // shown waiting, and a second click sends nothing more. Back to the page: usable again.
  for (const form of document.querySelectorAll("form[data-working]")) {
    form.addEventListener("submit", (event) => {
      if (form.dataset.sent) { event.preventDefault(); return; }
      form.dataset.sent = "1";
      const button = form.querySelector("button[type=submit]");
      if (button) { button.setAttribute("aria-disabled", "true"); button.classList.add("working"); }
      let status = form.querySelector(".working-status");
      if (!status) {
        status = document.createElement("p");
        status.className = "note working-status";
        status.setAttribute("role", "status");
        form.append(status);
      }
      status.textContent = form.dataset.working;
      // Stopped in the browser (Esc, the stop button): usable again after a minute.
      setTimeout(() => {
        delete form.dataset.sent;
        if (button) { button.removeAttribute("aria-disabled"); button.classList.remove("working"); }
      }, 60000);
    });
  }
  window.addEventListener("pageshow", () => {
    for (const form of document.querySelectorAll("form[data-sent]")) {
      delete form.dataset.sent;
      const button = form.querySelector("button.working");
      if (button) { button.removeAttribute("aria-disabled"); button.classList.remove("working"); }
      const status = form.querySelector(".working-status");
      if (status) status.textContent = "";
    }
  });

  // A new password's strength while it is typed: the library's own verdict (the one a submit
  // gets), asked of the app without the page leaving; never stored, never in an address.
  for (const field of document.querySelectorAll("input[data-strength]")) {
    const token = field.form && field.form.querySelector("input[name=csrf]");
    if (!token) continue;
    const out = document.createElement("span");
    out.className = "note strength";
    out.id = field.id + "-strength";
    out.setAttribute("aria-live", "polite");
    field.insertAdjacentElement("afterend", out);
    field.setAttribute("aria-describedby", ((field.getAttribute("aria-describedby") || "") + " " + out.id).trim());
    let timer = null;
    field.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(async () => {
        if (!field.value) { out.textContent = ""; delete out.dataset.rating; return; }
        try {
          const body = new URLSearchParams({ csrf: token.value, use: field.dataset.strength, password: field.value });
          const answer = await fetch("/strength", { method: "POST", body, credentials: "same-origin", cache: "no-store" });
          if (!answer.ok) return;
          const verdict = await answer.json();
          out.textContent = verdict.words;
          out.dataset.rating = verdict.acceptable ? verdict.rating : "refused";
        } catch { /* the submit still says it */ }
      }, 250);
    });
  }

  // The idle lock: a countdown a minute before, with "Stay unlocked".
  const idle = Number(body.dataset.idleLock || 0);
  if (idle > 0) {
    let deadline = Date.now() + idle * 1000;
    let warning = null;
    const stay = async () => {
      try {
        const answer = await fetch("/alive", { credentials: "same-origin", cache: "no-store" });
        if (answer.status === 204) { deadline = Date.now() + idle * 1000; hide(); return; }
      } catch { /* locked or gone: the next tick sends the page to the unlock */ }
      deadline = Date.now();
    };
    const hide = () => { if (warning) { warning.remove(); warning = null; } };
    const show = (left) => {
      if (!warning) {
        warning = document.createElement("div");
        warning.className = "lock-warning";
        warning.setAttribute("role", "alert");
        const text = document.createElement("p");
        text.id = "lock-countdown";
        const button = document.createElement("button");
        button.type = "button";
        button.textContent = "Stay unlocked";
        button.addEventListener("click", stay);
        warning.append(text, button);
        body.append(warning);
      }
      const seconds = Math.max(0, Math.ceil(left / 1000));
      warning.querySelector("p").textContent = "Locking in " + Math.floor(seconds / 60) + ":" + String(seconds % 60).padStart(2, "0") + " for your safety.";
    };
    // Another tab may have kept the session awake: ask (without waking it) before warning or
    // locking this page.
    const peek = async () => {
      try {
        const answer = await fetch("/alive?peek", { credentials: "same-origin", cache: "no-store" });
        if (answer.ok) deadline = Date.now() + Number(await answer.text()) * 1000;
      } catch { /* keep this page's own count */ }
    };
    let asked = false;
    const tick = async () => {
      let left = deadline - Date.now();
      if (left <= 60000 && !asked) { asked = true; await peek(); left = deadline - Date.now(); }
      if (left > 60000) asked = false;
      // Past the lock (with a margin: a reload a moment early would count as use and keep the
      // session awake), the page goes to the unlock, what was typed kept.
      if (left <= -2000) { keep(); location.reload(); return; }
      if (left <= 60000) show(left); else hide();
      setTimeout(tick, 1000);
    };
    setTimeout(tick, 1000);
  }

  // A payment received, announced on every page of an unlocked session (the invoice page says
  // "Paid" itself); a desktop notification too once the person allowed it, asked on a click.
  const invoiceState = document.getElementById("invoice-state");
  // What a payment changes (a balance, a list, a payment's status) is brought up to date in
  // place: the page is read again, without counting as use, and only its parts marked
  // data-live are replaced (never a form being typed in).
  let refreshing = null;
  const refreshLive = () => {
    if (refreshing || !document.querySelector("[data-live][id]")) return;
    refreshing = setTimeout(async () => {
      try {
        const answer = await fetch(location.href, { credentials: "same-origin", cache: "no-store", headers: { "X-Hawala-Live": "1" } });
        if (!answer.ok || answer.redirected) return;
        const fresh = new DOMParser().parseFromString(await answer.text(), "text/html");
        for (const old of document.querySelectorAll("[data-live][id]")) {
          const next = fresh.getElementById(old.id);
          if (next) old.replaceWith(document.importNode(next, true));
        }
      } catch { /* the next payment tries again */ } finally { refreshing = null; }
    }, 300);
  };
  if (body.dataset.events && window.EventSource) {
    const source = new EventSource(body.dataset.events);
    source.addEventListener("end", () => source.close());
    source.addEventListener("received", (event) => {
      const note = JSON.parse(event.data);
      refreshLive();
      if (invoiceState && invoiceState.dataset.hash === note.hash) return;
      toast("Received " + note.amount + (note.what && note.what !== "Received" ? " — " + note.what : ""));
      if (window.Notification && Notification.permission === "granted") new Notification("Hawala: received " + note.amount, { body: note.what });
    });
    source.addEventListener("changed", refreshLive);
    source.addEventListener("approval", (event) => {
      const note = JSON.parse(event.data);
      let banner = document.getElementById("approvals-banner");
      if (location.pathname.startsWith("/approvals")) { refreshLive(); return; }
      if (!note.count) { if (banner) banner.remove(); return; }
      if (!banner) {
        banner = document.createElement("p");
        banner.id = "approvals-banner";
        banner.className = "banner approvals";
        banner.setAttribute("role", "alert");
        document.querySelector("header.bar").after(banner);
      }
      banner.textContent = note.text + " ";
      const link = document.createElement("a");
      link.href = "/approvals";
      link.textContent = "Review it";
      banner.append(link);
      if (note.new && window.Notification && Notification.permission === "granted") new Notification("Hawala", { body: note.text });
    });
    source.addEventListener("deposit", (event) => {
      const note = JSON.parse(event.data);
      toast(note.text);
      if (window.Notification && Notification.permission === "granted") new Notification("Hawala", { body: note.text });
    });
  }
  const toast = (text) => {
    const box = document.createElement("div");
    box.className = "toast";
    box.setAttribute("role", "status");
    const line = document.createElement("p");
    line.textContent = text;
    const close = document.createElement("button");
    close.type = "button";
    close.className = "secondary small";
    close.textContent = "OK";
    close.addEventListener("click", () => box.remove());
    box.append(line, close);
    if (window.Notification && Notification.permission === "default") {
      const ask = document.createElement("button");
      ask.type = "button";
      ask.className = "link";
      ask.textContent = "Also tell me outside this tab";
      ask.addEventListener("click", async () => { await Notification.requestPermission(); ask.remove(); });
      box.append(ask);
    }
    body.append(box);
    setTimeout(() => box.remove(), 15000);
  };

  // An invoice waiting to be paid: its countdown, and "Paid" as soon as the server says so
  // (server-sent events; polling every 5 s when they are not available or keep failing).
  const countdown = document.getElementById("countdown");
  if (invoiceState && document.querySelector("#invoice-state #countdown")) {
    let finished = false;
    const show = (status) => {
      if (!status || status.status === "waiting" || finished) return;
      finished = true;
      const line = document.getElementById("invoice-status");
      const words = {
        paid: "Paid: " + (status.amount || "") + " received.",
        failed: "This invoice failed.",
        expired: "Expired without a payment. Make a new invoice.",
        locked: "The app locked itself. Reload the page to unlock it.",
      };
      line.textContent = words[status.status] || status.status;
      line.className = "status-line " + (status.status === "paid" ? "paid" : "problem");
      if (status.status !== "locked") for (const hidden of document.querySelectorAll("figure.qr, button[data-copy=invoice-text], button[data-share=invoice-text]")) hidden.hidden = true;
    };
    const poll = () => {
      const timer = setInterval(async () => {
        if (finished) { clearInterval(timer); return; }
        try {
          const answer = await fetch(invoiceState.dataset.status, { credentials: "same-origin", cache: "no-store" });
          if (answer.ok) show(await answer.json());
        } catch { /* try again at the next tick */ }
      }, 5000);
    };
    if (window.EventSource) {
      let failures = 0;
      const source = new EventSource(invoiceState.dataset.events);
      for (const name of ["paid", "failed", "expired", "locked"]) {
        source.addEventListener(name, (event) => { source.close(); show(JSON.parse(event.data)); });
      }
      source.addEventListener("error", () => {
        if (finished) return;
        failures += 1;
        if (failures >= 3) { source.close(); poll(); }
      });
    } else {
      poll();
    }
    if (countdown) {
      const expires = Number(countdown.dataset.expires) * 1000;
      const tick = () => {
        if (finished) { countdown.textContent = ""; return; }
        const left = Math.max(0, Math.round((expires - Date.now()) / 1000));
        const minutes = Math.floor(left / 60), seconds = String(left % 60).padStart(2, "0");
        countdown.textContent = left > 0 ? "(" + minutes + ":" + seconds + " left)" : "(expired)";
        if (left > 0) setTimeout(tick, 1000);
      };
      tick();
    }
  }
});
