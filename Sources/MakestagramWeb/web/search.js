// Finding people by the start of their username.

import { api } from "./api.js";
import { h, replace } from "./dom.js";
import { userRow } from "./lists.js";

export function searchView(root) {
  const input = h("input.input.search-input", {
    id: "search",
    type: "search",
    name: "query",
    placeholder: "Search by username",
    autocomplete: "off",
    autocapitalize: "none",
    spellcheck: false,
  });
  const results = h("ul.user-list", { "aria-label": "People" });
  const status = h("p.muted", { role: "status" }, "Type the start of a username.");
  let timer = null;
  let latest = 0;

  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(search, 200);
  });

  async function search() {
    const query = input.value.trim().toLowerCase();
    const ticket = ++latest;
    if (!query) {
      replace(results);
      status.textContent = "Type the start of a username.";
      return;
    }
    try {
      const page = await api.get("/users", { query: query.slice(0, 30) });
      if (ticket !== latest) return;
      replace(results, page.items.map((user) => userRow(user)));
      status.textContent = page.items.length ? "" : `No one's username starts with “${query}”.`;
    } catch (error) {
      if (ticket === latest) status.textContent = error.message;
    }
  }

  replace(
    root,
    h("h1.page-title", {}, "Find people"),
    h("label.visually-hidden", { for: "search" }, "Username"),
    input,
    status,
    results,
  );
  input.focus();
  return () => clearTimeout(timer);
}
