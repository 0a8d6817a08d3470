// Finding people by part of their username or name; suggestions while nothing is typed.

import { api } from "./api.js";
import { h, replace } from "./dom.js";
import { userRow, suggestions } from "./lists.js";

export function searchView(root) {
  const input = h("input.input.search-input", {
    id: "search",
    type: "search",
    name: "query",
    placeholder: "Search by name, or @user@server",
    autocomplete: "off",
    autocapitalize: "none",
    spellcheck: false,
  });
  const results = h("ul.user-list.search-results", { "aria-label": "People" });
  const hint = "Type part of a username or name, or a handle on another server: @user@server.";
  const status = h("p.muted", { role: "status" }, hint);
  const suggested = suggestions();
  let timer = null;
  let latest = 0;

  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(search, 200);
  });

  async function search() {
    const query = input.value.trim();
    const ticket = ++latest;
    suggested.classList.toggle("searching", query !== "");
    if (!query) {
      replace(results);
      status.textContent = hint;
      return;
    }
    try {
      const page = await api.get("/users", { query: [...query].slice(0, 50).join("") });
      if (ticket !== latest) return;
      replace(results, page.items.map((user) => userRow(user)));
      status.textContent = page.items.length ? "" : `No one matches “${query}”.`;
    } catch (error) {
      if (ticket === latest) status.textContent = error.message;
    }
  }

  replace(
    root,
    h("h1.page-title", {}, "Find people"),
    h("label.visually-hidden", { for: "search" }, "Username or name"),
    input,
    status,
    results,
    suggested,
  );
  input.focus();
  return () => clearTimeout(timer);
}
