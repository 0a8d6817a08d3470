// The home feed: the viewer's and their followees' posts, newest first. Older pages load as the end comes into
// view; newer posts come by pulling down (touch), the refresh button, or the "New posts" pill that live events
// raise. The feed's state outlives the view, so coming back from a profile keeps the place.

import { api } from "./api.js";
import { h, icon, replace, toast, emptyState, retryLine } from "./dom.js";
import { store } from "./posts.js";
import { postCard } from "./card.js";
import { suggestions } from "./lists.js";

const PAGE = 20;

const state = {
  ids: [],
  nextCursor: null,
  newerCursor: null,
  /** Posts announced live (or found by a catch-up) and not shown yet: the pill's count. */
  pending: [],
  loaded: false,
  exhausted: false,
  scrollY: 0,
};

/** The mounted view, if the feed is on screen. */
let mounted = null;

// Following or unfollowing someone reshapes the whole timeline, older posts included: load it afresh next time.
store.onFollowsChanged(() => feed.reset());

export const feed = {
  reset() {
    Object.assign(state, {
      ids: [], nextCursor: null, newerCursor: null, pending: [], loaded: false, exhausted: false, scrollY: 0,
    });
  },

  /** A post entering the timeline while the viewer is here: offered by the pill, not pushed under their eyes. */
  announce(post) {
    if (state.ids.includes(post.id) || state.pending.some((pending) => pending.id === post.id)) return;
    store.take([post]);
    state.pending.unshift(post);
    mounted?.showPill();
  },

  /** The viewer's own new post goes straight to the top. */
  prependOwn(post) {
    store.take([post]);
    state.pending = state.pending.filter((pending) => pending.id !== post.id);
    if (!state.ids.includes(post.id)) state.ids.unshift(post.id);
  },

  /** After the live stream was away: whatever was posted meanwhile waits behind the pill. */
  async catchUp() {
    if (!state.loaded) return;
    try {
      for (const post of await fetchNewer()) feed.announce(post);
    } catch {
      // The next refresh will try again.
    }
  },
};

/** Every post newer than the top of the feed, newest first (pages of newer posts come oldest batch first). */
async function fetchNewer() {
  if (!state.newerCursor) {
    // The feed was empty: its first page is what is new, and older pages follow it.
    const page = await api.get("/timeline", { limit: PAGE });
    state.newerCursor = page.newerCursor ?? null;
    if (state.ids.length === 0) {
      state.nextCursor = page.nextCursor ?? null;
      state.exhausted = !state.nextCursor;
    }
    return page.items.filter((post) => !state.ids.includes(post.id));
  }
  const found = [];
  for (;;) {
    const page = await api.get("/timeline", { cursor: state.newerCursor, limit: PAGE });
    if (page.newerCursor) state.newerCursor = page.newerCursor;
    found.unshift(...page.items);
    if (page.items.length < PAGE) return found.filter((post) => !state.ids.includes(post.id));
  }
}

