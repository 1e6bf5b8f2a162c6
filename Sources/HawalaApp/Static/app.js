// Hawala's only script: conveniences on top of pages that work as plain forms without it.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
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
  // Print buttons (the browser's own print works without them).
  for (const button of document.querySelectorAll("button[data-print]")) {
    button.hidden = false;
    button.addEventListener("click", () => window.print());
  }
  // An invoice waiting to be paid: its countdown, and "Paid" as soon as the server says so
  // (server-sent events; polling every 5 s when they are not available or keep failing).
  const state = document.getElementById("invoice-state");
  const countdown = document.getElementById("countdown");
  if (state && document.querySelector("#invoice-state .waiting")) {
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
      line.className = status.status === "paid" ? "paid" : "problem";
      const qr = document.querySelector("figure.qr");
      if (qr && status.status !== "locked") qr.hidden = true;
    };
    const poll = () => {
      const timer = setInterval(async () => {
        if (finished) { clearInterval(timer); return; }
        try {
          const answer = await fetch(state.dataset.status, { credentials: "same-origin", cache: "no-store" });
          if (answer.ok) show(await answer.json());
        } catch { /* try again at the next tick */ }
      }, 5000);
    };
    if (window.EventSource) {
      let failures = 0;
      const source = new EventSource(state.dataset.events);
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
        countdown.textContent = left > 0 ? "(in " + minutes + ":" + seconds + ")" : "(expired)";
        if (left > 0) setTimeout(tick, 1000);
      };
      tick();
    }
  }
  // Esc clears a field marked data-escape="clear" (an answer typed wrong, before it is sent).
  for (const field of document.querySelectorAll("input[data-escape=clear]")) {
    field.addEventListener("keydown", (event) => {
      if (event.key === "Escape") { field.value = ""; event.preventDefault(); }
    });
  }
});
