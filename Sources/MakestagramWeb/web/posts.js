// One model per post ID, shared by every view that shows the post, so a like in the feed shows on the post page
// too. Server states are ordered by the post's version (answers and live events alike); the viewer's own like is
// shown at once and rolled back if the server refuses it.

import { limits } from "./constants.js";
import { api } from "./api.js";
import { toast } from "./dom.js";

class PostModel {
  constructor(post) {
    this.post = post;
    /** The like state the viewer asked for and the server has not confirmed yet, or null. */
    this.desiredLike = null;
    this.inFlight = false;
    this.listeners = new Set();
    /** Comment IDs already counted, so that an answer and its live event are applied once. */
    this.seenComments = new Set(post.recentComments.map((comment) => comment.id));
  }

  /** What the screen shows: the server state with the viewer's unconfirmed like applied. */
  get view() {
    const post = this.post;
    const liked = this.desiredLike ?? post.viewerHasLiked;
    // Absent when the author hides the count from this viewer.
    const likeCount =
      post.likeCount === undefined || post.likeCount === null
        ? null
        : post.likeCount + Number(liked) - Number(post.viewerHasLiked);
    let likers = post.likers;
    const me = store.me?.username;
    if (me && liked && !likers.includes(me)) likers = [me, ...likers].slice(0, limits.likersPreview);
    if (me && !liked) likers = likers.filter((name) => name !== me);
    return { ...post, viewerHasLiked: liked, likeCount, likers };
  }

  notify(change) {
    for (const listener of [...this.listeners]) listener(this.view, change);
  }
}

/**
 * What a screen reader says for a post's photo: the author's alt text, or that there is none (never the caption,
 * which is read next to it anyway).
 */
export function photoAlt(post, index = 0) {
  const photos = post.photos ?? [post.image];
  if (photos[index]?.altText) return photos[index].altText;
  return photos.length === 1
    ? `Photo by ${post.author.username}, no description`
    : `Photo ${index + 1} of ${photos.length} by ${post.author.username}, no description`;
}

