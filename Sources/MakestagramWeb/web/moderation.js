// The moderators' page: the reports queue (oldest waiting report first) with its actions — dismiss the reports,
// remove the post, suspend its author — lifting a suspension, other servers suspended or limited, how deliveries to
// each other server go (with a Retry for one that fails), and the moderation log. Each action asks for a reason that
// the log keeps.

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
  suspend_domain: (user, post, domain) => `suspended the server ${domain}`,
  limit_domain: (user, post, domain) => `limited the server ${domain}`,
  unblock_domain: (user, post, domain) => `lifted the block of the server ${domain}`,
};

/** What each severity of a server's block does, as the form offers it. */
const SEVERITIES = { suspend: "Suspend", limit: "Limit" };

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
    const what = ACTIONS[item.action]?.(user, post, item.domain) ?? `${item.action} ${user}`;
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

  const servers = h("ul.session-list.server-blocks", { "aria-labelledby": "servers-title" });
  const serversStatus = h("div.list-status", { role: "status" });
  function showServers(blocks) {
    replace(servers, blocks.map(serverRow));
    serversStatus.textContent = blocks.length ? "" : "No server is blocked.";
  }
  function serverRow(block) {
    const lift = h(
      "button.button.secondary.compact",
      { type: "button", "aria-label": `Lift the block of ${block.domain}` },
      "Lift",
    );
    lift.addEventListener("click", async () => {
      let blocks = null;
      const lifted = await withReason(`Lift the block of ${block.domain}?`, "Lift", async (reason) => {
        blocks = (await api.request("DELETE", `/moderation/domain-blocks/${encodeURIComponent(block.domain)}`, { json: { reason } })).blocks;
      });
      if (!lifted) return;
      showServers(blocks);
      toast(`${block.domain} is no longer blocked.`);
      loadLog(true);
    });
    return h(
      "li.session",
      {},
      h(
        "div.session-text",
        {},
        h("strong", {}, block.domain),
        h("span.muted.session-detail", {}, block.severity === "suspend" ? "Suspended" : "Limited", block.reason ? ` — “${block.reason}”` : "", " · ", timeElement(block.createdAt)),
      ),
      lift,
    );
  }
  async function loadServers() {
    try {
      showServers((await api.get("/moderation/domain-blocks")).blocks);
    } catch (problem) {
      if (problem.code !== code.forbidden) replace(serversStatus, retryLine("the blocked servers", problem, loadServers));
    }
  }
  const deliveries = h("ul.session-list.delivery-servers", { "aria-labelledby": "deliveries-title" });
  const deliveriesStatus = h("div.list-status", { role: "status" });
  function deliveryRow(server) {
    const state = server.givenUp
      ? ["Not tried until it sends something · failing since ", timeElement(server.failingSince)]
      : server.failingSince
        ? [`Failing (${plural(server.failures, "time")} in a row) since `, timeElement(server.failingSince)]
        : server.lastDeliveredAt
          ? ["Delivering · last ", timeElement(server.lastDeliveredAt)]
          : ["Not reached yet"];
    const retry = server.failingSince
      ? h("button.button.secondary.compact", { type: "button", "aria-label": `Retry ${server.server}` }, "Retry")
      : null;
    retry?.addEventListener("click", async () => {
      retry.disabled = true;
      try {
        showDeliveries((await api.post(`/moderation/servers/${encodeURIComponent(server.server)}/retry`)).servers);
        toast(`Trying ${server.server} again.`);
      } catch (problem) {
        retry.disabled = false;
        toast(`Couldn't retry ${server.server}: ${problem.message}`, { error: true });
      }
    });
    return h(
      "li.session",
      {},
      h(
        "div.session-text",
        {},
        h("strong", {}, server.server),
        h(
          "span.muted.session-detail",
          {},
          ...state,
          server.pending ? ` · ${plural(server.pending, "delivery", "deliveries")} waiting` : "",
          server.blocked ? ` · ${server.blocked === "suspend" ? "suspended" : "limited"} here` : "",
        ),
        server.failingSince && server.lastError ? h("span.muted.session-detail", {}, server.lastError) : null,
      ),
      retry,
    );
  }
  function showDeliveries(servers) {
    replace(deliveries, servers.map(deliveryRow));
    deliveriesStatus.textContent = servers.length ? "" : "Nothing has been sent to another server yet.";
  }
  async function loadDeliveries() {
    try {
      showDeliveries((await api.get("/moderation/servers")).servers);
    } catch (problem) {
      if (problem.code !== code.forbidden) replace(deliveriesStatus, retryLine("the deliveries", problem, loadDeliveries));
    }
  }
  const serverDomain = field("server-domain", "Server", { autocomplete: "off", autocapitalize: "none", spellcheck: false, required: true, maxlength: 253, placeholder: "example.social" });
  const severity = h(
    "select.input",
    { id: "server-severity", name: "severity", "aria-describedby": "server-severity-hint" },
    Object.entries(SEVERITIES).map(([value, label]) => h("option", { value }, label)),
  );
  const serverError = h("p.form-error", { role: "alert" });
  const serverForm = h(
    "form.stack.settings-form",
    { "aria-label": "Block a server" },
    serverDomain.element,
    h(
      "div.field",
      {},
      h("label", { for: "server-severity" }, "What it does"),
      severity,
      h(
        "p.hint.muted",
        { id: "server-severity-hint" },
        "Suspend refuses everything from the server and removes its people's posts, likes, comments and follows " +
          "here. Limit shows their posts only to those who follow them.",
      ),
    ),
    serverError,
    h("button.button.danger", { type: "submit" }, "Block server"),
  );
  serverForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const domain = serverDomain.input.value.trim();
    if (!domain) return;
    serverError.textContent = "";
    let blocks = null;
    const verb = severity.value === "suspend" ? "Suspend" : "Limit";
    const done = await withReason(`${verb} ${domain}?`, verb, async (reason) => {
      blocks = (await api.put(`/moderation/domain-blocks/${encodeURIComponent(domain)}`, { severity: severity.value, reason })).blocks;
    }).catch((problem) => {
      serverError.textContent = problem.message;
    });
    if (!done) return;
    serverForm.reset();
    showServers(blocks);
    toast(`${blocks[0]?.domain ?? domain} is ${verb === "Suspend" ? "suspended" : "limited"}.`);
    loadLog(true);
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
      h(
        "section.settings-section",
        {},
        h("h2.section-heading", { id: "servers-title" }, "Other servers"),
        h("p.muted", {}, "A block covers the server's subdomains too."),
        serverForm,
        serversStatus,
        servers,
      ),
      h(
        "section.settings-section",
        {},
        h("h2.section-heading", { id: "deliveries-title" }, "Deliveries to other servers"),
        deliveriesStatus,
        deliveries,
      ),
      h("section.settings-section", {}, h("h2.section-heading", { id: "log-title" }, "Moderation log"), log, logStatus, logMore),
    ),
  );
  load(true);
  loadServers();
  loadDeliveries();
  loadLog(true);
  return () => {
    stopped = true;
  };
}
