// Sharing a photo: choose or drop it, see a preview, write a caption, watch the upload, land on the feed.

import { limits, problem as code } from "./constants.js";
import { api, APIError } from "./api.js";
import { h, icon, replace, toast } from "./dom.js";
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

export function uploadView(root, { navigate }) {
  let file = null;
  let previewURL = null;
  let crop = CROPS[0];

  const input = h("input.visually-hidden", {
    id: "photo-input",
    type: "file",
    name: "image",
    accept: "image/jpeg,image/png,image/webp,image/heic,image/heif,.heic,.heif",
  });
  const preview = h("div.preview", { "aria-live": "polite" });
  // The crop step: the preview shows exactly what will be shared, cut around the centre as the server will cut it.
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
            showCrop();
          },
        }),
        h("span", {}, choice.label),
      ),
    ),
  );
  /** Frames the preview at the chosen aspect (the photo's own for Original). */
  function showCrop() {
    const frame = preview.querySelector(".preview-frame");
    const image = frame?.querySelector("img");
    if (!frame || !image) return;
    const ratio = crop.ratio ?? (image.naturalWidth && image.naturalWidth / image.naturalHeight);
    frame.style.aspectRatio = ratio ? String(ratio) : "";
    // As wide as the column allows while no taller than 60% of the screen, keeping the aspect.
    frame.style.width = ratio ? `min(100%, calc(60vh * ${ratio}))` : "";
    frame.classList.toggle("cropped", crop.ratio !== null);
  }
  const drop = h(
    "label.drop-zone",
    { for: "photo-input" },
    icon("photo", "drop-icon"),
    h("strong", {}, "Choose a photo"),
    h("span.muted", {}, "or drop it here · JPEG, PNG, WebP or HEIC"),
  );
  const caption = h("textarea.textarea", {
    id: "caption",
    name: "caption",
    rows: 4,
    maxlength: MAX_CAPTION,
    placeholder: "Write a caption…",
  });
  const counter = h("span.muted.counter", { "aria-live": "polite" }, `0 / ${MAX_CAPTION}`);
  const altText = h("textarea.textarea", {
    id: "alt-text",
    name: "altText",
    rows: 2,
    maxlength: MAX_ALT_TEXT,
    placeholder: "Describe the photo for people who can't see it",
    "aria-describedby": "alt-text-help",
  });
  const altCounter = h("span.muted.counter", { "aria-live": "polite" }, `0 / ${MAX_ALT_TEXT}`);
  const altHelp = h(
    "p.muted.hint",
    { id: "alt-text-help" },
    "Screen readers read this instead of the photo. Without it, they say the photo has no description.",
  );
  const error = h("p.form-error", { role: "alert", id: "upload-error" });
  const progress = h("progress.upload-progress", { max: 100, value: 0, hidden: true, "aria-label": "Upload progress" });
  const progressText = h("span.muted", { role: "status" });
  const share = h("button.button", { type: "submit", disabled: true }, "Share");
  const cancel = h("button.button.secondary", { type: "button" }, "Cancel");
  /** The upload on its way: its abort controller, whether the whole body was sent, and whether to take it back. */
  let uploading = null;

  caption.addEventListener("input", () => {
    counter.textContent = `${[...caption.value].length} / ${MAX_CAPTION}`;
  });
  altText.addEventListener("input", () => {
    altCounter.textContent = `${[...altText.value].length} / ${MAX_ALT_TEXT}`;
  });

  async function choose(chosen) {
    error.textContent = "";
    if (!chosen) return;
    if (chosen.size > maxUploadBytes()) {
      return reject(
        `This photo is ${megabytes(chosen.size)}, too big to share. ` +
          `Photos can be up to ${megabytes(maxUploadBytes())}.`,
      );
    }
    // Read as the server will read it: by its first bytes. A text file named .jpg is refused here, before any upload.
    const format = await photoFormat(chosen).catch(() => null);
    if (!format) return reject("That file isn't a photo Makestagram can read. Choose a JPEG, PNG, WebP or HEIC photo.");
    file = chosen;
    share.disabled = false;
    if (previewURL) URL.revokeObjectURL(previewURL);
    previewURL = URL.createObjectURL(chosen);
    const image = h("img.preview-image", { src: previewURL, alt: "Preview of the chosen photo, as it will be cropped" });
    image.addEventListener("load", showCrop);
    image.addEventListener("error", () =>
      replace(
        preview,
        h(
          "p.muted.preview-fallback",
          {},
          `${chosen.name}: this browser can't show a preview. A HEIC photo is converted when shared.`,
        ),
      ),
    );
    replace(preview, h("div.preview-frame", {}, image), h("p.muted", {}, `${chosen.name} · ${megabytes(chosen.size)}`));
    cropChoices.hidden = false;
    drop.classList.add("has-file");
    drop.querySelector("strong").textContent = "Choose another photo";
  }

  function reject(message) {
    file = null;
    input.value = "";
    share.disabled = true;
    replace(preview);
    cropChoices.hidden = true;
    error.textContent = message;
  }

  input.addEventListener("change", () => choose(input.files[0]));
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
    choose(event.dataTransfer.files[0]);
  });

  const form = h(
    "form.upload-form",
    {
      onsubmit: async (event) => {
        event.preventDefault();
        if (!file) return;
        error.textContent = "";
        share.disabled = input.disabled = caption.disabled = altText.disabled = true;
        progress.hidden = false;
        progress.value = 0;
        progressText.textContent = "Uploading… 0%";
        const current = { controller: new AbortController(), sent: false, cancelled: false };
        uploading = current;
        try {
          const post = await api.upload(
            file,
            caption.value.trim(),
            (fraction) => {
              current.sent = fraction >= 1;
              progress.value = Math.round(fraction * 100);
              progressText.textContent =
                fraction < 1 ? `Uploading… ${Math.round(fraction * 100)}%` : "Processing the photo…";
            },
            current.controller.signal,
            crop.value,
            altText.value.trim(),
          );
          uploading = null;
          if (current.cancelled) {
            // Cancelled after the whole photo had reached the server: take the post back at once.
            await store.deletePost(post.id).catch(() => {});
            throw new APIError(0, "aborted", "Cancelled", "The upload was cancelled.");
          }
          feed.prependOwn(post);
          toast("Your photo is shared");
          navigate("/");
        } catch (problem) {
          uploading = null;
          if (problem.code === "aborted") {
            progress.hidden = true;
            progressText.textContent = "Upload cancelled: nothing was shared.";
            input.disabled = caption.disabled = altText.disabled = false;
            share.disabled = !file;
            return;
          }
          progress.hidden = true;
          progressText.textContent = "";
          input.disabled = caption.disabled = altText.disabled = false;
          // A refused file stays refused: choosing another is the way on. After a network failure, retrying works.
          const refused = problem.status >= 400 && problem.status < 500 && problem.status !== 401;
          if (refused) reject(uploadErrorMessage(problem));
          else error.textContent = uploadErrorMessage(problem);
          share.disabled = !file;
        }
      },
    },
    h("h1.page-title", {}, "New post"),
    input,
    drop,
    preview,
    cropChoices,
    h("label", { for: "alt-text" }, "Alt text"),
    altText,
    altCounter,
    altHelp,
    h("label", { for: "caption" }, "Caption"),
    caption,
    counter,
    error,
    h("div.upload-footer", {}, progress, progressText),
    h("div.form-actions", {}, cancel, share),
  );
  replace(root, form);

  // Cancel stops an upload on its way (nothing is published), else leaves the page.
  cancel.addEventListener("click", () => {
    if (!uploading) return navigate("/");
    uploading.cancelled = true;
    if (uploading.sent) progressText.textContent = "Cancelling…";
    else uploading.controller.abort();
  });

  return () => {
    if (previewURL) URL.revokeObjectURL(previewURL);
  };
}
