// One post with all of its comments, oldest first, kept current by live events.

import { api } from "./api.js";
import { h, icon, replace, toast, emptyState } from "./dom.js";
import { store, originalURL } from "./posts.js";
import { postCard, commentItem } from "./card.js";

export function postView(root, { params, live, navigate }) {
  const id = Number(params.id);
  let stopped = false;
  let card = null;
  let stopObserving = () => {};
  const comments = h("ul.comments.all-comments", { "aria-label": "Comments" });
  const more = h("button.button.secondary", { type: "button", hidden: true }, "Load more comments");
  const status = h("p.muted", { role: "status" });
  const shown = new Set();
  let cursor = null;
  let exhausted = false;

  replace(root, h("div.spinner", { "aria-label": "Loading post" }));

  function show(comment) {
    if (shown.has(comment.id)) return;
    shown.add(comment.id);
    comments.append(commentItem(comment, store.view(id)));
    status.textContent = "";
  }

  async function loadComments() {
    more.hidden = true;
    try {
      const page = await api.get(`/posts/${id}/comments`, { cursor, limit: 50 });
      page.items.forEach(show);
      cursor = page.nextCursor ?? null;
      exhausted = !cursor;
      more.hidden = exhausted;
      if (shown.size === 0) status.textContent = "No comments yet.";
    } catch (error) {
      toast(`Couldn't load comments: ${error.message}`, { error: true });
      more.hidden = false;
    }
  }
  more.addEventListener("click", loadComments);

  const stopDeletions = store.onDeleted((deleted) => {
    if (deleted !== id || stopped) return;
    replace(root, emptyState("Post deleted", "This post is gone.", h("a.button", { href: "/" }, "Back to your feed")));
  });

  (async () => {
    let post;
    try {
      post = await api.get(`/posts/${id}`);
    } catch (error) {
      if (stopped) return;
      replace(
        root,
        emptyState(
          error.status === 404 ? "Post not found" : "Couldn't load the post",
          error.status === 404 ? "It may have been deleted." : error.message,
          h("a.button", { href: "/" }, "Back to your feed"),
        ),
      );
      return;
    }
    if (stopped) return;
    store.take([post]);
    document.title = `${post.author.username} on Makestagram`;
    card = postCard(id, { detail: true, navigate });
    // The comment list sits inside the card, above its comment box.
    const form = card.element.querySelector(".comment-form");
    form.before(h("h2.visually-hidden", {}, "Comments"), comments, more, status);
    // A post from another server links to its page there (only a web address is ever a link).
    const original = originalURL(post);
    if (original) {
      card.element.querySelector(".caption-line")?.after(
        h(
          "p.original.muted",
          {},
          h("a.text-link", { href: original.href, rel: "nofollow noopener noreferrer", target: "_blank" },
            `See the original on ${original.host}`),
        ),
      );
    }
    // The page's heading, for screen readers (the card shows the author and caption itself).
    // Close goes back where the reader came from in the app, or to the feed for a link opened on its own.
    const close = h(
      "button.icon-button.post-close",
      {
        type: "button",
        "aria-label": "Close",
        onclick: () => (history.state?.inApp ? history.back() : navigate("/")),
      },
      icon("close"),
    );
    replace(
      root,
      h("h1.visually-hidden", {}, `Post by ${post.author.username}${post.caption ? `: ${post.caption}` : ""}`),
      h("div.post-page-top", {}, close),
      card.element,
    );
    live.watch([id]);
    stopObserving = store.observe(id, (view, change) => {
      if (change?.type === "comment.created" && (exhausted || shown.size === 0)) show(change.comment);
      // A newer whole state (a snapshot after the stream was away or a subscription waited): its newest comments
      // fill any gap.
      if (change?.type === "state" && exhausted) view.recentComments.forEach(show);
      if (change?.type === "comment.deleted") {
        shown.delete(change.commentId);
        comments.querySelector(`[data-comment-id="${change.commentId}"]`)?.remove();
        if (shown.size === 0) status.textContent = "No comments yet.";
      }
      if (change?.type === "user.removed") {
        for (const element of comments.querySelectorAll(`[data-author-id="${change.userId}"]`)) {
          shown.delete(Number(element.dataset.commentId));
          element.remove();
        }
        if (shown.size === 0) status.textContent = "No comments yet.";
      }
    });
    await loadComments();
  })();

  return () => {
    stopped = true;
    stopDeletions();
    stopObserving();
    card?.destroy();
    if (card) live.unwatch([id]);
  };
}
