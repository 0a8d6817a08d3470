// A post card: author, photos (carousel.js; their space reserved before they load), heart, counts, "Liked by …",
// caption, latest comments and a comment box; its "…" menu is postmenu.js. It redraws its live parts whenever the
// post's model changes.

import { limits } from "./constants.js";
import { h, icon, avatar, replace, timeElement, plural, toast, richText } from "./dom.js";
import { store } from "./posts.js";
import { showUserList } from "./lists.js";
import { photoCarousel } from "./carousel.js";
import { postMenu } from "./postmenu.js";

let cardNumber = 0;

export function userLink(user, className = "user-link") {
  return h(`a.${className}`, { href: `/u/${user.username}` }, user.username);
}

/**
 * A comment line; its delete button shows for the comment's author and the post's author. A preview under a feed card
 * is the text alone: its time and Delete are on the post's page.
 */
export function commentItem(comment, post, { preview = false } = {}) {
  const me = store.me;
  const mayDelete = me && (comment.author.id === me.id || post.author.id === me.id);
  const remove = async (event) => {
    const button = event.currentTarget;
    button.disabled = true;
    try {
      await store.deleteComment(post.id, comment.id);
    } catch (error) {
      button.disabled = false;
      toast(`Couldn't delete the comment: ${error.message}`, { error: true });
    }
  };
  return h(
    "li.comment",
    { dataset: { commentId: comment.id, authorId: comment.author.id } },
    h("p", {}, userLink(comment.author), " ", h("span.comment-text", {}, richText(comment.text))),
    !preview &&
      h(
        "div.comment-meta",
        {},
        timeElement(comment.createdAt),
        mayDelete &&
          h(
            "button.text-button",
            { type: "button", onclick: remove, "aria-label": `Delete comment by ${comment.author.username}` },
            "Delete",
          ),
      ),
  );
}

/** How many characters of a caption the feed shows before "more". */
const CAPTION_FOLD = 125;

/**
 * The one likes line: "Liked by you, alice and 3 others", "Be the first to like this", or "Liked by alice and
 * others" when the author hides the count from the reader (who is "you" in it). "N others" opens the likers.
 */
function likedBy(view, openLikers) {
  const me = store.me?.username;
  const name = (username) => (username === me ? "you" : h("a.user-link", { href: `/u/${username}` }, username));
  const rest = (text) => h("button.text-button.strong.likers-button", { type: "button", onclick: openLikers }, text);
  // The author of a post whose count is hidden sees it, with a word on who else does.
  const onlyYou = view.likeCountHidden && view.likeCount !== null && h("span.muted", {}, " · only you see the number");
  if (!view.likers.length && !view.likeCount) {
    return h("p.liked-by.muted", {}, "Be the first to like this", onlyYou);
  }
  if (view.likeCount === null) return h("p.liked-by", {}, "Liked by ", name(view.likers[0]), " and ", rest("others"));
  const names = view.likers.slice(0, Math.min(view.likers.length, view.likeCount));
  names.sort((a, b) => Number(b === me) - Number(a === me));
  const others = view.likeCount - names.length;
  if (!names.length) return h("p.liked-by", {}, rest(plural(view.likeCount, "like")), onlyYou);
  const parts = ["Liked by "];
  names.forEach((username, index) => {
    if (index > 0) parts.push(index === names.length - 1 && others === 0 ? " and " : ", ");
    parts.push(name(username));
  });
  if (others > 0) parts.push(" and ", rest(plural(others, "other")));
  return h("p.liked-by", {}, parts, onlyYou);
}

/**
 * Builds the card of post `id` (already in the store). `detail` is for the post page, which lists every comment
 * itself. Answers {element, destroy}.
 */
