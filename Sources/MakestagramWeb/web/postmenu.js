// A post's "…" menu and the dialogs it opens: go to the post (and, for one from another server, its original
// there), copy its link, edit its caption or a photo's alt text,
// hide its like count, delete it (its author), or report it (anyone else).

import { limits } from "./constants.js";
import { h, toast, openDialog, confirmDialog, textDialog } from "./dom.js";
import { store, originalURL } from "./posts.js";
import { photosOf } from "./carousel.js";
import { reportPost } from "./report.js";

/** The dialog that edits the alt text of photo `photo` (from 0) of the viewer's own post. */
function editAltText(id, photo) {
  const post = store.view(id);
  const photos = post ? photosOf(post) : [];
  const which = photos.length > 1 ? ` of photo ${photo + 1} of ${photos.length}` : "";
  return textDialog(photos.length > 1 ? `Edit alt text of photo ${photo + 1}` : "Edit alt text", {
    label: `Alt text${which}: what the photo shows, for people who can't see it`,
    field: { id: "edit-alt-text", name: "altText", rows: 4, maxlength: limits.altTextLength[1] },
    value: photos[photo]?.altText ?? "",
    submitLabel: "Save",
    async submit(altText, close) {
      await store.editAltText(id, altText, photo + 1);
      close();
      toast("Alt text saved");
    },
  });
}

/** The dialog that edits the caption of the viewer's own post. */
function editCaption(id) {
  return textDialog("Edit caption", {
    label: "Caption",
    field: { id: "edit-caption", name: "caption", rows: 4, maxlength: limits.captionLength[1] },
    value: store.view(id)?.caption ?? "",
    submitLabel: "Save",
    async submit(caption, close) {
      await store.editCaption(id, caption);
      close();
      toast("Caption saved");
    },
  });
}

/**
 * The "…" menu of post `id`: open (here, and its original on another server), copy the link, edit (own posts: the caption, the alt text of the photo shown,
 * `photo`, and whether others see the like count), delete (own posts) or report (others').
 */
export function postMenu(id, { mine, navigate, photo = 0 }) {
  const original = originalURL(store.view(id));
  openDialog("Post options", (close) =>
    h(
      "div.menu",
      {},
      h("a.menu-item", { href: `/p/${id}`, onclick: () => close() }, "Go to post"),
      original &&
        h(
          "a.menu-item.original-link",
          { href: original.href, rel: "nofollow noopener noreferrer", target: "_blank", onclick: () => close() },
          `See the original on ${original.host}`,
        ),
      h(
        "button.menu-item",
        {
          type: "button",
          onclick: async () => {
            close();
            try {
              await navigator.clipboard.writeText(`${location.origin}/p/${id}`);
              toast("Link copied");
            } catch {
              toast(`${location.origin}/p/${id}`);
            }
          },
        },
        "Copy link",
      ),
      mine &&
        h(
          "button.menu-item",
          {
            type: "button",
            onclick: () => {
              close();
              editCaption(id);
            },
          },
          "Edit caption",
        ),
      mine &&
        h(
          "button.menu-item",
          {
            type: "button",
            onclick: () => {
              close();
              editAltText(id, photo);
            },
          },
          "Edit alt text",
        ),
      mine &&
        h(
          "button.menu-item",
          {
            type: "button",
            onclick: async () => {
              close();
              const hidden = !store.view(id)?.likeCountHidden;
              try {
                await store.setLikeCountHidden(id, hidden);
                toast(hidden ? "Only you see the like count now" : "Everyone sees the like count again");
              } catch (error) {
                toast(`Couldn't change it: ${error.message}`, { error: true });
              }
            },
          },
          store.view(id)?.likeCountHidden ? "Show like count" : "Hide like count",
        ),
      mine
        ? h(
            "button.menu-item.danger-text",
            {
              type: "button",
              onclick: async () => {
                close();
                const sure = await confirmDialog(
                  "Delete post?",
                  "The photo, its likes and its comments will be gone for everyone.",
                  "Delete",
                  { danger: true },
                );
                if (!sure) return;
                try {
                  await store.deletePost(id);
                  toast("Post deleted");
                  if (location.pathname === `/p/${id}`) navigate("/");
                } catch (error) {
                  toast(`Couldn't delete the post: ${error.message}`, { error: true });
                }
              },
            },
            "Delete",
          )
        : h(
            "button.menu-item.danger-text",
            {
              type: "button",
              onclick: () => {
                close();
                reportPost(id, store.view(id)?.author?.username ?? "");
              },
            },
            "Report",
          ),
    ),
  );
}
