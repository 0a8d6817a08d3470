// Activity: what others did to you — likes, comments, follows and requests to follow (each with Approve and
// Decline), grouped as people read them — and the unread
// badge in the navigation bar, both kept current by the event stream's `activity.changed`.

import { api } from "./api.js";
import { h, avatar, replace, timeElement, retryLine, toast } from "./dom.js";

/** The viewer's unread activity count, as the server last told it; listeners redraw what shows it. */
export const activity = {
  unread: 0,
  listeners: new Set(),
  set(count) {
    this.unread = count;
    for (const listener of this.listeners) listener(count);
  },
  /** Asks the server (at start and after the stream was away, when changes may have been missed). */
  async load() {
    try {
      this.set((await api.get("/activity/unread")).unreadCount);
    } catch {
      // The badge keeps its last count; the next stream message or load brings the right one.
    }
  },
  onChange(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  },
};

/** "bob", "bob and carol", "bob and 3 others", with each name a link to the profile. */
function whoDidIt(group) {
  const name = (user) => h("a.activity-name", { href: `/u/${user.username}` }, user.username);
  const [first, second] = group.actors;
  if (group.actorCount === 1) return [name(first)];
  if (group.actorCount === 2 && second) return [name(first), " and ", name(second)];
  const others = group.actorCount - 1;
  return [name(first), ` and ${others.toLocaleString()} ${others === 1 ? "other" : "others"}`];
}

function whatTheyDid(group) {
  switch (group.kind) {
    case "like":
      return " liked your photo.";
    case "comment":
      return [" commented: ", h("span.activity-comment", {}, `“${group.comment?.text ?? ""}”`)];
    case "mention":
      return group.comment
        ? [" mentioned you in a comment: ", h("span.activity-comment", {}, `“${group.comment.text}”`)]
        : " mentioned you in a post.";
    case "follow_request":
      return " asked to follow you.";
    default:
      return " started following you.";
  }
}

/** Approve and Decline for a request to follow a private account; the line goes once answered. */
function requestButtons(group, element) {
  const user = group.actors[0];
  const answer = async (verb) => {
    for (const button of buttons) button.disabled = true;
    try {
      await api.post(`/me/follow-requests/${user.username}/${verb}`);
      element.remove();
      toast(verb === "approve" ? `${user.username} follows you now.` : `You declined ${user.username}'s request.`);
    } catch (error) {
      for (const button of buttons) button.disabled = false;
      toast(`Couldn't answer: ${error.message}`, { error: true });
    }
  };
  const buttons = [
    h(
      "button.button.compact",
      { type: "button", "aria-label": `Approve ${user.username}`, onclick: () => answer("approve") },
      "Approve",
    ),
    h(
      "button.button.secondary.compact",
      { type: "button", "aria-label": `Decline ${user.username}`, onclick: () => answer("decline") },
      "Decline",
    ),
  ];
  return h("div.activity-answers", {}, buttons);
}

function row(group) {
  const element = h(
    group.unread ? "li.activity-item.unread" : "li.activity-item",
    { dataset: { group: group.id } },
    avatar(group.actors[0], 44),
    h("p.activity-text", {}, whoDidIt(group), whatTheyDid(group), " ", timeElement(group.createdAt)),
    group.post &&
      h(
        "a.activity-thumb",
        { href: `/p/${group.post.id}`, "aria-label": "Open the photo" },
        h("img", { src: group.post.thumbnailURL, alt: "", width: 44, height: 44 }),
      ),
  );
  if (group.kind === "follow_request") element.append(requestButtons(group, element));
  return element;
}

export function activityView(root) {
  const list = h("ul.activity-list", { "aria-label": "Activity" });
  const status = h("p.muted.list-status", { role: "status" }, "Loading…");
  const more = h("button.button.secondary", { type: "button", hidden: true }, "Load more");
  let cursor = null;
  let loading = false;
  let reload = null;

  async function load(first) {
    if (loading) return;
    loading = true;
    more.hidden = true;
    try {
      const page = await api.get("/activity", { cursor: first ? null : cursor });
      if (first) list.replaceChildren();
      list.append(...page.items.map(row));
      cursor = page.nextCursor ?? null;
      more.hidden = !cursor;
      status.textContent = list.children.length
        ? ""
        : "When people like or comment on your photos, mention you or follow you, you'll see it here.";
      // What is on screen has been seen; what arrives after this page stays unread.
      if (first && page.items.some((group) => group.unread)) {
        const answer = await api.post("/activity/read", { through: page.items[0].latestId });
        activity.set(answer.unreadCount);
      }
    } catch (error) {
      replace(status, retryLine("your activity", error, () => load(first)));
    } finally {
      loading = false;
    }
  }

  more.addEventListener("click", () => load(false));
  // Something changed while the view is open: show the newest again (the count also changes when this view marks
  // what it shows as read; the reload then finds nothing unread and stops).
  const stop = activity.onChange(() => {
    clearTimeout(reload);
    reload = setTimeout(() => load(true), 250);
  });

  replace(root, h("section.activity-page", {}, h("h1.page-title", {}, "Activity"), status, list, more));
  load(true);
  return () => {
    stop();
    clearTimeout(reload);
  };
}