export function postCard(id, { detail = false, navigate } = {}) {
  const number = ++cardNumber;
  let view = store.view(id);
  const post = view;
  const mine = store.me?.id === post.author.id;
  const openLikers = () => showUserList(`Likes`, `/posts/${id}/likes`, navigate);

  const heart = h("button.icon-button.like-button", { type: "button", onclick: () => store.toggleLike(id) });
  const likedByLine = h("div");
  const commentsLink = h("a.muted.view-comments", { href: `/p/${id}` });
  const recent = h("ul.comments", { "aria-label": "Latest comments" });
  const captionLine = h("div.caption-line");
  const authorAvatar = h("span.author-avatar", {}, avatar(post.author, 32));
  const photos = photoCarousel(post, { onLike: () => store.like(id) });

  const input = h("input.comment-input", {
    id: `comment-${number}`,
    name: "text",
    placeholder: "Add a comment…",
    autocomplete: "off",
    maxlength: limits.commentLength[1],
    required: true,
  });
  const submit = h("button.text-button.strong", { type: "submit", disabled: true }, "Post");
  input.addEventListener("input", () => (submit.disabled = !input.value.trim()));
  const form = h(
    "form.comment-form",
    {
      onsubmit: async (event) => {
        event.preventDefault();
        const text = input.value.trim();
        if (!text) return;
        input.disabled = submit.disabled = true;
        try {
          await store.addComment(id, text);
          input.value = "";
        } catch (error) {
          toast(`Couldn't post the comment: ${error.message}`, { error: true });
        } finally {
          input.disabled = false;
          submit.disabled = !input.value.trim();
          input.focus();
        }
      },
    },
    h("label.visually-hidden", { for: input.id }, `Comment on ${post.author.username}'s post`),
    input,
    submit,
  );

  const element = h(
    detail ? "article.card.card-detail" : "article.card",
    { "aria-label": `Post by ${post.author.username}`, dataset: { postId: id } },
    h(
      "header.card-header",
      {},
      h(
        "a.author",
        { href: `/u/${post.author.username}` },
        authorAvatar,
        h("span", {}, post.author.username),
      ),
      h("span.muted", {}, "•"),
      h("a.muted.post-time", { href: `/p/${id}` }, timeElement(post.createdAt)),
      h(
        "button.icon-button.more",
        { type: "button", "aria-label": "More options", onclick: () => postMenu(id, { mine, navigate, photo: photos.current() }) },
        icon("more"),
      ),
    ),
    photos.element,
    h(
      "div.card-body",
      {},
      h(
        "div.card-actions",
        {},
        heart,
        h(
          "button.icon-button",
          { type: "button", "aria-label": "Comment", onclick: () => input.focus() },
          icon("comment"),
        ),
      ),
      likedByLine,
      captionLine,
      !detail && commentsLink,
      !detail && recent,
      form,
    ),
  );

  // A long caption in the feed shows its start and "more"; the post page shows it whole.
  let captionOpen = detail;
  function captionText(caption) {
    const fold = !captionOpen && (caption.length > CAPTION_FOLD || caption.split("\n").length > 3);
    if (!fold) return h("span.caption-text", {}, richText(caption));
    let start = caption.slice(0, CAPTION_FOLD).split("\n").slice(0, 3).join("\n");
    const space = start.lastIndexOf(" ");
    if (space > CAPTION_FOLD / 2) start = start.slice(0, space);
    return [
      h("span.caption-text", {}, richText(start), "… "),
      h(
        "button.text-button.muted.caption-more",
        {
          type: "button",
          onclick: () => {
            captionOpen = true;
            render();
          },
        },
        "more",
      ),
    ];
  }

  function render() {
    replace(authorAvatar, avatar(view.author, 32));
    heart.setAttribute("aria-pressed", String(view.viewerHasLiked));
    heart.setAttribute("aria-label", "Like");
    heart.classList.toggle("liked", view.viewerHasLiked);
    replace(heart, icon("heart"));
    replace(likedByLine, likedBy(view, openLikers));
    replace(
      captionLine,
      view.caption &&
        h(
          "p.caption",
          {},
          userLink(view.author),
          " ",
          captionText(view.caption),
          view.editedAt &&
            h("span.muted.edited", { title: `Edited ${new Date(view.editedAt).toLocaleString()}` }, " · edited"),
        ),
    );
    photos.update(view);
    if (detail) return;
    commentsLink.hidden = view.commentCount <= view.recentComments.length;
    commentsLink.textContent = `View all ${plural(view.commentCount, "comment")}`;
    replace(recent, view.recentComments.map((comment) => commentItem(comment, view, { preview: true })));
  }
  render();
  const stop = store.observe(id, (next) => {
    view = next;
    render();
  });
  return { element, destroy: stop };
}
