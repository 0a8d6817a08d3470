// The moderators' page: the reports queue (oldest waiting report first) with its actions — dismiss the reports,
// remove the post, suspend its author — lifting a suspension, and the moderation log. Each action asks for a reason
// that the log keeps.

import { limits, problem as code } from "./constants.js";
import { api } from "./api.js";
import { h, replace, toast, timeElement, textDialog, plural, richText, emptyState, retryLine, avatar } from "./dom.js";
import { field } from "./auth.js";

/** What a log entry says was done, from its action, user and post. */
const ACTIONS = {
  dismiss_reports: (user, post) => `dismissed the reports of ${post}${user ? ` by ${user}` : ""}`,
  remove_post: (user, post) => `removed ${post}${user ? ` by ${user}` : ""}`,
  suspend: (user) => `suspended ${user}`,
  lift_suspension: (user) => `lifted the suspension of ${user}`,
  grant_moderator: (user) => `made ${user} a moderator`,
  revoke_moderator: (user) => `stopped ${user} being a moderator`,
};

/** Asks for a reason, then does `action(reason)`; the dialog shows what the server refused. */
function withReason(title, submitLabel, action) {
  return textDialog(title, {
    label: "Reason, for the moderation log (optional)",
    field: { id: "moderation-reason", name: "reason", maxlength: limits.moderationReasonLength[1] },
    submitLabel,
    danger: true,
    async submit(reason, close) {
      await action(reason);
      close(true);
    },
  });
}

