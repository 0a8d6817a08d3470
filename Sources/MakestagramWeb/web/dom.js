// Small DOM helpers shared by every view. User text only ever reaches the page through textContent or attributes.

/** Creates an element: h("a.link", {href: "/"}, "text", child). Class names after the dot. */
export function h(tag, props = {}, ...children) {
  const [name, ...classes] = tag.split(".");
  const element = document.createElement(name);
  if (classes.length) element.className = classes.join(" ");
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      element.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (key === "style") {
      // Through the CSSOM: the page's security policy refuses style attributes.
      element.style.cssText = value;
    } else if (key === "dataset") {
      Object.assign(element.dataset, value);
    } else if (key in element && !key.includes("-") && typeof value !== "string") {
      element[key] = value;
    } else {
      element.setAttribute(key, value === true ? "" : value);
    }
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's children. */
export function replace(element, ...children) {
  element.replaceChildren();
  append(element, children);
}

const ICONS = {
  heart:
    '<path d="M12 21s-7.5-4.6-9.5-9.1C1.1 8.6 3.2 5 6.7 5c2.1 0 3.6 1.2 4.3 2.4h2C13.7 6.2 15.2 5 17.3 5' +
    'c3.5 0 5.6 3.6 4.2 6.9C19.5 16.4 12 21 12 21z"/>',
  comment: '<path d="M20.7 16.6A9 9 0 1 0 17 20.3L22 22z"/>',
  home: '<path d="M3 10.5 12 3l9 7.5V21h-6v-6H9v6H3z"/>',
  search: '<circle cx="10.5" cy="10.5" r="7"/><path d="m16 16 5.5 5.5"/>',
  plus: '<rect x="3" y="3" width="18" height="18" rx="5"/><path d="M12 8v8M8 12h8"/>',
  refresh: '<path d="M20 11a8 8 0 1 0-2.3 5.7"/><path d="M20 4v7h-7"/>',
  more: '<circle cx="5" cy="12" r="1.5"/><circle cx="12" cy="12" r="1.5"/><circle cx="19" cy="12" r="1.5"/>',
  close: '<path d="M6 6l12 12M18 6 6 18"/>',
  up: '<path d="M12 19V5M5 12l7-7 7 7"/>',
  left: '<path d="m15 5-7 7 7 7"/>',
  right: '<path d="m9 5 7 7-7 7"/>',
  album: '<rect x="7" y="3" width="14" height="14" rx="2"/><path d="M3 7v12a2 2 0 0 0 2 2h12"/>',
  photo: '<rect x="3" y="4" width="18" height="16" rx="3"/><circle cx="9" cy="10" r="2"/><path d="m21 17-5-5-9 8"/>',
};

/** An inline SVG icon (decorative: hidden from screen readers; the button around it carries the label). */
export function icon(name, className = "") {
  const template = document.createElement("template");
  template.innerHTML =
    `<svg class="icon ${className}" viewBox="0 0 24 24" aria-hidden="true" focusable="false">${ICONS[name]}</svg>`;
  return template.content.firstChild;
}

// Each dark enough for white initials (at least 4.6 : 1, WCAG AA for small text).
const AVATAR_COLOURS = ["#d82e67", "#833ab4", "#e61a1a", "#b95929", "#405de6", "#228276", "#c13584", "#5851db"];

/** A round avatar: the user's picture, or their initials on a colour chosen from their username. */
export function avatar(user, size = 32) {
  const style = `width:${size}px;height:${size}px;font-size:${Math.round(size * 0.42)}px`;
  if (user.avatarURL) return h("img.avatar", { src: user.avatarURL, alt: "", style, width: size, height: size });
  let hash = 0;
  for (const char of user.username) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  const name = (user.displayName || user.username).trim();
  const initials = name.split(/\s+/).slice(0, 2).map((part) => [...part][0] ?? "").join("").toUpperCase();
  return h(
    "span.avatar",
    { style: `${style};background:${AVATAR_COLOURS[hash % AVATAR_COLOURS.length]}`, "aria-hidden": "true" },
    initials || "?",
  );
}

/** "just now", "5m", "3h", "2d", "Nov 3" or "Nov 3, 2025": the compact times under posts and comments. */
export function relativeTime(date, now = new Date()) {
  const seconds = Math.max(0, (now - date) / 1000);
  if (seconds < 45) return "just now";
  if (seconds < 3600) return `${Math.round(seconds / 60)}m`;
  if (seconds < 86400) return `${Math.round(seconds / 3600)}h`;
  if (seconds < 7 * 86400) return `${Math.round(seconds / 86400)}d`;
  const options = { month: "short", day: "numeric" };
  if (date.getFullYear() !== now.getFullYear()) options.year = "numeric";
  return date.toLocaleDateString(undefined, options);
}

/** A <time> that keeps its relative text current (see refreshTimes). */
export function timeElement(iso) {
  const date = new Date(iso);
  return h("time", { datetime: iso, title: date.toLocaleString() }, relativeTime(date));
}

/** Brings every relative time on the page up to date; runs once a minute. */
export function refreshTimes() {
  for (const element of document.querySelectorAll("time[datetime]")) {
    element.textContent = relativeTime(new Date(element.getAttribute("datetime")));
  }
}

/** "1 like", "12 likes". */
export function plural(count, one, many = `${one}s`) {
  return `${count.toLocaleString()} ${count === 1 ? one : many}`;
}

// MARK: Messages

/** A whole-screen message: a heading, a line of explanation and the actions that lead on. */
export function emptyState(title, text, ...actions) {
  return h(
    "div.empty",
    {},
    h("h1", {}, title),
    text && h("p.muted", {}, text),
    actions.length > 0 && h("div.empty-actions", {}, actions),
  );
}

/** A line saying what failed to load, with a button that tries again. */
export function retryLine(what, error, retry) {
  return [
    h("p.muted", {}, `Couldn't load ${what}: ${error.message} `),
    h("button.button.secondary", { type: "button", onclick: () => retry() }, "Try again"),
  ];
}

/** Shows a short message at the bottom of the screen; errors are announced at once to screen readers. */
export function toast(message, { error = false } = {}) {
  const region = document.getElementById(error ? "alerts" : "toasts");
  const element = h(`div.toast${error ? ".toast-error" : ""}`, {}, message);
  region.append(element);
  setTimeout(() => element.classList.add("toast-leaving"), error ? 5000 : 3000);
  setTimeout(() => element.remove(), error ? 5400 : 3400);
}

// MARK: Dialogs

/** Opens a modal dialog holding `content`; resolves with the value passed to close() when it closes. */
export function openDialog(title, build) {
  return new Promise((resolve) => {
    let result;
    const close = (value) => {
      result = value;
      dialog.close();
    };
    const heading = h("h2.dialog-title", { id: `dialog-${Date.now()}` }, title);
    const dialog = h(
      "dialog.dialog",
      { "aria-labelledby": heading.id },
      h(
        "header.dialog-header",
        {},
        heading,
        h(
          "button.icon-button",
          { type: "button", "aria-label": "Close", onclick: () => close(undefined) },
          icon("close"),
        ),
      ),
    );
    dialog.append(h("div.dialog-body", {}, build(close)));
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(result);
    });
    dialog.addEventListener("click", (event) => {
      if (event.target === dialog) close(undefined);
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

/**
 * A dialog with one text area: `label` above it, `submit(text, close)` on saving (its thrown problem is shown
 * in the dialog, which stays open). `field` gives the text area's attributes.
 */
export function textDialog(title, { label, field, value = "", submitLabel, danger = false, extra = null, submit }) {
  return openDialog(title, (close) => {
    const text = h("textarea.textarea", { rows: 3, ...field });
    text.value = value;
    const error = h("p.form-error", { role: "alert" });
    const send = h(`button.button${danger ? ".danger" : ""}`, { type: "submit" }, submitLabel);
    queueMicrotask(() => text.focus());
    return h(
      "form.stack",
      {
        onsubmit: async (event) => {
          event.preventDefault();
          send.disabled = true;
          error.textContent = "";
          try {
            await submit(text.value.trim(), close);
          } catch (problem) {
            error.textContent = problem.message;
            send.disabled = false;
          }
        },
      },
      h("label", { for: field.id }, label),
      text,
      extra,
      error,
      h(
        "div.dialog-actions",
        {},
        h("button.button.secondary", { type: "button", onclick: () => close() }, "Cancel"),
        send,
      ),
    );
  });
}

/** Asks a yes/no question; resolves true when confirmed. */
export function confirmDialog(title, message, confirmLabel, { danger = false } = {}) {
  return openDialog(title, (close) => [
    h("p", {}, message),
    h(
      "div.dialog-actions",
      {},
      h("button.button.secondary", { type: "button", onclick: () => close(false) }, "Cancel"),
      h(`button.button${danger ? ".danger" : ""}`, { type: "button", onclick: () => close(true) }, confirmLabel),
    ),
  ]).then(Boolean);
}

// MARK: Text people write

/**
 * Web links, @mentions and #hashtags in captions and comments (a mention's name follows the username rules; one
 * followed by `@host` names someone on another server).
 */
const RICH = /(https?:\/\/[^\s<>"]+[^\s<>".,;:!?)\]'])|(^|[^\w@])@([a-z0-9_.]{2,29}[a-z0-9_])(?:@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*(?::\d{1,5})?(?<!\.)))?(?![\w@])|(^|[^\w#&])#([\p{L}\p{N}_]{1,100})/gu;

/**
 * Text a person wrote, with its links, @mentions (to the profile) and #hashtags shown as such; everything else is
 * plain text. Links open outside the app and carry no weight (`rel="nofollow noopener noreferrer"`).
 */
export function richText(text) {
  const parts = [];
  let last = 0;
  for (const match of text.matchAll(RICH)) {
    const [whole, url, beforeMention, mention, host, beforeTag, tag] = match;
    const lead = beforeMention ?? beforeTag ?? "";
    const start = match.index + lead.length;
    parts.push(text.slice(last, start));
    if (url) {
      parts.push(h("a.text-link", { href: url, rel: "nofollow noopener noreferrer", target: "_blank" }, url));
    } else if (mention) {
      const handle = host ? `${mention}@${host.toLowerCase()}` : mention;
      parts.push(h("a.mention", { href: `/u/${handle}` }, `@${handle}`));
    } else {
      parts.push(h("a.hashtag", { href: `/t/${encodeURIComponent(tag.toLowerCase())}` }, `#${tag}`));
    }
    last = match.index + whole.length;
  }
  parts.push(text.slice(last));
  return parts.filter((part) => part !== "");
}
