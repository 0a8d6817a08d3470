// A profile: avatar, names, counts, follow/unfollow (or, for the viewer, sharing and logging out) and a grid of
// the user's photos that loads further pages as it scrolls.

import { api } from "./api.js";
import { h, avatar, replace, toast, plural, icon, emptyState, retryLine } from "./dom.js";
import { store } from "./posts.js";
import { showUserList } from "./lists.js";
import { feed } from "./feed.js";

export function profileView(root, { params, logOut, live }) {
  const username = params.username;
  let stopped = false;
  const grid = h("ul.grid", { "aria-label": `Posts by ${username}` });
  const gridStatus = h("div.feed-status", { role: "status" });
  const sentinel = h("div.sentinel", { "aria-hidden": "true" });
  let observer = null;
  const tiles = new Map();

  replace(root, h("div.spinner", { "aria-label": "Loading profile" }));

  function counts(profile) {
    return h(
      "ul.counts",
      {},
      h(
        "li",
        {},
        h("strong", {}, profile.postCount.toLocaleString()),
        ` ${profile.postCount === 1 ? "post" : "posts"}`,
      ),
      h(
        "li",
        {},
        h(
          "button.text-button",
          { type: "button", onclick: () => showUserList("Followers", `/users/${username}/followers`) },
          h("strong", {}, profile.followerCount.toLocaleString()),
          ` ${profile.followerCount === 1 ? "follower" : "followers"}`,
        ),
      ),
      h(
        "li",
        {},
        h(
          "button.text-button",
          { type: "button", onclick: () => showUserList("Following", `/users/${username}/following`) },
          h("strong", {}, profile.followingCount.toLocaleString()),
          " following",
        ),
      ),
    );
  }

  function followButton(profile, countsHolder) {
    const button = h("button.button", { type: "button" });
    const render = () => {
      button.textContent = profile.viewerFollows ? "Following" : "Follow";
      button.classList.toggle("secondary", profile.viewerFollows);
      button.setAttribute("aria-pressed", String(profile.viewerFollows));
      button.setAttribute("aria-label", profile.viewerFollows ? `Unfollow ${username}` : `Follow ${username}`);
    };
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        const state = profile.viewerFollows
          ? await api.delete(`/users/${username}/follow`)
          : await api.put(`/users/${username}/follow`);
        profile.viewerFollows = state.viewerFollows;
        // Following or unfollowing reshapes the whole timeline, older posts included: load it afresh next time.
        feed.reset();
        profile.followerCount = state.followerCount;
        render();
        replace(countsHolder, counts(profile));
        toast(
          state.viewerFollows
            ? `You follow ${username}: their posts will be in your feed.`
            : `You unfollowed ${username}.`,
        );
      } catch (error) {
        toast(`Couldn't change the follow: ${error.message}`, { error: true });
      } finally {
        button.disabled = false;
      }
    });
    render();
    return button;
  }

  function tile(post) {
    const view = store.view(post.id) ?? post;
    const thumb = post.image.thumb;
    const overlay = h("span.tile-overlay", { "aria-hidden": "true" });
    const renderOverlay = (current) =>
      replace(
        overlay,
        h("span", {}, icon("heart"), current.likeCount.toLocaleString()),
        h("span", {}, icon("comment"), current.commentCount.toLocaleString()),
      );
    renderOverlay(view);
    const element = h(
      "li",
      {},
      h(
        "a.tile",
        { href: `/p/${post.id}`, "aria-label": `${post.caption || "Photo"} — ${plural(view.likeCount, "like")}` },
        h("img", {
          src: thumb.url,
          width: thumb.width,
          height: thumb.height,
          alt: post.caption || `Photo by ${username}`,
          loading: "lazy",
          decoding: "async",
        }),
        overlay,
      ),
    );
    tiles.set(post.id, { element, stop: store.observe(post.id, renderOverlay) });
    live.watch([post.id]);
    return element;
  }

  let cursor = null;
  let exhausted = false;
  let loading = false;
  async function loadMore() {
    if (loading || exhausted || stopped) return;
    loading = true;
    replace(gridStatus, h("div.spinner", { "aria-label": "Loading posts" }));
    try {
      const page = await api.get(`/users/${username}/posts`, { cursor, limit: 24 });
      store.take(page.items);
      grid.append(...page.items.filter((post) => !tiles.has(post.id)).map(tile));
      cursor = page.nextCursor ?? null;
      exhausted = !cursor;
      replace(gridStatus, exhausted && tiles.size === 0 ? h("p.muted.empty", {}, "No posts yet.") : null);
    } catch (error) {
      replace(gridStatus, retryLine("posts", error, loadMore));
    } finally {
      loading = false;
    }
  }

  const stopDeletions = store.onDeleted((id) => {
    const entry = tiles.get(id);
    if (!entry) return;
    entry.stop();
    entry.element.remove();
    tiles.delete(id);
    live.unwatch([id]);
  });

  (async () => {
    let profile;
    try {
      profile = await api.get(`/users/${username}`);
    } catch (error) {
      if (stopped) return;
      replace(
        root,
        emptyState(
          error.status === 404 ? "No such user" : "Couldn't load the profile",
          error.status === 404 ? `There is no one called ${username}.` : error.message,
          h("a.button", { href: "/search" }, "Find people"),
        ),
      );
      return;
    }
    if (stopped) return;
    document.title = `${profile.displayName} (@${profile.username}) · Makestagram`;
    const mine = store.me?.id === profile.id;
    const countsHolder = h("div", {}, counts(profile));
    replace(
      root,
      h(
        "section.profile-header",
        {},
        avatar(profile, 96),
        h(
          "div.profile-info",
          {},
          h("h1.profile-name", {}, profile.username),
          h("p.profile-display-name", {}, profile.displayName),
          countsHolder,
          h(
            "div.profile-actions",
            {},
            mine
              ? [
                  h("a.button", { href: "/new" }, "New post"),
                  h("button.button.secondary", { type: "button", onclick: () => logOut() }, "Log out"),
                ]
              : followButton(profile, countsHolder),
          ),
        ),
      ),
      grid,
      gridStatus,
      sentinel,
    );
    observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) loadMore();
    }, { rootMargin: "600px 0px" });
    observer.observe(sentinel);
  })();

  return () => {
    stopped = true;
    observer?.disconnect();
    stopDeletions();
    for (const entry of tiles.values()) entry.stop();
    live.unwatch([...tiles.keys()]);
  };
}
