// A profile: avatar, names, counts, follow/unfollow (or, for the viewer, sharing and logging out) and a grid of
// the user's photos that loads further pages as it scrolls.

import { api } from "./api.js";
import { limits } from "./constants.js";
import { h, avatar, replace, toast, plural, icon, emptyState, retryLine, openDialog, confirmDialog } from "./dom.js";
import { store, photoAlt } from "./posts.js";
import { albumLabel, albumMark } from "./carousel.js";
import { showUserList, followToggle, suggestions } from "./lists.js";

export function profileView(root, { params, logOut, live, navigate }) {
  const username = params.username;
  let stopped = false;
  const grid = h("ul.grid", { "aria-label": `Posts by ${username}` });
  const gridStatus = h("div.feed-status", { role: "status" });
  const sentinel = h("div.sentinel", { "aria-hidden": "true" });
  let observer = null;
  const tiles = new Map();

  replace(root, h("div.spinner", { "aria-label": "Loading profile" }));

  /** The follower count, opening the list of followers: your own, each with a Remove button the count follows. */
  function followersButton(profile) {
    const count = h("strong");
    const word = document.createTextNode("");
    const render = () => {
      count.textContent = profile.followerCount.toLocaleString();
      word.textContent = ` ${profile.followerCount === 1 ? "follower" : "followers"}`;
    };
    const removed = () => {
      profile.followerCount = Math.max(0, profile.followerCount - 1);
      render();
    };
    render();
    return h(
      "button.text-button",
      {
        type: "button",
        onclick: () =>
          showUserList("Followers", `/users/${username}/followers`, {
            onRemove: store.me?.id === profile.id ? removed : null,
          }),
      },
      count,
      word,
    );
  }

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
      h("li", {}, followersButton(profile)),
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

  /** Mute or unmute: their posts leave the feed and their likes and comments the activity; they are not told. */
  function muteButton(profile) {
    const button = h("button.button.secondary.mute-button", { type: "button" });
    const render = () => {
      button.textContent = profile.viewerMutes ? "Unmute" : "Mute";
      button.setAttribute("aria-label", `${button.textContent} ${profile.username}`);
    };
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        const muting = !profile.viewerMutes;
        const state = await (muting ? api.put : api.delete)(`/users/${profile.username}/mute`);
        profile.viewerMutes = state.viewerMutes;
        render();
        // The home feed is read again when next shown, without (or with) their posts.
        store.followsChanged();
        toast(
          state.viewerMutes
            ? `You muted ${profile.username}: their posts and activity stay out of your feed. They are not told.`
            : `You unmuted ${profile.username}: their posts and activity are back.`,
        );
      } catch (error) {
        toast(`Couldn't change it: ${error.message}`, { error: true });
      } finally {
        button.disabled = false;
      }
    });
    render();
    return button;
  }

  /**
   * Block (after a confirmation saying what it does) or unblock. A block ends the follows both ways and removes their
   * likes and comments on your posts; the profile is shown again as it now is.
   */
  function blockButton(profile) {
    const button = h("button.button.secondary.block-button", { type: "button" });
    button.textContent = profile.viewerBlocks ? "Unblock" : "Block";
    button.setAttribute("aria-label", `${button.textContent} ${profile.username}`);
    button.addEventListener("click", async () => {
      const blocking = !profile.viewerBlocks;
      if (
        blocking &&
        !(await confirmDialog(
          `Block ${profile.username}?`,
          "Neither of you will see the other's profile, posts, likes or comments, and they can't follow you or " +
            "reach you. You stop following each other, and their likes and comments on your posts are removed. " +
            "They are not told.",
          "Block",
          { danger: true },
        ))
      ) {
        return;
      }
      button.disabled = true;
      try {
        const state = await (blocking ? api.put : api.delete)(`/users/${profile.username}/block`);
        store.followsChanged();
        toast(
          state.viewerBlocks
            ? `You blocked ${profile.username}. They are not told.`
            : `You unblocked ${profile.username}. Follows the block ended do not come back by themselves.`,
        );
        if (!stopped) navigate(location.pathname, { replace: true });
      } catch (error) {
        toast(`Couldn't change it: ${error.message}`, { error: true });
        button.disabled = false;
      }
    });
    return button;
  }

  function followButton(profile, countsHolder) {
    return followToggle(profile, {
      onChange: (state) => {
        profile.followerCount = state.followerCount;
        replace(countsHolder, counts(profile));
        if (state.viewerRequested) return;
        toast(
          state.viewerFollows
            ? `You follow ${username}: their posts will be in your feed.`
            : `You unfollowed ${username}.`,
        );
        // A private account's photos are for its followers: the page is shown again as it now is.
        if (profile.isPrivate && !stopped) navigate(location.pathname, { replace: true });
      },
    });
  }

  function tile(post) {
    const view = store.view(post.id) ?? post;
    const thumb = post.image.thumb;
    const overlay = h("span.tile-overlay", { "aria-hidden": "true" });
    const link = h(
      "a.tile",
      { href: `/p/${post.id}` },
      h("img", {
        src: thumb.url,
        width: thumb.width,
        height: thumb.height,
        alt: photoAlt(post),
        loading: "lazy",
        decoding: "async",
      }),
      albumMark(post),
      overlay,
    );
    // The label says what the overlay shows, and changes with it.
    const renderOverlay = (current) => {
      link.setAttribute(
        "aria-label",
        `${post.caption || "Photo"}${albumLabel(post)}` +
          `${current.likeCount === null ? "" : ` — ${plural(current.likeCount, "like")}`}`,
      );
      replace(
        overlay,
        current.likeCount !== null && h("span", {}, icon("heart"), current.likeCount.toLocaleString()),
        h("span", {}, icon("comment"), current.commentCount.toLocaleString()),
      );
    };
    renderOverlay(view);
    const element = h("li", {}, link);
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

  let stopUserUpdates = () => {};
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
    const picture = h("div.profile-avatar");
    const displayName = h("p.profile-display-name");
    const bio = h("p.profile-bio");
    const renderIdentity = () => {
      replace(picture, avatar({ ...profile, avatarURL: profile.avatarLargeURL ?? profile.avatarURL }, 96));
      displayName.textContent = profile.displayName;
      bio.textContent = profile.bio;
      bio.hidden = !profile.bio;
    };
    renderIdentity();
    stopUserUpdates = store.onUserUpdated(async (user) => {
      if (user.id !== profile.id) return;
      // An event carries the name and small avatar: show them at once, then read the bio and the large avatar.
      const largeStillRight = user.avatarURL === profile.avatarURL;
      Object.assign(profile, user, { avatarLargeURL: largeStillRight ? profile.avatarLargeURL : undefined });
      renderIdentity();
      try {
        const fresh = await api.get(`/users/${username}`);
        if (stopped) return;
        Object.assign(profile, {
          displayName: fresh.displayName,
          avatarURL: fresh.avatarURL,
          avatarLargeURL: fresh.avatarLargeURL,
          bio: fresh.bio,
        });
        renderIdentity();
      } catch {
        // The summary is shown; the bio stays as it was until the page is loaded again.
      }
    });
    const edited = (answer) => {
      Object.assign(profile, answer);
      renderIdentity();
      store.userUpdated({
        id: answer.id,
        username: answer.username,
        displayName: answer.displayName,
        avatarURL: answer.avatarURL,
      });
    };
    replace(
      root,
      h(
        "section.profile-header",
        {},
        picture,
        h(
          "div.profile-info",
          {},
          h("h1.profile-name", {}, profile.username),
          displayName,
          bio,
          countsHolder,
          h(
            "div.profile-actions",
            {},
            mine
              ? [
                  h(
                    "button.button.secondary.edit-profile",
                    { type: "button", onclick: () => editProfile(profile, edited) },
                    "Edit profile",
                  ),
                  h("a.button", { href: "/new" }, "New post"),
                  h("a.button.secondary.settings-link", { href: "/settings" }, "Settings"),
                  h("button.button.secondary.log-out", { type: "button", onclick: () => logOut() }, "Log out"),
                ]
              : profile.viewerBlocks
                ? [h("p.muted.blocked-note", {}, "You block this account."), blockButton(profile)]
                : [followButton(profile, countsHolder), muteButton(profile), blockButton(profile)],
          ),
        ),
      ),
      mine ? null : suggestions({ related: profile.username, limit: 3 }),
      grid,
      gridStatus,
      sentinel,
    );
    if (profile.isPrivate && !mine && !profile.viewerFollows) {
      // Its photos are for the followers it accepts: say so instead of an empty grid.
      grid.hidden = true;
      replace(
        gridStatus,
        h(
          "div.private-note",
          {},
          h("h2.section-title", {}, "This account is private"),
          h(
            "p.muted",
            {},
            profile.viewerRequested
              ? `You asked to follow ${profile.username}. Their photos show here once they approve.`
              : `Follow ${profile.username} to see their photos; they approve who follows them.`,
          ),
        ),
      );
      return;
    }
    observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) loadMore();
    }, { rootMargin: "600px 0px" });
    observer.observe(sentinel);
  })();

  return () => {
    stopped = true;
    observer?.disconnect();
    stopDeletions();
    stopUserUpdates();
    for (const entry of tiles.values()) entry.stop();
    live.unwatch([...tiles.keys()]);
  };
}

