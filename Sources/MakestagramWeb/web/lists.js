// Lists of people: one row per user with a Follow button, the dialog listing likers, followers or following
// (loading further pages as it scrolls), and "Suggested for you".

import { api } from "./api.js";
import { h, avatar, openDialog, toast } from "./dom.js";
import { store } from "./posts.js";

/**
 * A Follow / Following button for `user` (whose `viewerFollows` it reads and keeps). `onChange(state)` hears each
 * change the server confirmed, with the user's new follower count.
 */
export function followToggle(user, { onChange, className = "" } = {}) {
  const button = h(`button.button${className}`, { type: "button" });
  // A follow of a private account waits for its owner: "Requested" until answered (a click withdraws it).
  const render = () => {
    const engaged = user.viewerFollows || user.viewerRequested === true;
    button.textContent = user.viewerFollows ? "Following" : user.viewerRequested ? "Requested" : "Follow";
    button.classList.toggle("secondary", engaged);
    button.setAttribute("aria-pressed", String(engaged));
    button.setAttribute(
      "aria-label",
      user.viewerFollows
        ? `Unfollow ${user.username}`
        : user.viewerRequested
          ? `Withdraw your request to follow ${user.username}`
          : `Follow ${user.username}`,
    );
  };
  button.addEventListener("click", async (event) => {
    event.preventDefault();
    button.disabled = true;
    try {
      const state =
        user.viewerFollows || user.viewerRequested
          ? await api.delete(`/users/${user.username}/follow`)
          : await api.put(`/users/${user.username}/follow`);
      user.viewerFollows = state.viewerFollows;
      user.viewerRequested = state.viewerRequested;
      if (state.viewerRequested) toast(`You asked to follow ${user.username}. They'll decide.`);
      // Following or unfollowing reshapes the whole timeline, older posts included: whoever shows it hears of it.
      store.followsChanged();
      render();
      onChange?.(state);
    } catch (error) {
      toast(`Couldn't change the follow: ${error.message}`, { error: true });
    } finally {
      button.disabled = false;
    }
  });
  render();
  return button;
}

/**
 * One user in a list: avatar, username and display name, linking to the profile, and a Follow button; with
 * `onRemove`, in the viewer's own followers, a Remove button too.
 */
export function userRow(user, onOpen, onRemove = null) {
  const follows = user.viewerFollows === true || user.viewerFollows === false;
  const row = h(
    "li.user-item",
    {},
    h(
      "a.user-row",
      { href: `/u/${user.username}`, onclick: onOpen },
      avatar(user, 40),
      h("span.user-row-names", {}, h("strong", {}, user.username), h("span.muted", {}, user.displayName)),
    ),
    follows ? followToggle(user, { className: ".compact" }) : null,
  );
  if (onRemove) row.append(removeFollowerButton(user, row, onRemove));
  return row;
}

/** Stops `user` following the viewer (they are not told, and may ask again), then takes their row away. */
function removeFollowerButton(user, row, onRemove) {
  const button = h(
    "button.button.secondary.compact",
    { type: "button", "aria-label": `Remove ${user.username} from your followers` },
    "Remove",
  );
  button.addEventListener("click", async (event) => {
    event.preventDefault();
    button.disabled = true;
    try {
      await api.delete(`/me/followers/${user.username}`);
      row.remove();
      toast(`${user.username} no longer follows you.`);
      onRemove(user);
    } catch (error) {
      toast(`Couldn't remove ${user.username}: ${error.message}`, { error: true });
      button.disabled = false;
    }
  });
  return button;
}

/**
 * "Suggested for you": people the viewer might follow (for `related`, a profile being looked at, whom it follows
 * first). Hidden while loading, and when there is no one to suggest or the list cannot load.
 */
export function suggestions({ related = null, limit = 5, title = "Suggested for you" } = {}) {
  const list = h("ul.user-list");
  const section = h(
    "section.suggestions",
    { hidden: true, "aria-labelledby": "suggestions-title" },
    h("h2.section-title", { id: "suggestions-title" }, title),
    list,
  );
  api
    .get("/me/suggestions", related ? { for: related, limit } : { limit })
    .then((page) => {
      list.replaceChildren(...page.items.map((user) => userRow(user)));
      section.hidden = page.items.length === 0;
    })
    .catch(() => {});
  return section;
}

/** A dialog listing people; with `onRemove`, the viewer's own followers, each with a Remove button. */
export function showUserList(title, path, { onRemove = null } = {}) {
  return openDialog(title, (close) => {
    const list = h("ul.user-list");
    const status = h("p.muted.list-status", { role: "status" }, "Loading…");
    const more = h("button.button.secondary", { type: "button", hidden: true }, "Load more");
    let cursor = null;
    async function load() {
      more.hidden = true;
      status.textContent = "Loading…";
      try {
        const page = await api.get(path, { cursor });
        list.append(...page.items.map((user) => userRow(user, () => close(), onRemove)));
        cursor = page.nextCursor ?? null;
        more.hidden = !cursor;
        status.textContent = list.children.length ? "" : "No one yet.";
      } catch (error) {
        status.textContent = `Couldn't load the list: ${error.message}`;
        more.hidden = false;
      }
    }
    more.addEventListener("click", load);
    load();
    return [list, status, more];
  });
}
