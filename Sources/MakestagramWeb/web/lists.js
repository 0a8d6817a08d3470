// A dialog listing users (likers, followers, following), loading further pages as it scrolls.

import { api } from "./api.js";
import { h, avatar, openDialog } from "./dom.js";

/** One user in a list: avatar, username and display name, linking to the profile. */
export function userRow(user, onOpen) {
  return h(
    "li",
    {},
    h(
      "a.user-row",
      { href: `/u/${user.username}`, onclick: onOpen },
      avatar(user, 40),
      h("span.user-row-names", {}, h("strong", {}, user.username), h("span.muted", {}, user.displayName)),
    ),
  );
}

export function showUserList(title, path) {
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
        list.append(...page.items.map((user) => userRow(user, () => close())));
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