export function feedView(root, { live, navigate }) {
  const cards = new Map();
  const list = h("div.feed-list");
  const status = h("div.feed-status", { role: "status" });
  const sentinel = h("div.sentinel", { "aria-hidden": "true" });
  const pill = h(
    "button.new-posts-pill",
    { type: "button", hidden: true, onclick: () => showPending() },
    icon("up"),
    h("span"),
  );
  const pullIndicator = h("div.pull-indicator", { "aria-hidden": "true" }, icon("refresh"));
  const refreshButton = h(
    "button.icon-button",
    { type: "button", "aria-label": "Refresh feed", title: "Refresh", onclick: () => refresh() },
    icon("refresh"),
  );
  replace(
    root,
    h("div.feed-header", {}, h("h1.page-title", {}, "Home"), refreshButton),
    pullIndicator,
    pill,
    list,
    status,
    sentinel,
  );

  function addCard(id, where = "end") {
    if (cards.has(id) || !store.view(id)) return;
    const card = postCard(id, { navigate });
    cards.set(id, card);
    if (where === "start") list.prepend(card.element);
    else list.append(card.element);
    live.watch([id]);
  }

  function removeCard(id) {
    const card = cards.get(id);
    if (!card) return;
    card.destroy();
    card.element.remove();
    cards.delete(id);
    live.unwatch([id]);
  }

  function renderStatus() {
    if (state.loaded && state.ids.length === 0) {
      replace(
        status,
        emptyState(
          "Your feed is empty",
          "Share a photo, or find people to follow: their posts will show up here.",
          h("a.button", { href: "/new" }, "Share a photo"),
          h("a.button.secondary", { href: "/search" }, "Find people"),
        ),
        suggestions(),
      );
    } else if (state.exhausted) {
      replace(status, h("p.muted.end", {}, "You're all caught up."));
    }
  }

  let loading = false;
  async function loadMore() {
    if (loading || state.exhausted) return;
    loading = true;
    replace(status, h("div.spinner", { "aria-label": "Loading posts" }));
    try {
      const page = await api.get("/timeline", { cursor: state.nextCursor, limit: PAGE });
      const posts = store.take(page.items);
      if (!state.loaded) state.newerCursor = page.newerCursor ?? null;
      state.loaded = true;
      state.nextCursor = page.nextCursor ?? null;
      state.exhausted = !state.nextCursor;
      for (const post of posts) {
        if (!state.ids.includes(post.id)) state.ids.push(post.id);
        addCard(post.id);
      }
      replace(status);
      renderStatus();
    } catch (error) {
      replace(status, retryLine("posts", error, loadMore));
    } finally {
      loading = false;
    }
    // A tall screen may show the end at once: keep going until it does not.
    if (!state.exhausted && sentinel.getBoundingClientRect().top < innerHeight + 800) queueMicrotask(loadMore);
  }

  let refreshing = false;
  async function refresh() {
    if (refreshing) return;
    refreshing = true;
    refreshButton.classList.add("spinning");
    try {
      if (!state.loaded) {
        await loadMore();
      } else {
        const fresh = await fetchNewer();
        state.pending = state.pending.filter((post) => !fresh.some((found) => found.id === post.id));
        insertAtTop(fresh);
        showPending();
        if (!fresh.length) toast("You're up to date");
      }
    } catch (error) {
      toast(`Couldn't refresh: ${error.message}`, { error: true });
    } finally {
      refreshing = false;
      refreshButton.classList.remove("spinning");
    }
  }

  function insertAtTop(posts) {
    store.take(posts);
    for (const post of [...posts].reverse()) {
      if (state.ids.includes(post.id)) continue;
      state.ids.unshift(post.id);
      addCard(post.id, "start");
    }
    renderStatus();
  }

  function showPending() {
    const pending = state.pending;
    state.pending = [];
    insertAtTop(pending);
    pill.hidden = true;
    scrollTo({ top: 0, behavior: "smooth" });
  }

  const view = {
    showPill() {
      const count = state.pending.length;
      pill.hidden = count === 0;
      pill.lastChild.textContent = count === 1 ? "1 new post" : `${count} new posts`;
    },
  };
  mounted = view;

  // Posts deleted anywhere leave the feed.
  const stopDeletions = store.onDeleted((id) => {
    state.ids = state.ids.filter((other) => other !== id);
    state.pending = state.pending.filter((post) => post.id !== id);
    removeCard(id);
    view.showPill();
    renderStatus();
  });

  // Infinite scroll.
  const observer = new IntersectionObserver((entries) => {
    if (entries.some((entry) => entry.isIntersecting)) loadMore();
  }, { rootMargin: "800px 0px" });
  observer.observe(sentinel);

  const stopPull = pullToRefresh(pullIndicator, refresh);

  for (const id of state.ids) addCard(id);
  view.showPill();
  if (state.loaded) {
    renderStatus();
    requestAnimationFrame(() => scrollTo(0, state.scrollY));
    feed.catchUp();
  } else {
    loadMore();
  }
  const remember = () => (state.scrollY = scrollY);
  addEventListener("scroll", remember, { passive: true });

  return () => {
    removeEventListener("scroll", remember);
    observer.disconnect();
    stopPull();
    stopDeletions();
    mounted = null;
    for (const id of [...cards.keys()]) removeCard(id);
  };
}

/** On touch screens, pulling down from the top of the page past a threshold refreshes. */
function pullToRefresh(indicator, refresh) {
  let startY = null;
  let distance = 0;
  const start = (event) => {
    startY = scrollY <= 0 && event.touches.length === 1 ? event.touches[0].clientY : null;
    distance = 0;
  };
  const move = (event) => {
    if (startY === null) return;
    distance = Math.max(0, event.touches[0].clientY - startY);
    indicator.style.setProperty("--pull", `${Math.min(distance, 120)}px`);
    indicator.classList.toggle("armed", distance > 80);
  };
  const end = () => {
    if (startY !== null && distance > 80) refresh();
    startY = null;
    distance = 0;
    indicator.style.setProperty("--pull", "0px");
    indicator.classList.remove("armed");
  };
  addEventListener("touchstart", start, { passive: true });
  addEventListener("touchmove", move, { passive: true });
  addEventListener("touchend", end);
  return () => {
    removeEventListener("touchstart", start);
    removeEventListener("touchmove", move);
    removeEventListener("touchend", end);
  };
}
