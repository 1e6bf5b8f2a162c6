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
  // Esc clears a field marked data-escape="clear" (an answer typed wrong, before it is sent).
  for (const field of document.querySelectorAll("input[data-escape=clear]")) {
    field.addEventListener("keydown", (event) => {
      if (event.key === "Escape") { field.value = ""; event.preventDefault(); }
    });
  }
});
