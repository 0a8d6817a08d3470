// A hashtag's page: the posts whose caption carries it, newest first, as a grid that loads more as it scrolls.

import { api } from "./api.js";
import { h, replace, retryLine } from "./dom.js";
import { albumLabel, albumMark } from "./carousel.js";

export function tagView(root, { params }) {
  const tag = decodeURIComponent(params.tag);
  document.title = `#${tag} · Makestagram`;
  const grid = h("ul.grid", { "aria-label": `Posts tagged #${tag}` });
  const status = h("div.feed-status", { role: "status" });
  const sentinel = h("div.sentinel", { "aria-hidden": "true" });
  let cursor = null;
  let exhausted = false;
  let loading = false;
  let stopped = false;
  const shown = new Set();

  function tile(post) {
    const thumb = post.image.thumb;
    return h(
      "li",
      {},
      h(
        "a.tile",
        {
          href: `/p/${post.id}`,
          "aria-label": (post.caption || `Photo by ${post.author.username}`) + albumLabel(post),
        },
        h("img", { src: thumb.url, width: thumb.width, height: thumb.height, alt: "", loading: "lazy" }),
        albumMark(post),
      ),
    );
  }

  async function loadMore() {
    if (loading || exhausted || stopped) return;
    loading = true;
    replace(status, h("div.spinner", { "aria-label": "Loading posts" }));
    try {
      const page = await api.get(`/tags/${encodeURIComponent(tag)}/posts`, { cursor });
      if (stopped) return;
      const fresh = page.items.filter((post) => !shown.has(post.id));
      for (const post of fresh) shown.add(post.id);
      grid.append(...fresh.map(tile));
      cursor = page.nextCursor ?? null;
      exhausted = !cursor;
      replace(status, exhausted && shown.size === 0 ? h("p.muted.empty", {}, `No posts with #${tag} yet.`) : null);
    } catch (error) {
      replace(status, retryLine("posts", error, loadMore));
    } finally {
      loading = false;
    }
  }

  const observer = new IntersectionObserver((entries) => {
    if (entries.some((entry) => entry.isIntersecting)) loadMore();
  }, { rootMargin: "600px 0px" });
  replace(root, h("section.tag-page", {}, h("h1.page-title.tag-title", {}, `#${tag}`), grid, status, sentinel));
  observer.observe(sentinel);
  loadMore();
  return () => {
    stopped = true;
    observer.disconnect();
  };
}
