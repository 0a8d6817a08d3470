// A post's photos as a card shows them: the first at once, the others a swipe, a button or an arrow key away, with
// dots saying where you are. Each photo's alt text is its own; a double tap (or double click) on any photo likes.

import { h, icon } from "./dom.js";
import { photoAlt } from "./posts.js";

/** How wide a post's photo is drawn: the feed's column, or the screen on a phone (the browser multiplies by the
 * screen's density to pick a variant). */
const PHOTO_SIZES = "(min-width: 632px) 600px, 100vw";

/** A post's photos, as the API sends them: `photos` for an album, `image` alone otherwise. */
export function photosOf(post) {
  return post.photos ?? [post.image];
}

/**
 * `image` (whose src is the full JPEG) offering the photo's responsive variants, when it has any: the browser takes
 * the narrowest that fills the photo's width at the screen's density, and the JPEG if it cannot show WebP.
 */
export function responsivePhoto(postImage, image) {
  const variants = postImage.variants ?? [];
  if (!variants.length) return image;
  return h(
    "picture",
    {},
    h("source", {
      type: variants[0].type ?? "image/webp",
      srcset: variants.map((variant) => `${variant.url} ${variant.width}w`).join(", "),
      sizes: PHOTO_SIZES,
    }),
    image,
  );
}

/**
 * The photo frame of `post`: a single photo as it always was, an album as a carousel. `onLike` runs on a double
 * tap. Answers {element, update(post), current()}: `update` takes the post's newer state (alt texts), `current` the
 * index of the photo shown.
 */
export function photoCarousel(post, { onLike }) {
  const photos = photosOf(post);
  const first = photos[0].full;
  const burst = h("div.burst", { "aria-hidden": "true" }, icon("heart"));
  const images = photos.map((photo, index) =>
    h("img.photo", {
      src: photo.full.url,
      width: photo.full.width,
      height: photo.full.height,
      alt: photoAlt(post, index),
      loading: "lazy",
      decoding: "async",
    }),
  );
  // The first photo's own shape, up to a 4:5 portrait; a taller one is shown whole inside that frame, never cropped.
  const style = `aspect-ratio: ${first.width} / ${Math.min(first.height, first.width * 1.25)}`;
  let index = 0;
  let element;
  if (photos.length === 1) {
    element = h("div.photo-frame", { style }, responsivePhoto(photos[0], images[0]), burst);
  } else {
    const track = h(
      "div.carousel-track",
      {
        role: "region",
        "aria-roledescription": "carousel",
        "aria-label": `${photos.length} photos by ${post.author.username}`,
        tabindex: 0,
      },
      photos.map((photo, at) =>
        h(
          "div.carousel-slide",
          { role: "group", "aria-roledescription": "slide", "aria-label": `${at + 1} of ${photos.length}` },
          responsivePhoto(photo, images[at]),
        ),
      ),
    );
    const previous = h(
      "button.carousel-button.previous",
      { type: "button", "aria-label": "Previous photo", onclick: () => go(index - 1) },
      icon("left"),
    );
    const next = h(
      "button.carousel-button.next",
      { type: "button", "aria-label": "Next photo", onclick: () => go(index + 1) },
      icon("right"),
    );
    const dots = photos.map(() => h("span.carousel-dot"));
    const position = h("p.visually-hidden", { "aria-live": "polite" });
    element = h(
      "div.photo-frame.carousel",
      { style },
      track,
      previous,
      next,
      h("div.carousel-dots", { "aria-hidden": "true" }, dots),
      position,
      burst,
    );
    /** The photo a button or key is sliding to: the photos passed on the way are not "shown". */
    let sliding = null;
    /** Shows photo `to` (clamped), sliding to it. */
    const go = (to, { announce = true } = {}) => {
      const target = Math.max(0, Math.min(photos.length - 1, to));
      const left = target * track.clientWidth;
      sliding = Math.abs(track.scrollLeft - left) > 1 ? target : null;
      track.scrollTo({ left, behavior: "smooth" });
      if (announce && target !== index) position.textContent = `Photo ${target + 1} of ${photos.length}`;
      shown(target);
    };
    const shown = (at) => {
      index = at;
      previous.hidden = at === 0;
      next.hidden = at === photos.length - 1;
      dots.forEach((dot, dotIndex) => dot.classList.toggle("current", dotIndex === at));
    };
    // A swipe (or a trackpad) scrolls the track, which snaps to a photo: follow it.
    let frame = 0;
    track.addEventListener("scroll", () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => {
        const at = Math.round(track.scrollLeft / Math.max(1, track.clientWidth));
        if (sliding !== null) {
          // A slide under way: the photos it passes are not shown; it is done once it arrives.
          if (at === sliding || Math.abs(track.scrollLeft - sliding * track.clientWidth) < 2) sliding = null;
          return;
        }
        if (at !== index) shown(Math.max(0, Math.min(photos.length - 1, at)));
      });
    });
    track.addEventListener("keydown", (event) => {
      if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
        event.preventDefault();
        go(index + (event.key === "ArrowRight" ? 1 : -1));
      } else if (event.key === "Home" || event.key === "End") {
        event.preventDefault();
        go(event.key === "Home" ? 0 : photos.length - 1);
      }
    });
    shown(0);
  }
  onDoubleTap(element, () => {
    onLike();
    burst.classList.remove("bursting");
    void burst.offsetWidth;
    burst.classList.add("bursting");
  });
  return {
    element,
    current: () => index,
    update(next) {
      images.forEach((image, at) => (image.alt = photoAlt(next, at)));
    },
  };
}

/** Calls `action` on a double click or a double tap (two taps within 300 ms, close together). */
function onDoubleTap(element, action) {
  let last = null;
  element.addEventListener("pointerup", (event) => {
    if (event.pointerType === "mouse" || event.target.closest("button")) return;
    const now = { time: event.timeStamp, x: event.clientX, y: event.clientY };
    if (last && now.time - last.time < 300 && Math.hypot(now.x - last.x, now.y - last.y) < 30) {
      last = null;
      action();
    } else {
      last = now;
    }
  });
  element.addEventListener("dblclick", (event) => {
    if (event.target.closest("button")) return;
    event.preventDefault();
    action();
  });
}

/** What a grid tile adds to its label for an album (" — 3 photos"); nothing for a single photo. */
export function albumLabel(post) {
  const count = photosOf(post).length;
  return count > 1 ? ` — ${count} photos` : "";
}

/** The mark a grid tile shows on an album (its label says it in words: ``albumLabel``); none for a single photo. */
export function albumMark(post) {
  const count = photosOf(post).length;
  return count > 1 ? h("span.album-mark", { "aria-hidden": "true", title: `${count} photos` }, icon("album")) : null;
}
