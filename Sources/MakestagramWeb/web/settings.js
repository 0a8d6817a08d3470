// Settings: change your password (every other session is logged out at once), where you are logged in (each
// session with a Log out button), whom you mute and block, the servers you block, the apps you let in, your data,
// and deleting your account.

import { limits, problem as code } from "./constants.js";
import { api } from "./api.js";
import { h, replace, toast, timeElement, confirmDialog, retryLine, plural } from "./dom.js";
import { field, handle } from "./auth.js";
import { store } from "./posts.js";

/** "Chrome on Android", "Firefox on Linux", "Makestagram command line"…, from a User-Agent. */
export function describeAgent(agent) {
  if (!agent) return "Unknown device";
  if (/^makestagram\b/i.test(agent)) return "Makestagram app or command line";
  const browser =
    [
      [/Edg\//, "Edge"],
      [/Firefox\//, "Firefox"],
      [/Chrom(e|ium)\//, "Chrome"],
      [/Safari\//, "Safari"],
    ].find(([pattern]) => pattern.test(agent))?.[1] ?? null;
  const system =
    [
      [/Android/, "Android"],
      [/iPhone|iPad|iOS/, "iOS"],
      [/Mac OS X|Macintosh/, "macOS"],
      [/Windows/, "Windows"],
      [/Linux/, "Linux"],
    ].find(([pattern]) => pattern.test(agent))?.[1] ?? null;
  if (browser && system) return `${browser} on ${system}`;
  return browser ?? system ?? agent.slice(0, 60);
}

/** Field names in the server's problems, as the form labels them. */
const FIELDS = { currentPassword: "Current password", newPassword: "New password" };

/** What the Settings lists of people say for each relation: the people the user mutes, and those they block. */
const RELATIONS = {
  mute: {
    title: "Muted accounts",
    about: "Their posts stay out of your feed and their likes and comments out of your activity. They are not told.",
    undo: "Unmute",
    none: "You mute nobody.",
    what: "whom you mute",
    done: (name) => `You unmuted ${name}: their posts and activity are back.`,
  },
  block: {
    title: "Blocked accounts",
    about:
      "Neither of you sees the other's profile, posts, likes or comments, and they cannot follow you or reach you. " +
      "They are not told.",
    undo: "Unblock",
    none: "You block nobody.",
    what: "whom you block",
    done: (name) => `You unblocked ${name}. Follows and likes the block ended do not come back by themselves.`,
  },
};

/** The people the user mutes or blocks (`kind`), each with a button that undoes it at once. */
function relationSection(kind) {
  const words = RELATIONS[kind];
  const titleID = `${kind}s-title`;
  const list = h(`ul.session-list.${kind}-list`, { "aria-labelledby": titleID });
  const status = h("div.list-status", { role: "status" });
  function row(user) {
    const undo = h(
      "button.button.secondary.compact",
      { type: "button", "aria-label": `${words.undo} ${user.username}` },
      words.undo,
    );
    const element = h(
      "li.session",
      {},
      h(
        "div.session-text",
        {},
        h("a.user-link", { href: `/u/${user.username}` }, user.username),
        h("span.muted.session-detail", {}, user.displayName),
      ),
      undo,
    );
    undo.addEventListener("click", async () => {
      undo.disabled = true;
      try {
        await api.delete(`/users/${user.username}/${kind}`);
        element.remove();
        if (!list.children.length) status.textContent = words.none;
        store.followsChanged();
        toast(words.done(user.username));
      } catch (problem) {
        undo.disabled = false;
        toast(`Couldn't ${words.undo.toLowerCase()} ${user.username}: ${problem.message}`, { error: true });
      }
    });
    return element;
  }
  async function load() {
    status.textContent = "Loading…";
    try {
      const page = await api.get(`/me/${kind}s`, { limit: 100 });
      replace(list, page.items.map(row));
      status.textContent = page.items.length ? "" : words.none;
    } catch (problem) {
      replace(status, retryLine(words.what, problem, load));
    }
  }
  load();
  return h(
    "section.settings-section",
    {},
    h("h2.section-heading", { id: titleID }, words.title),
    h("p.muted", {}, words.about),
    status,
    list,
  );
}

/** The other servers the user blocks for themselves: a form to block one, and each with an Unblock button. */
function serversSection() {
  const list = h("ul.session-list.server-list", { "aria-labelledby": "servers-title" });
  const status = h("div.list-status", { role: "status" });
  const domain = field("block-server", "Server", {
    autocomplete: "off",
    autocapitalize: "none",
    spellcheck: false,
    required: true,
    maxlength: 253,
    placeholder: "example.social",
  });
  const error = h("p.form-error", { role: "alert" });
  const submit = h("button.button.secondary", { type: "submit" }, "Block server");
  const form = h("form.stack.settings-form", { "aria-label": "Block a server" }, domain.element, error, submit);
  function show(domains) {
    replace(list, domains.map(row));
    status.textContent = domains.length ? "" : "You block no server.";
  }
  function row(name) {
    const undo = h("button.button.secondary.compact", { type: "button", "aria-label": `Unblock ${name}` }, "Unblock");
    undo.addEventListener("click", async () => {
      undo.disabled = true;
      try {
        show((await api.delete(`/me/domain-blocks/${encodeURIComponent(name)}`)).domains);
        store.followsChanged();
        toast(`You unblocked ${name}. Blocks you made one by one stay.`);
      } catch (problem) {
        undo.disabled = false;
        toast(`Couldn't unblock ${name}: ${problem.message}`, { error: true });
      }
    });
    return h("li.session", {}, h("div.session-text", {}, h("strong", {}, name)), undo);
  }
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = domain.input.value.trim();
    if (!name) return;
    error.textContent = "";
    const sure = await confirmDialog(
      `Block ${name}?`,
      "Everyone on that server is blocked for you, now and as they come: follows between you end, and their likes " +
        "and comments on your posts go. They are not told.",
      "Block server",
      { danger: true },
    );
    if (!sure) return;
    submit.disabled = true;
    try {
      show((await api.put(`/me/domain-blocks/${encodeURIComponent(name)}`)).domains);
      form.reset();
      store.followsChanged();
      toast(`You block ${name}.`);
    } catch (problem) {
      error.textContent = problem.message;
    } finally {
      submit.disabled = false;
    }
  });
  async function load() {
    status.textContent = "Loading…";
    try {
      show((await api.get("/me/domain-blocks")).domains);
    } catch (problem) {
      replace(status, retryLine("the servers you block", problem, load));
    }
  }
  load();
  return h(
    "section.settings-section",
    {},
    h("h2.section-heading", { id: "servers-title" }, "Blocked servers"),
    h(
      "p.muted",
      {},
      "Block a whole server (and its subdomains): you and its people no longer see or reach each other.",
    ),
    form,
    status,
    list,
  );
}

/** The apps the user let into their account (OAuth), each with what it may do and a Revoke button. */
function appsSection() {
  const list = h("ul.session-list", { "aria-labelledby": "apps-title" });
  const status = h("div.list-status", { role: "status" });
  function row(app) {
    const revoke = h(
      "button.button.secondary.compact",
      { type: "button", "aria-label": `Revoke ${app.name}` },
      "Revoke",
    );
    const element = h(
      "li.session",
      {},
      h(
        "div.session-text",
        {},
        h("strong", {}, app.name),
        h(
          "span.muted.session-detail",
          {},
          app.website ? `${app.website} · ` : "",
          `may ${app.scopes.split(" ").join(", ")} · since `,
          new Date(app.authorizedAt).toLocaleDateString(),
        ),
      ),
      revoke,
    );
    revoke.addEventListener("click", async () => {
      const confirmed = await confirmDialog(
        `Revoke ${app.name}?`,
        `${app.name} will be logged out of your account at once and will need your permission again.`,
        "Revoke",
      );
      if (!confirmed) return;
      revoke.disabled = true;
      try {
        await api.delete(`/me/apps/${app.id}`);
        element.remove();
        if (!list.children.length) status.textContent = "No apps can use your account.";
        toast(`${app.name} can no longer use your account.`);
      } catch (problem) {
        revoke.disabled = false;
        toast(`Couldn't revoke ${app.name}: ${problem.message}`, { error: true });
      }
    });
    return element;
  }
  async function load() {
    status.textContent = "Loading…";
    try {
      const page = await api.get("/me/apps");
      replace(list, page.items.map(row));
      status.textContent = page.items.length ? "" : "No apps can use your account.";
    } catch (problem) {
      replace(status, retryLine("your apps", problem, load));
    }
  }
  load();
  return h(
    "section.settings-section",
    {},
    h("h2.section-heading", { id: "apps-title" }, "Apps you've authorised"),
    h("p.muted", {}, "Other apps you signed in to with your Makestagram account. They never see your password."),
    status,
    list,
  );
}

/** "Delete your account": the password, a confirmation, and the account is gone (and this browser logged out). */
function deleteAccountSection(endSession) {
  const password = field("delete-password", "Password", {
    type: "password",
    autocomplete: "current-password",
    required: true,
  });
  const error = h("p.form-error", { role: "alert" });
  const button = h("button.button.danger", { type: "submit" }, "Delete account");
  const form = h("form.stack.settings-form", { "aria-labelledby": "delete-title" }, password.element, error, button);
  handle(
    form,
    button,
    error,
    async () => {
      // The password first: a wrong one is said before anything is asked.
      await api.post("/me/password/check", { password: password.input.value });
      const confirmed = await confirmDialog(
        "Delete your account for good?",
        `Your posts, photos, comments, likes and follows will be deleted. This cannot be undone. Your username stays reserved for ${limits.deletedUsernameReservedDays} days.`,
        "Delete account",
        { danger: true },
      );
      if (!confirmed) {
        button.disabled = false;
        return;
      }
      await api.post("/me/delete", { password: password.input.value });
      endSession("Your account is deleted. Thanks for having been here.");
    },
    (problem) => {
      if (problem.code === code.tooManyAttempts) return problem.detail;
      if (problem.code !== code.invalidField) return null;
      password.input.setAttribute("aria-invalid", "true");
      password.input.focus();
      return "Password: that is not your password.";
    },
  );
  return h(
    "section.settings-section.danger-zone",
    {},
    h("h2.section-heading", { id: "delete-title" }, "Delete your account"),
    h(
      "p.muted",
      {},
      "Everything you posted goes, for good. Download your data first if you want to keep it.",
    ),
    form,
  );
}

export function settingsView(root, { logOut, endSession }) {
  const current = field("current-password", "Current password", {
    type: "password",
    autocomplete: "current-password",
    required: true,
  });
  const next = field(
    "new-password",
    "New password",
    { type: "password", autocomplete: "new-password", required: true, minlength: limits.passwordBytes[0] },
    "At least 8 characters. Every other place you're logged in is logged out.",
  );
  const error = h("p.form-error", { role: "alert" });
  const button = h("button.button", { type: "submit" }, "Change password");
  const form = h(
    "form.stack.settings-form",
    { "aria-labelledby": "password-title" },
    current.element,
    next.element,
    error,
    button,
  );
  handle(
    form,
    button,
    error,
    async () => {
      const answer = await api.post("/me/password", {
        currentPassword: current.input.value,
        newPassword: next.input.value,
      });
      form.reset();
      button.disabled = false;
      toast(
        answer.endedSessions
          ? `Password changed. ${plural(answer.endedSessions, "other session")} logged out.`
          : "Password changed.",
      );
      loadSessions();
    },
    (problem) => {
      if (problem.code === code.tooManyAttempts) return problem.detail;
      if (problem.code !== code.invalidField) return null;
      const [name, ...rest] = (problem.detail ?? "").split(": ");
      const input = name === "currentPassword" ? current.input : name === "newPassword" ? next.input : null;
      if (!input) return null;
      input.setAttribute("aria-invalid", "true");
      input.focus();
      return `${FIELDS[name]}: ${rest.join(": ")}.`;
    },
  );

  const sessions = h("ul.session-list", { "aria-labelledby": "sessions-title" });
  const sessionsStatus = h("div.list-status", { role: "status" });

  function row(session) {
    const end = h(
      "button.button.secondary.compact",
      { type: "button", "aria-label": `Log out ${describeAgent(session.userAgent)}` },
      "Log out",
    );
    end.addEventListener("click", async () => {
      if (session.current) return logOut();
      const confirmed = await confirmDialog(
        "Log out this session?",
        `${describeAgent(session.userAgent)} will need the password to log in again.`,
        "Log out",
      );
      if (!confirmed) return;
      end.disabled = true;
      try {
        await api.delete(`/me/sessions/${session.id}`);
        element.remove();
        toast("Logged out there.");
      } catch (problem) {
        end.disabled = false;
        toast(`Couldn't log that session out: ${problem.message}`, { error: true });
      }
    });
    const element = h(
      "li.session",
      {},
      h(
        "div.session-text",
        {},
        h("strong", {}, describeAgent(session.userAgent)),
        session.current ? h("span.session-current", {}, "This browser") : null,
        h(
          "span.muted.session-detail",
          {},
          session.address ? `${session.address} · ` : "",
          "active ",
          timeElement(session.lastUsedAt),
          " · since ",
          new Date(session.createdAt).toLocaleDateString(),
        ),
      ),
      end,
    );
    return element;
  }

  async function loadSessions() {
    sessionsStatus.textContent = "Loading…";
    try {
      const page = await api.get("/me/sessions");
      replace(sessions, page.items.map(row));
      sessionsStatus.textContent = "";
    } catch (problem) {
      replace(sessionsStatus, retryLine("your sessions", problem, loadSessions));
    }
  }

  const exportButton = h("button.button.secondary", { type: "button" }, "Download your data");
  const exportStatus = h("p.muted", { role: "status" });
  exportButton.addEventListener("click", async () => {
    exportButton.disabled = true;
    exportStatus.textContent = "Preparing your archive…";
    try {
      const response = await fetch("/api/v1/me/export", { headers: { Authorization: `Bearer ${api.token}` } });
      if (!response.ok) {
        const problem = await response.json().catch(() => ({}));
        throw new Error(problem.detail ?? `the server answered ${response.status}`);
      }
      const name = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") ?? "")?.[1] ?? "makestagram.zip";
      const url = URL.createObjectURL(await response.blob());
      const link = h("a", { href: url, download: name, hidden: true });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      exportStatus.textContent = `Downloaded ${name}.`;
    } catch (problem) {
      exportStatus.textContent = `Couldn't export your data: ${problem.message}`;
    } finally {
      exportButton.disabled = false;
    }
  });

  replace(
    root,
    h(
      "div.settings",
      {},
      h("h1.page-title", {}, "Settings"),
      h("section.settings-section", {}, h("h2.section-heading", { id: "password-title" }, "Change password"), form),
      h(
        "section.settings-section",
        {},
        h("h2.section-heading", { id: "sessions-title" }, "Where you're logged in"),
        sessionsStatus,
        sessions,
      ),
      h(
        "section.settings-section",
        {},
        h("h2.section-heading", {}, "Your data"),
        h(
          "p.muted",
          {},
          "A ZIP of your profile, your posts with their photos, your comments and whom you follow and who follows you.",
        ),
        exportButton,
        exportStatus,
      ),
      relationSection("mute"),
      relationSection("block"),
      serversSection(),
      appsSection(),
      store.me?.isModerator
        ? h(
            "section.settings-section",
            {},
            h("h2.section-heading", {}, "Moderation"),
            h("p.muted", {}, "You are a moderator: reported posts wait for you."),
            h("a.button.secondary", { href: "/moderation" }, "Open the reports queue"),
          )
        : null,
      deleteAccountSection(endSession),
    ),
  );
  loadSessions();
  current.input.focus();
}
