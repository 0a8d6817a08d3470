// Sharing photos: choose or drop one or several, order them, describe each, write a caption, watch each upload,
// land on the feed.

import { limits, problem as code } from "./constants.js";
import { api, APIError } from "./api.js";
import { h, icon, plural, replace, toast } from "./dom.js";
import { feed } from "./feed.js";
import { store } from "./posts.js";

const MAX_CAPTION = limits.captionLength[1];
const MAX_ALT_TEXT = limits.altTextLength[1];

/** The server's upload limit. */
function maxUploadBytes() {
  return limits.maxUploadBytes;
}

function megabytes(bytes) {
  return `${(bytes / (1024 * 1024)).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`;
}

/** What to tell the person when the server refuses the photo. */
export function uploadErrorMessage(error) {
  switch (error.code) {
    case code.payloadTooLarge:
      return `This photo is too big. Photos can be up to ${megabytes(maxUploadBytes())}.`;
    case code.unsupportedMediaType:
      return "That file isn't a photo Makestagram can read. Choose a JPEG, PNG, WebP or HEIC photo.";
    case code.invalidImage:
      return "That photo is broken or incomplete and can't be read. Try another one.";
    case code.imageTooLarge:
      return `That photo has too many pixels. ${error.detail}`;
    case "network":
      return "The upload failed: the server could not be reached. Check your connection and try again.";
    default:
      return error.message;
  }
}

/**
 * The photo format a file's first bytes say it is ("jpeg", "png", "webp", "heic"), or null: the same signatures the
 * server reads (Photos' ImageFormat), never the file's name or declared type.
 */
