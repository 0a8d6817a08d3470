// The HTTP API client: JSON in and out, the bearer token, problem details as errors, uploads with progress.

import { problem as code } from "./constants.js";

const TOKEN_KEY = "makestagram.token";

/** An error answer (RFC 9457 problem details), or a network failure (status 0, code "network"). */
export class APIError extends Error {
  constructor(status, code, title, detail) {
    super(detail || title);
    this.status = status;
    this.code = code;
    this.title = title;
    this.detail = detail;
  }

  static network() {
    return new APIError(0, "network", "Offline", "Could not reach the server. Check your connection and try again.");
  }
}

/** Called when the server says the session is over (401 on an authenticated request). */
let onUnauthorized = () => {};

export const api = {
  get token() {
    return localStorage.getItem(TOKEN_KEY);
  },
  set token(value) {
    if (value) localStorage.setItem(TOKEN_KEY, value);
    else localStorage.removeItem(TOKEN_KEY);
  },

  set onUnauthorized(handler) {
    onUnauthorized = handler;
  },

  /** Sends a request under /api/v1 and answers its JSON (or null for an empty answer). */
  async request(method, path, { json, query, form } = {}) {
    const headers = { Accept: "application/json" };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    let body = form;
    if (json !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(json);
    }
    let url = `/api/v1${path}`;
    if (query) {
      const params = new URLSearchParams();
      for (const [key, value] of Object.entries(query)) {
        if (value !== undefined && value !== null) params.set(key, value);
      }
      const text = params.toString();
      if (text) url += `?${text}`;
    }
    let response;
    try {
      response = await fetch(url, { method, headers, body });
    } catch {
      throw APIError.network();
    }
    const text = await response.text();
    return this.read(response.status, response.headers.get("Content-Type"), text, !!headers.Authorization);
  },

  /** Turns an answer into its JSON, or throws its problem. */
  read(status, contentType, text, authenticated) {
    if (status >= 200 && status < 300) {
      return text && contentType?.includes("json") ? JSON.parse(text) : null;
    }
    let problem = {};
    try {
      problem = JSON.parse(text);
    } catch {
      // Not problem details (a proxy's page, say): keep the status.
    }
    const error = new APIError(
      status,
      problem.code ?? `http_${status}`,
      problem.title ?? "Request failed",
      problem.detail ?? `The server answered ${status}.`,
    );
    if (status === 401 && authenticated && error.code === code.unauthorized) onUnauthorized();
    throw error;
  },

  get: (path, query) => api.request("GET", path, { query }),
  put: (path, json) => api.request("PUT", path, { json }),
  post: (path, json) => api.request("POST", path, { json }),
  patch: (path, json) => api.request("PATCH", path, { json }),
  /** Sends `file` as the multipart field `image` (the browser writes the boundary). */
  putImage(path, file) {
    const form = new FormData();
    form.append("image", file);
    return api.request("PUT", path, { form });
  },
  delete: (path) => api.request("DELETE", path),

  /**
   * Uploads one photo of a post to come (POST /uploads), cut as `crop` says, with its alt text; answers {id, image}.
   * `onProgress` gets the fraction of the body sent (0…1); aborting `signal` stops it, and the server keeps nothing.
   */
  uploadPhoto(file, { crop = "original", altText = "", onProgress = () => {}, signal } = {}) {
    return new Promise((resolve, reject) => {
      const form = new FormData();
      form.append("crop", crop);
      if (altText) form.append("altText", altText);
      form.append("image", file);
      const request = new XMLHttpRequest();
      request.open("POST", "/api/v1/uploads");
      request.setRequestHeader("Authorization", `Bearer ${this.token}`);
      request.setRequestHeader("Accept", "application/json");
      request.upload.addEventListener("progress", (event) => {
        if (event.lengthComputable) onProgress(event.loaded / event.total);
      });
      request.addEventListener("load", () => {
        try {
          resolve(this.read(request.status, request.getResponseHeader("Content-Type"), request.responseText, true));
        } catch (error) {
          reject(error);
        }
      });
      request.addEventListener("error", () => reject(APIError.network()));
      request.addEventListener("abort", () =>
        reject(new APIError(0, "aborted", "Cancelled", "The upload was cancelled.")),
      );
      if (signal?.aborted) return request.abort();
      signal?.addEventListener("abort", () => request.abort());
      request.send(form);
    });
  },
};