export function moderationView(root, { navigate }) {
  if (!api.token) return;
  const queue = h("ul.report-queue", { "aria-labelledby": "queue-title" });
  const queueStatus = h("div.list-status", { role: "status" });
  const more = h("button.button.secondary", { type: "button", hidden: true }, "Load more");
  const log = h("ol.moderation-log", { "aria-labelledby": "log-title" });
  const logStatus = h("div.list-status", { role: "status" });
  const logMore = h("button.button.secondary", { type: "button", hidden: true }, "Load more");
  let cursor = null;
  let logCursor = null;
  let stopped = false;

  function item(reported) {
    const post = reported.post;
    const author = post.author.username;
    const element = h("li.report-item", {});
    const act = (title, label, path, done) => async () => {
      const acted = await withReason(title, label, (reason) => api.post(path, { reason }));
      if (!acted) return;
      element.remove();
      toast(done);
      if (!queue.children.length) showEmpty();
      loadLog(true);
    };
    const buttons = h(
      "div.report-actions",
      {},
      h(
        "button.button.secondary.compact",
        { type: "button", onclick: act("Dismiss reports", "Dismiss", `/moderation/reports/${post.id}/dismiss`, "Reports dismissed; the post stays.") },
        "Dismiss",
      ),
      h(
        "button.button.danger.compact",
        { type: "button", onclick: act("Remove post", "Remove post", `/moderation/posts/${post.id}/remove`, "Post removed.") },
        "Remove post",
      ),
      h(
        "button.button.danger.compact",
        {
          type: "button",
          "aria-label": `Suspend ${author}`,
          onclick: async () => {
            await act(`Suspend ${author}?`, "Suspend", `/moderation/users/${author}/suspend`, `${author} is suspended.`)();
            // Their other posts leave the queue with them.
            load(true);
          },
        },
        `Suspend ${author}`,
      ),
    );
    replace(
      element,
      h(
        "a.report-photo",
        { href: `/p/${post.id}`, "aria-label": `Post ${post.id} by ${author}` },
        h("img", { src: post.image.thumb.url, alt: "", width: 96, height: 96, loading: "lazy" }),
      ),
      h(
        "div.report-body",
        {},
        h(
          "p.report-head",
          {},
          h("a.report-author", { href: `/u/${author}` }, avatar(post.author, 24), h("strong", {}, author)),
          " · ",
          h("strong.report-count", {}, plural(reported.reportCount, "report")),
          " since ",
          timeElement(reported.firstReportedAt),
        ),
        post.caption ? h("p.report-caption", {}, richText(post.caption)) : null,
        h(
          "ul.report-reasons",
          { "aria-label": "Reasons given" },
          reported.reports.map((report) =>
            h("li", {}, h("strong", {}, report.reporter.username), ": ", report.reason),
          ),
        ),
        buttons,
      ),
    );
    return element;
  }

  function showEmpty() {
    replace(queueStatus, emptyState("No reports wait", "When people report posts, they appear here, oldest first."));
  }

  async function load(fresh = false) {
    if (fresh) cursor = null;
    queueStatus.textContent = "Loading…";
    try {
      const page = await api.get(`/moderation/reports${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ""}`);
      if (stopped) return;
      if (fresh) replace(queue);
      queue.append(...page.items.map(item));
      cursor = page.nextCursor ?? null;
      more.hidden = !cursor;
      queueStatus.textContent = "";
      if (!queue.children.length) showEmpty();
    } catch (problem) {
      if (problem.code === code.forbidden) return replace(root, emptyState("Moderators only", problem.message));
      replace(queueStatus, retryLine("the reports", problem, () => load(fresh)));
    }
  }

  function entry(item) {
    const user = item.username ? `@${item.username}` : "a deleted account";
    const post = item.postId ? `post ${item.postId}` : "a post";
    const what = ACTIONS[item.action]?.(user, post) ?? `${item.action} ${user}`;
    return h(
      "li.log-entry",
      {},
      h("span", {}, h("strong", {}, item.moderator ?? "The server's operator"), " ", what),
      item.reason ? h("span.muted", {}, ` — “${item.reason}”`) : null,
      h("span.muted.log-time", {}, " · ", timeElement(item.createdAt)),
    );
  }

  async function loadLog(fresh = false) {
    if (fresh) logCursor = null;
    try {
      const page = await api.get(`/moderation/log${logCursor ? `?cursor=${encodeURIComponent(logCursor)}` : ""}`);
      if (stopped) return;
      if (fresh) replace(log);
      log.append(...page.items.map(entry));
      logCursor = page.nextCursor ?? null;
      logMore.hidden = !logCursor;
      logStatus.textContent = log.children.length ? "" : "Nothing yet.";
    } catch (problem) {
      replace(logStatus, retryLine("the moderation log", problem, () => loadLog(fresh)));
    }
  }

  more.addEventListener("click", () => load());
  logMore.addEventListener("click", () => loadLog());

  const lift = field("lift-username", "Username", { autocomplete: "off", autocapitalize: "none", spellcheck: false, required: true });
  const liftButton = h("button.button.secondary", { type: "submit" }, "Lift suspension");
  const liftError = h("p.form-error", { role: "alert" });
  const liftForm = h("form.stack.settings-form", { "aria-label": "Lift a suspension" }, lift.element, liftError, liftButton);
  liftForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const username = lift.input.value.trim().toLowerCase();
    if (!username) return;
    liftError.textContent = "";
    const lifted = await withReason(`Lift the suspension of ${username}?`, "Lift suspension", (reason) =>
      api.post(`/moderation/users/${encodeURIComponent(username)}/unsuspend`, { reason }),
    ).catch((problem) => {
      liftError.textContent = problem.message;
    });
    if (!lifted) return;
    liftForm.reset();
    toast(`${username} can log in again.`);
    loadLog(true);
    load(true);
  });

  replace(
    root,
    h(
      "div.settings.moderation",
      {},
      h("h1.page-title", {}, "Moderation"),
      h(
        "section.settings-section",
        {},
        h("h2.section-heading", { id: "queue-title" }, "Reported posts"),
        queue,
        queueStatus,
        more,
      ),
      h("section.settings-section", {}, h("h2.section-heading", {}, "Suspended users"), liftForm),
      h("section.settings-section", {}, h("h2.section-heading", { id: "log-title" }, "Moderation log"), log, logStatus, logMore),
    ),
  );
  load(true);
  loadLog(true);
  return () => {
    stopped = true;
  };
}
