// Log-in and sign-up screens.

import { limits, problem as code } from "./constants.js";
import { api } from "./api.js";
import { h, replace } from "./dom.js";

/** How a username field behaves: no capitals, no spelling fixes. */
const HANDLE = { autocomplete: "username", autocapitalize: "none", spellcheck: false };

/** A labelled input with an optional hint (which describes it to screen readers). */
export function field(id, label, props, hint) {
  const input = h("input.input", { id, name: id, ...props, "aria-describedby": hint ? `${id}-hint` : undefined });
  return {
    input,
    element: h(
      "div.field",
      {},
      h("label", { for: id }, label),
      input,
      hint && h("p.hint.muted", { id: `${id}-hint` }, hint),
    ),
  };
}

function shell(title, subtitle, form, footer) {
  return h(
    "div.auth",
    {},
    h(
      "div.auth-card",
      {},
      h("h1.logo.auth-logo", {}, "Makestagram"),
      h("p.muted.auth-subtitle", {}, subtitle),
      h("h2.visually-hidden", {}, title),
      form,
    ),
    h("div.auth-card.auth-footer", {}, footer),
  );
}

/** What is wrong with a field, in the app's words (the browser's own bubbles are turned off), or null. */
function problemWith(input) {
  if (input.validity.valid) return null;
  const label = input.labels?.[0]?.textContent ?? "This field";
  if (input.validity.valueMissing) return `${label}: fill this in.`;
  const hint = document.getElementById(`${input.id}-hint`)?.textContent;
  return `${label}: ${hint ?? "check what you typed."}`;
}

/**
 * Submits `form` with `action`, showing the server's answer in words a person can act on. Fields are checked first,
 * with the app's own messages; a message goes as soon as any field changes.
 */
export function handle(form, button, error, action, messages) {
  form.noValidate = true;
  form.addEventListener("input", (event) => {
    error.textContent = "";
    event.target.removeAttribute?.("aria-invalid");
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    for (const input of form.querySelectorAll("input")) {
      const problem = problemWith(input);
      if (!problem) continue;
      error.textContent = problem;
      input.setAttribute("aria-invalid", "true");
      input.focus();
      return;
    }
    button.disabled = true;
    try {
      await action();
    } catch (problem) {
      error.textContent = messages(problem) ?? problem.message;
      button.disabled = false;
    }
  });
}

export function loginView(root, { onSession }) {
  const username = field("username", "Username", { ...HANDLE, required: true });
  const password = field("password", "Password", {
    type: "password",
    autocomplete: "current-password",
    required: true,
  });
  const error = h("p.form-error", { role: "alert" });
  const button = h("button.button.wide", { type: "submit" }, "Log in");
  const form = h("form.stack", { "aria-label": "Log in" }, username.element, password.element, error, button);
  handle(
    form,
    button,
    error,
    async () => {
      const answer = await api.post("/sessions", {
        username: username.input.value.trim().toLowerCase(),
        password: password.input.value,
      });
      onSession(answer);
    },
    (problem) => {
      if (problem.code === code.invalidCredentials) return "Wrong username or password. Check both and try again.";
      if (problem.code === code.accountSuspended) return "This account is suspended by the moderators.";
      if (problem.code === code.tooManyAttempts) return problem.detail;
    },
  );
  const footer = ["New here? ", h("a", { href: "/signup" }, "Sign up")];
  replace(root, shell("Log in", "Log in to see photos from your friends.", form, footer));
  username.input.focus();
}

export function signupView(root, { onSession }) {
  const username = field(
    "username",
    "Username",
    { ...HANDLE, required: true, minlength: limits.usernameLength[0], maxlength: limits.usernameLength[1], pattern: "[a-z0-9_.]{3,30}" },
    "3–30 lower-case letters, digits, _ or .",
  );
  const displayName = field("displayName", "Name", { autocomplete: "name", required: true, maxlength: limits.displayNameLength[1] });
  const password = field(
    "password",
    "Password",
    { type: "password", autocomplete: "new-password", required: true, minlength: limits.passwordBytes[0] },
    "At least 8 characters.",
  );
  const error = h("p.form-error", { role: "alert" });
  const button = h("button.button.wide", { type: "submit" }, "Sign up");
  const form = h(
    "form.stack",
    { "aria-label": "Sign up" },
    username.element,
    displayName.element,
    password.element,
    error,
    button,
  );
  username.input.addEventListener("input", () => {
    username.input.value = username.input.value.toLowerCase();
  });
  handle(
    form,
    button,
    error,
    async () => {
      const bytes = new TextEncoder().encode(password.input.value).length;
      if (bytes > 72) throw { message: "That password is too long: use at most 72 bytes." };
      const answer = await api.post("/accounts", {
        username: username.input.value.trim(),
        password: password.input.value,
        displayName: displayName.input.value.trim(),
      });
      onSession(answer);
    },
    (problem) => {
      if (problem.code === code.usernameTaken) return "That username is taken. Try another one.";
      if (problem.code === code.invalidField) return `Check the form: ${problem.detail}`;
    },
  );
  const footer = ["Have an account? ", h("a", { href: "/login" }, "Log in")];
  replace(root, shell("Sign up", "Sign up to share photos with your friends.", form, footer));
  username.input.focus();
}