/**
 * The dialog that edits the viewer's own profile: name and bio saved together, the avatar at once when a photo is
 * chosen or removed. `edited(profile)` gets each answer.
 */
function editProfile(profile, edited) {
  return openDialog("Edit profile", (close) => {
    const preview = h("span.avatar-preview", {}, avatar(profile, 64));
    const chooser = h("input.visually-hidden", { type: "file", id: "avatar-file", accept: "image/*" });
    const remove = h("button.button.secondary", { type: "button", hidden: !profile.avatarURL }, "Remove photo");
    const error = h("p.form-error", { role: "alert" });
    const name = h("input.input", {
      id: "profile-name",
      name: "displayName",
      required: true,
      maxlength: limits.displayNameLength[1],
      autocomplete: "name",
    });
    name.value = profile.displayName;
    const bio = h("textarea.textarea", { id: "profile-bio", name: "bio", rows: 3, maxlength: limits.bioLength[1] });
    bio.value = profile.bio;
    const hideCounts = h("input", { type: "checkbox", id: "profile-hide-like-counts", name: "hideLikeCounts" });
    hideCounts.checked = !!profile.hideLikeCounts;
    const privateAccount = h("input", { type: "checkbox", id: "profile-private", name: "isPrivate" });
    privateAccount.checked = !!profile.isPrivate;
    const save = h("button.button", { type: "submit" }, "Save");

    const avatarChange = async (request) => {
      error.textContent = "";
      chooser.disabled = remove.disabled = true;
      try {
        const answer = await request();
        edited(answer);
        replace(preview, avatar(answer, 64));
        remove.hidden = !answer.avatarURL;
      } catch (problem) {
        error.textContent = problem.message;
      } finally {
        chooser.disabled = remove.disabled = false;
        chooser.value = "";
      }
    };
    chooser.addEventListener("change", () => {
      const file = chooser.files?.[0];
      if (file) avatarChange(() => api.putImage("/me/avatar", file));
    });
    remove.addEventListener("click", () => avatarChange(() => api.delete("/me/avatar")));

    return h(
      "form.stack",
      {
        onsubmit: async (event) => {
          event.preventDefault();
          save.disabled = true;
          error.textContent = "";
          try {
            const wasPrivate = !!profile.isPrivate;
            edited(
              await api.patch("/me", {
                displayName: name.value.trim(),
                bio: bio.value.trim(),
                hideLikeCounts: hideCounts.checked,
                isPrivate: privateAccount.checked,
              }),
            );
            close();
            toast("Profile saved");
            if (wasPrivate !== privateAccount.checked) {
              // A private account's photos are at signed URLs, a public one's at plain ones: show them anew.
              store.followsChanged();
              if (!stopped) navigate(location.pathname, { replace: true });
            }
          } catch (problem) {
            error.textContent = problem.message;
            save.disabled = false;
          }
        },
      },
      h(
        "div.avatar-editor",
        {},
        preview,
        h("label.button.secondary", { for: "avatar-file" }, "Change photo"),
        chooser,
        remove,
      ),
      h("label", { for: "profile-name" }, "Name"),
      name,
      h("label", { for: "profile-bio" }, "Bio"),
      bio,
      h(
        "label.checkbox-row",
        { for: "profile-hide-like-counts" },
        hideCounts,
        h(
          "span",
          {},
          "Hide like counts on my new posts",
          h("span.muted.checkbox-hint", {}, "Others see who liked a photo, not how many. You always see yours."),
        ),
      ),
      h(
        "label.checkbox-row",
        { for: "profile-private" },
        privateAccount,
        h(
          "span",
          {},
          "Private account",
          h(
            "span.muted.checkbox-hint",
            {},
            "Only followers you approve see your photos. Turning it off accepts everyone who asked.",
          ),
        ),
      ),
      error,
      h(
        "div.dialog-actions",
        {},
        h("button.button.secondary", { type: "button", onclick: () => close() }, "Cancel"),
        save,
      ),
    );
  });
}