/** For a post from another server, the address of its page there (only a web address, never another scheme). */
export function originalURL(post) {
  if (!/^https?:\/\//.test(post?.original ?? "")) return null;
  try {
    return new URL(post.original);
  } catch {
    return null;
  }
}

export const store = {
  /** The logged-in user (for the likers line). */
  me: null,
  models: new Map(),
  /** Called with a post ID when a post is deleted (by its author here, elsewhere, or found gone). */
  deletionListeners: new Set(),
  /** Called with a user whose name or avatar changed. */
  userListeners: new Set(),
  /** Called when the viewer followed or unfollowed someone (their home timeline is another now). */
  followListeners: new Set(),

  /** Takes posts from an answer; a copy older than the one held is ignored. Answers the current views. */
  take(posts) {
    return posts.map((post) => {
      const model = this.models.get(post.id);
      if (!model) {
        this.models.set(post.id, new PostModel(post));
      } else if (post.version > model.post.version) {
        model.post = post;
        for (const comment of post.recentComments) model.seenComments.add(comment.id);
        model.notify({ type: "state" });
      }
      return this.models.get(post.id).view;
    });
  },

  view(id) {
    return this.models.get(id)?.view;
  },

  /** Calls `listener(view, change)` whenever the post changes; answers a function that stops it. */
  observe(id, listener) {
    const model = this.models.get(id);
    if (!model) return () => {};
    model.listeners.add(listener);
    return () => model.listeners.delete(listener);
  },

  onDeleted(listener) {
    this.deletionListeners.add(listener);
    return () => this.deletionListeners.delete(listener);
  },

  forget() {
    this.models.clear();
  },

  // MARK: Likes

  /** Flips the viewer's like at once; the request follows. */
  toggleLike(id) {
    const model = this.models.get(id);
    if (model) this.setLike(model, !model.view.viewerHasLiked);
  },

  /** Likes (never unlikes): the double-tap on a photo. */
  like(id) {
    const model = this.models.get(id);
    if (model && !model.view.viewerHasLiked) this.setLike(model, true);
  },

  setLike(model, liked) {
    model.desiredLike = liked;
    model.notify({ type: "like" });
    if (!model.inFlight) this.sendLike(model);
  },

  /** Sends what the viewer wants, one request at a time: clicks made meanwhile are folded into the next one. */
  async sendLike(model) {
    const id = model.post.id;
    model.inFlight = true;
    try {
      while (model.desiredLike !== null && model.desiredLike !== model.post.viewerHasLiked) {
        const liked = model.desiredLike;
        const state = await (liked ? api.put(`/posts/${id}/like`) : api.delete(`/posts/${id}/like`));
        if (state.version > model.post.version) {
          Object.assign(model.post, {
            likeCount: state.likeCount ?? null,
            viewerHasLiked: state.viewerHasLiked,
            likers: state.likers,
            version: state.version,
          });
        } else {
          model.post.viewerHasLiked = state.viewerHasLiked;
        }
      }
      model.desiredLike = null;
      model.notify({ type: "like" });
    } catch (error) {
      const wanted = model.desiredLike;
      model.desiredLike = null;
      model.notify({ type: "like" });
      if (error.status === 404) return this.removed(id, "This post was deleted.");
      toast(`Couldn't ${wanted ? "like" : "unlike"} the post: ${error.message}`, { error: true });
    } finally {
      model.inFlight = false;
    }
  },

  // MARK: Comments

  async addComment(id, text) {
    const comment = await api.post(`/posts/${id}/comments`, { text });
    const model = this.models.get(id);
    if (model && !model.seenComments.has(comment.id)) {
      model.seenComments.add(comment.id);
      model.post.commentCount += 1;
      model.post.recentComments = [...model.post.recentComments, comment].slice(-2);
      model.notify({ type: "comment.created", comment });
    }
    return comment;
  },

  async deleteComment(postID, commentID) {
    await api.delete(`/comments/${commentID}`);
    const model = this.models.get(postID);
    if (model && !model.seenComments.has(-commentID)) {
      model.seenComments.add(-commentID);
      model.post.commentCount = Math.max(0, model.post.commentCount - 1);
      model.post.recentComments = model.post.recentComments.filter((comment) => comment.id !== commentID);
      model.notify({ type: "comment.deleted", commentId: commentID });
    }
  },

  // MARK: Posts

  /** Replaces the caption of the viewer's own post; shown when the server has it. */
  async editCaption(id, caption) {
    const post = await api.patch(`/posts/${id}`, { caption });
    this.take([post]);
    return post;
  },

  /**
   * Replaces the alt text (empty: none) of photo `photo` (from 1) of the viewer's own post; shown when the server
   * has it.
   */
  async editAltText(id, altText, photo = 1) {
    const post = await api.patch(`/posts/${id}`, photo === 1 ? { altText } : { altText, photo });
    this.take([post]);
    return post;
  },

  /** Reads a post again (its photo changed: alt text or renditions) if it is held and older than `version`. */
  async reload(id, version) {
    const model = this.models.get(id);
    if (!model || !(version > model.post.version)) return;
    try {
      this.take([await api.get(`/posts/${id}`)]);
    } catch {
      // Gone or out of reach: its deletion, or the next read, says so.
    }
  },

  /** Hides the like count of the viewer's own post from everyone else, or shows it again. */
  async setLikeCountHidden(id, hidden) {
    const post = await api.patch(`/posts/${id}`, { hideLikeCount: hidden });
    this.take([post]);
    return post;
  },

  async deletePost(id) {
    await api.delete(`/posts/${id}`);
    this.removed(id);
  },

  removed(id, message) {
    this.models.delete(id);
    for (const listener of [...this.deletionListeners]) listener(id);
    if (message) toast(message);
  },

  // MARK: Live events

  /** Shows a user's new name or avatar wherever a post shows them (author, commenters), and in `me`. */
  userUpdated(user) {
    if (this.me?.id === user.id) Object.assign(this.me, user);
    for (const model of this.models.values()) {
      const post = model.post;
      let changed = false;
      if (post.author.id === user.id) {
        post.author = user;
        changed = true;
      }
      post.recentComments = post.recentComments.map((comment) => {
        if (comment.author.id !== user.id) return comment;
        changed = true;
        return { ...comment, author: user };
      });
      if (changed) model.notify({ type: "user", user });
    }
    for (const listener of [...this.userListeners]) listener(user);
  },

  /** A user's account was suspended or deleted: their posts and comments leave every screen. */
  userRemoved(userID) {
    for (const [id, model] of [...this.models]) {
      if (model.post.author.id === userID) {
        this.removed(id);
        continue;
      }
      const before = model.post.recentComments.length;
      model.post.recentComments = model.post.recentComments.filter((comment) => comment.author.id !== userID);
      if (model.post.recentComments.length !== before) model.notify({ type: "user.removed", userId: userID });
    }
  },

  /** Calls `listener(user)` when a user's name or avatar changes; answers a function that stops it. */
  onUserUpdated(listener) {
    this.userListeners.add(listener);
    return () => this.userListeners.delete(listener);
  },

  /** Calls `listener()` when the viewer follows or unfollows someone; answers a function that stops it. */
  onFollowsChanged(listener) {
    this.followListeners.add(listener);
    return () => this.followListeners.delete(listener);
  },
  /** The viewer followed or unfollowed someone. */
  followsChanged() {
    for (const listener of [...this.followListeners]) listener();
  },

  /** Applies a message from the event stream; anything not newer than what is held is dropped. */
  apply(message) {
    if (message.type === "user.updated") return this.userUpdated(message.user);
    if (message.type === "user.removed") return this.userRemoved(message.userId);
    if (message.type === "post.deleted") return this.removed(message.postId);
    if (message.type === "post.snapshot") return this.take([message.post]);
    if (message.type === "post.photoChanged") return this.reload(message.postId, message.version);
    const model = this.models.get(message.postId);
    if (!model || !(message.version > model.post.version)) return;
    const post = model.post;
    post.version = message.version;
    switch (message.type) {
      case "post.liked":
      case "post.unliked":
        Object.assign(post, {
          likeCount: message.likeCount ?? null,
          likers: message.likers,
          viewerHasLiked: message.viewerHasLiked,
        });
        return model.notify({ type: "like" });
      case "post.likeCountVisibility":
        post.likeCountHidden = message.likeCountHidden;
        post.likeCount = message.likeCount ?? null;
        return model.notify({ type: "like" });
      case "post.edited":
        post.caption = message.caption;
        post.editedAt = message.editedAt;
        return model.notify({ type: "caption" });
      case "comment.created":
        post.commentCount = message.commentCount;
        if (!model.seenComments.has(message.comment.id)) {
          model.seenComments.add(message.comment.id);
          post.recentComments = [...post.recentComments, message.comment].slice(-2);
          model.notify({ type: "comment.created", comment: message.comment });
        } else {
          model.notify({ type: "state" });
        }
        return;
      case "comment.deleted":
        post.commentCount = message.commentCount;
        post.recentComments = post.recentComments.filter((comment) => comment.id !== message.commentId);
        if (!model.seenComments.has(-message.commentId)) {
          model.seenComments.add(-message.commentId);
          model.notify({ type: "comment.deleted", commentId: message.commentId });
        } else {
          model.notify({ type: "state" });
        }
        return;
    }
  },
};