export async function photoFormat(file) {
  const head = new Uint8Array(await file.slice(0, 16).arrayBuffer());
  const ascii = (from, to) => String.fromCharCode(...head.slice(from, to));
  const starts = (bytes, at = 0) => bytes.every((byte, index) => head[at + index] === byte);
  if (starts([0xff, 0xd8, 0xff])) return "jpeg";
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "png";
  if (ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return "webp";
  if (ascii(4, 8) === "ftyp" && limits.heifBrands.includes(ascii(8, 12))) return "heic";
  return null;
}

/** The crops the server applies (PhotoCrop): the value sent, what the choice says, and width over height. */
const CROPS = [
  { value: "original", label: "Original", ratio: null },
  { value: "square", label: "Square", ratio: 1 },
  { value: "portrait", label: "4:5", ratio: 4 / 5 },
  { value: "landscape", label: "1.91:1", ratio: 1.91 },
];

/**
 * The composer: one or more photos (up to the server's limit) in the order they will be shown, each with its own
 * alt text, one crop for the whole post (a carousel then keeps one frame as it is swiped, as Instagram does), a
 * caption. Sharing uploads the photos one by one, each with its own progress, then posts them; Cancel stops it and
 * takes back what was uploaded, so nothing is published.
 */
export function uploadView(root, { navigate }) {
  /** The chosen photos, in order: {file, url, altText, item, …} (the elements are kept across reorders). */
  let photos = [];
  let crop = CROPS[0];
  let nextKey = 0;

  const input = h("input.visually-hidden", {
    id: "photo-input",
    type: "file",
    name: "image",
    multiple: true,
    accept: "image/jpeg,image/png,image/webp,image/heic,image/heif,.heic,.heif",
  });
  const list = h("ol.photo-list", { "aria-label": "Photos, in the order the post shows them" });
  const listStatus = h("p.visually-hidden", { role: "status" });
  // The crop step: each preview shows exactly what will be shared, cut around the centre as the server will cut it.
  const cropChoices = h(
    "fieldset.crop-choices",
    { hidden: true },
    h("legend", {}, "Crop"),
    CROPS.map((choice) =>
      h(
        "label.crop-choice",
        {},
        h("input", {
          type: "radio",
          name: "crop",
          value: choice.value,
          checked: choice === crop,
          onchange: () => {
            crop = choice;
            for (const photo of photos) showCrop(photo);
          },
        }),
        h("span", {}, choice.label),
      ),
    ),
  );
  /** Frames a photo's preview at the chosen aspect (the photo's own for Original). */
  function showCrop(photo) {
    const image = photo.image;
    const ratio = crop.ratio ?? (image.naturalWidth && image.naturalWidth / image.naturalHeight);
    photo.frame.style.aspectRatio = ratio ? String(ratio) : "";
    // As wide as the column allows while no taller than 60% of the screen, keeping the aspect.
    photo.frame.style.width = ratio ? `min(100%, calc(60vh * ${ratio}))` : "";
    photo.frame.classList.toggle("cropped", crop.ratio !== null);
  }
  const dropTitle = h("strong", {}, "Choose photos");
  const drop = h(
    "label.drop-zone",
    { for: "photo-input" },
    icon("photo", "drop-icon"),
    dropTitle,
    h("span.muted", {}, `or drop them here · up to ${limits.maxPhotosPerPost} · JPEG, PNG, WebP or HEIC`),
  );
  const caption = h("textarea.textarea", {
    id: "caption",
    name: "caption",
    rows: 4,
    maxlength: MAX_CAPTION,
    placeholder: "Write a caption…",
  });
  const counter = h("span.muted.counter", { "aria-live": "polite" }, `0 / ${MAX_CAPTION}`);
  const altHelp = h(
    "p.muted.hint",
    { id: "alt-text-help", hidden: true },
    "Screen readers read the alt text instead of the photo. Without it, they say the photo has no description.",
  );
  const error = h("p.form-error", { role: "alert", id: "upload-error" });
  const progress = h("progress.upload-progress", { max: 100, value: 0, hidden: true, "aria-label": "Upload progress" });
  const progressText = h("span.muted", { role: "status" });
  const share = h("button.button", { type: "submit", disabled: true }, "Share");
  const cancel = h("button.button.secondary", { type: "button" }, "Cancel");
  /** The sharing on its way: its abort controller, the uploads made, whether to take it all back. */
  let sharing = null;

  caption.addEventListener("input", () => {
    counter.textContent = `${[...caption.value].length} / ${MAX_CAPTION}`;
  });

  /** The label of photo `index` (from 0) in what buttons and fields say. */
  const nameOf = (index) => (photos.length === 1 ? "the photo" : `photo ${index + 1}`);

  /** Builds the list item of a chosen photo, once. */
  function item(photo) {
    photo.image = h("img.preview-image", { src: photo.url, alt: "" });
    photo.image.addEventListener("load", () => showCrop(photo));
    photo.image.addEventListener("error", () =>
      replace(
        photo.frame,
        h(
          "p.muted.preview-fallback",
          {},
          `${photo.file.name}: this browser can't show a preview. A HEIC photo is converted when shared.`,
        ),
      ),
    );
    photo.frame = h("div.preview-frame", {}, photo.image);
    photo.label = h("label", {});
    photo.field = h("textarea.textarea.alt-text", {
      name: "altText",
      rows: 2,
      maxlength: MAX_ALT_TEXT,
      placeholder: "Describe the photo for people who can't see it",
      "aria-describedby": "alt-text-help",
    });
    photo.counter = h("span.muted.counter", { "aria-live": "polite" }, `0 / ${MAX_ALT_TEXT}`);
    photo.field.addEventListener("input", () => {
      photo.altText = photo.field.value;
      photo.counter.textContent = `${[...photo.field.value].length} / ${MAX_ALT_TEXT}`;
    });
    photo.progress = h("progress.photo-progress", { max: 100, value: 0, hidden: true });
    photo.state = h("span.muted.photo-state");
    photo.earlier = h("button.icon-button.small", { type: "button", onclick: () => move(photo, -1) }, icon("up"));
    photo.later = h(
      "button.icon-button.small.down",
      { type: "button", onclick: () => move(photo, 1) },
      icon("up"),
    );
    photo.remove = h("button.icon-button.small", { type: "button", onclick: () => remove(photo) }, icon("close"));
    photo.item = h(
      "li.photo-item",
      {},
      photo.frame,
      h(
        "div.photo-item-body",
        {},
        h(
          "div.photo-item-header",
          {},
          h("p.muted.photo-name", {}, `${photo.file.name} · ${megabytes(photo.file.size)}`),
          h("div.photo-item-actions", {}, photo.earlier, photo.later, photo.remove),
        ),
        photo.label,
        photo.field,
        photo.counter,
        h("div.photo-progress-line", {}, photo.progress, photo.state),
      ),
    );
    return photo.item;
  }

  /** Puts the list in the order of `photos` and names each item by its place. */
  function render() {
    list.append(...photos.map((photo) => photo.item));
    photos.forEach((photo, index) => {
      const id = index === 0 ? "alt-text" : `alt-text-${index + 1}`;
      photo.field.id = id;
      photo.label.setAttribute("for", id);
      photo.label.textContent = photos.length === 1 ? "Alt text" : `Alt text for photo ${index + 1}`;
      photo.image.alt =
        photos.length === 1
          ? "Preview of the chosen photo, as it will be cropped"
          : `Preview of photo ${index + 1} of ${photos.length}, as it will be cropped`;
      photo.earlier.setAttribute("aria-label", `Move ${nameOf(index)} earlier`);
      photo.later.setAttribute("aria-label", `Move ${nameOf(index)} later`);
      photo.remove.setAttribute("aria-label", `Remove ${nameOf(index)}`);
      photo.earlier.hidden = photo.later.hidden = photos.length === 1;
      photo.earlier.disabled = index === 0 || Boolean(sharing);
      photo.later.disabled = index === photos.length - 1 || Boolean(sharing);
      photo.remove.disabled = Boolean(sharing);
      photo.progress.setAttribute("aria-label", `Upload of ${nameOf(index)}`);
    });
    // One crop for the whole post, fixed while its photos are on their way.
    for (const choice of cropChoices.querySelectorAll("input")) choice.disabled = Boolean(sharing);
    const full = photos.length >= limits.maxPhotosPerPost;
    cropChoices.hidden = altHelp.hidden = photos.length === 0;
    share.disabled = photos.length === 0 || Boolean(sharing);
    input.disabled = full || Boolean(sharing);
    drop.classList.toggle("has-file", photos.length > 0);
    drop.classList.toggle("full", full);
    dropTitle.textContent = full
      ? `${limits.maxPhotosPerPost} photos: the most a post holds`
      : photos.length
        ? "Add more photos"
        : "Choose photos";
  }

  function move(photo, step) {
    const from = photos.indexOf(photo);
    const to = from + step;
    if (to < 0 || to >= photos.length) return;
    photos.splice(from, 1);
    photos.splice(to, 0, photo);
    render();
    // Keep the focus on the button pressed, or on its twin once the photo reaches an end.
    const button = step < 0 ? photo.earlier : photo.later;
    (button.disabled ? (step < 0 ? photo.later : photo.earlier) : button).focus();
    listStatus.textContent = `Moved to position ${to + 1} of ${photos.length}`;
  }

  function remove(photo) {
    const index = photos.indexOf(photo);
    photos.splice(index, 1);
    photo.item.remove();
    URL.revokeObjectURL(photo.url);
    render();
    const next = photos[Math.min(index, photos.length - 1)];
    (next ? next.remove : input).focus();
    listStatus.textContent = photos.length ? `Removed. ${plural(photos.length, "photo")} left` : "Removed";
  }

  /** Adds the chosen files that are photos (read as the server will: by their first bytes), up to the limit. */
  async function choose(files) {
    error.textContent = "";
    const refused = [];
    for (const chosen of files) {
      if (photos.length >= limits.maxPhotosPerPost) {
        refused.push(`A post holds up to ${limits.maxPhotosPerPost} photos: ${chosen.name} was not added.`);
        continue;
      }
      if (chosen.size > maxUploadBytes()) {
        refused.push(
          `${files.length > 1 ? `${chosen.name}: this photo` : "This photo"} is ${megabytes(chosen.size)}, too big ` +
            `to share. Photos can be up to ${megabytes(maxUploadBytes())}.`,
        );
        continue;
      }
      // A text file named .jpg is refused here, before any upload.
      const format = await photoFormat(chosen).catch(() => null);
      if (!format) {
        refused.push(
          `${files.length > 1 ? `${chosen.name}: that` : "That"} file isn't a photo Makestagram can read. ` +
            "Choose a JPEG, PNG, WebP or HEIC photo.",
        );
        continue;
      }
      const photo = { key: ++nextKey, file: chosen, url: URL.createObjectURL(chosen), altText: "" };
      photos.push(photo);
      list.append(item(photo));
    }
    input.value = "";
    render();
    error.textContent = refused.join(" ");
  }

  input.addEventListener("change", () => choose([...input.files]));
  for (const type of ["dragenter", "dragover"]) {
    drop.addEventListener(type, (event) => {
      event.preventDefault();
      drop.classList.add("dragging");
    });
  }
  for (const type of ["dragleave", "drop"]) {
    drop.addEventListener(type, () => drop.classList.remove("dragging"));
  }
  drop.addEventListener("drop", (event) => {
    event.preventDefault();
    if (!sharing) choose([...event.dataTransfer.files]);
  });

  /** Shows the progress of photo `index` at `fraction`, and of the whole post. */
  function showProgress(index, fraction) {
    const photo = photos[index];
    photo.progress.value = Math.round(fraction * 100);
    photo.state.textContent = fraction < 1 ? `${Math.round(fraction * 100)}%` : "Processing…";
    const total = photos.reduce((sum, each) => sum + each.file.size, 0);
    const sent = photos.slice(0, index).reduce((sum, each) => sum + each.file.size, 0) + fraction * photo.file.size;
    const overall = Math.round((sent / Math.max(1, total)) * 100);
    progress.value = overall;
    const last = index === photos.length - 1;
    progressText.textContent =
      fraction < 1 || !last
        ? photos.length === 1
          ? `Uploading… ${overall}%`
          : `Uploading… photo ${index + 1} of ${photos.length}, ${overall}%`
        : photos.length === 1
          ? "Processing the photo…"
          : "Processing the photos…";
  }

  /** Ends the sharing: what was uploaded is taken back unless `posted`. */
  function finish(current, posted) {
    sharing = null;
    if (!posted) for (const id of current.uploads) api.delete(`/uploads/${id}`).catch(() => {});
    caption.disabled = false;
    for (const photo of photos) {
      photo.field.disabled = false;
      photo.progress.hidden = true;
      photo.state.textContent = "";
    }
    progress.hidden = true;
    render();
  }

  const form = h(
    "form.upload-form",
    {
      onsubmit: async (event) => {
        event.preventDefault();
        if (!photos.length || sharing) return;
        error.textContent = "";
        const current = { controller: new AbortController(), uploads: [], posting: false, cancelled: false };
        sharing = current;
        caption.disabled = true;
        for (const photo of photos) {
          photo.field.disabled = true;
          photo.progress.hidden = false;
          photo.progress.value = 0;
          photo.state.textContent = "Waiting";
        }
        render();
        progress.hidden = false;
        progress.value = 0;
        showProgress(0, 0);
        let index = 0;
        try {
          for (; index < photos.length; index++) {
            const photo = photos[index];
            const uploaded = await api.uploadPhoto(photo.file, {
              crop: crop.value,
              altText: photo.altText.trim(),
              onProgress: (fraction) => showProgress(index, fraction),
              signal: current.controller.signal,
            });
            current.uploads.push(uploaded.id);
            photo.progress.value = 100;
            photo.state.textContent = "Uploaded";
            if (current.cancelled) throw new APIError(0, "aborted", "Cancelled", "The upload was cancelled.");
          }
          current.posting = true;
          const post = await api.post("/posts", { caption: caption.value.trim(), uploads: current.uploads });
          if (current.cancelled) {
            // Cancelled while the post was being made: take it back at once.
            await store.deletePost(post.id).catch(() => {});
            throw new APIError(0, "aborted", "Cancelled", "The upload was cancelled.");
          }
          finish(current, true);
          feed.prependOwn(post);
          toast(photos.length === 1 ? "Your photo is shared" : `Your ${photos.length} photos are shared`);
          navigate("/");
        } catch (problem) {
          finish(current, false);
          if (problem.code === "aborted") {
            progressText.textContent = "Upload cancelled: nothing was shared.";
            return;
          }
          progressText.textContent = "";
          // A refused photo stays refused: it leaves the list, and the others can be shared. After a network
          // failure, retrying works.
          const refused = problem.status >= 400 && problem.status < 500 && problem.status !== 401;
          const photo = photos[index];
          if (refused && photo && !current.posting) {
            const several = photos.length > 1;
            remove(photo);
            error.textContent = several ? `${photo.file.name}: ${uploadErrorMessage(problem)}` : uploadErrorMessage(problem);
          } else {
            error.textContent = uploadErrorMessage(problem);
          }
        }
      },
    },
    h("h1.page-title", {}, "New post"),
    input,
    drop,
    list,
    listStatus,
    cropChoices,
    altHelp,
    h("label", { for: "caption" }, "Caption"),
    caption,
    counter,
    error,
    h("div.upload-footer", {}, progress, progressText),
    h("div.form-actions", {}, cancel, share),
  );
  replace(root, form);

  // Cancel stops the sharing on its way (nothing is published), else leaves the page.
  cancel.addEventListener("click", () => {
    if (!sharing) return navigate("/");
    sharing.cancelled = true;
    progressText.textContent = "Cancelling…";
    if (!sharing.posting) sharing.controller.abort();
  });

  return () => {
    for (const photo of photos) URL.revokeObjectURL(photo.url);
  };
}
