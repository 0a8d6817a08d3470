// The app: session, navigation bar, routes and the live stream that keeps every screen current.

import { api } from "./api.js";
import { h, icon, avatar, replace, refreshTimes, toast, emptyState } from "./dom.js";
import { store } from "./posts.js";
import { LiveStream } from "./live.js";
import { feed, feedView } from "./feed.js";
import { profileView } from "./profile.js";
import { postView } from "./postpage.js";
import { uploadView } from "./upload.js";
import { loginView, signupView } from "./auth.js";
import { searchView } from "./search.js";
import { activity, activityView } from "./activity.js";
import { settingsView } from "./settings.js";
import { tagView } from "./tags.js";
import { moderationView } from "./moderation.js";

const main = document.getElementById("main");
const nav = document.getElementById("nav");
const connection = document.getElementById("connection");

const routes = [
  { pattern: /^\/$/, view: feedView, title: "Home", nav: "home" },
  { pattern: /^\/new$/, view: uploadView, title: "New post", nav: "new" },
  { pattern: /^\/search$/, view: searchView, title: "Find people", nav: "search" },
  { pattern: /^\/activity$/, view: activityView, title: "Activity", nav: "activity" },
  { pattern: /^\/settings$/, view: settingsView, title: "Settings", nav: "profile" },
  { pattern: /^\/moderation$/, view: moderationView, title: "Moderation", nav: "profile" },
  // A person here (`alice`), or on another server (`bob@example.social`).
  {
    pattern: /^\/u\/(?<username>[a-z0-9_.]{1,30}|[a-z0-9_.-]{1,64}@[a-z0-9.:-]{1,255})$/,
    view: profileView,
    title: "Profile",
    nav: "profile",
  },
  { pattern: /^\/p\/(?<id>\d{1,18})$/, view: postView, title: "Post" },
  { pattern: /^\/t\/(?<tag>[^/]{1,600})$/, view: tagView, title: "Hashtag" },
  { pattern: /^\/login$/, view: loginView, title: "Log in", public: true },
  { pattern: /^\/signup$/, view: signupView, title: "Sign up", public: true },
];

let cleanup = null;

const live = new LiveStream({
  onMessage: (message) => {
    if (message.type === "post.created") {
      if (message.post.author.id !== store.me?.id || !store.view(message.post.id)) feed.announce(message.post);
      return;
    }
    if (message.type === "activity.changed") return activity.set(message.unreadCount);
    if (message.type === "error") return console.warn("event stream:", message.detail);
    store.apply(message);
  },
  onStatus: (status) => {
    connection.hidden = status !== "offline";
  },
  onResume: () => {
    feed.catchUp();
    activity.load();
  },
  // What the user may see changed (a block, either way): the feed is read again and the screen shown loads again.
  onResync: () => {
    store.followsChanged();
    activity.load();
    render();
  },
  onSessionEnded: () => endSession("You were logged out. Log in again to continue."),
  onAccountClosed: (reason) =>
    endSession(
      reason === "account suspended"
        ? "Your account has been suspended by the moderators. You are logged out."
        : "Your account was deleted. You are logged out.",
    ),
});

function navigate(path, { replace: replaceState = false } = {}) {
  if (replaceState) history.replaceState(null, "", path);
  else if (path !== location.pathname) history.pushState({ inApp: true }, "", path);
  render();
}

function render() {
  cleanup?.();
  cleanup = null;
  const path = location.pathname;
  const route = routes.find((candidate) => candidate.pattern.test(path));
  if (!store.me && !route?.public) return navigate("/login", { replace: true });
  if (store.me && route?.public) return navigate("/", { replace: true });
  renderNav(route?.nav);
  document.title = `${route?.title ?? "Not found"} · Makestagram`;
  main.replaceChildren();
  if (!route) {
    replace(main, emptyState("Page not found", null, h("a.button", { href: "/" }, "Go to your feed")));
    return;
  }
  const params = path.match(route.pattern).groups ?? {};
  cleanup = route.view(main, { params, live, navigate, onSession: startSession, logOut, endSession }) ?? null;
  if (route.nav !== "home") scrollTo(0, 0);
  // A view that put the focus somewhere (the log-in form on its first field) keeps it.
  if (!main.contains(document.activeElement)) main.focus({ preventScroll: true });
}

function renderNav(current) {
  nav.hidden = !store.me;
  if (!store.me) return;
  const item = (name, href, label, content) =>
    h(
      "a.nav-item",
      { href, "aria-label": label, title: label, "aria-current": current === name ? "page" : undefined },
      content,
    );
  replace(
    nav,
    h("a.logo", { href: "/", "aria-label": "Makestagram home" }, "Makestagram"),
    h(
      "div.nav-items",
      {},
      item("home", "/", "Home", icon("home")),
      item("search", "/search", "Find people", icon("search")),
      item("new", "/new", "New post", icon("plus")),
      item("activity", "/activity", "Activity", [icon("heart"), h("span.badge", { hidden: true })]),
      item("profile", `/u/${store.me.username}`, "Your profile", avatar(store.me, 26)),
    ),
  );
  showUnread(activity.unread);
}

// The activity badge: the unread count, live.
function showUnread(count) {
  const link = nav.querySelector(".nav-item[href='/activity']");
  if (!link) return;
  const badge = link.querySelector(".badge");
  badge.hidden = count === 0;
  badge.textContent = count > 99 ? "99+" : String(count);
  const label = count ? `Activity, ${count} unread` : "Activity";
  link.setAttribute("aria-label", label);
  link.title = label;
}
activity.onChange(showUnread);

// The viewer's avatar in the navigation bar follows their changes, made here or elsewhere.
store.onUserUpdated((user) => {
  const link = nav.querySelector(".nav-item[href^='/u/']");
  if (link && user.id === store.me?.id) replace(link, avatar(store.me, 26));
});

async function startSession(answer) {
  api.token = answer.token;
  store.me = answer.user;
  feed.reset();
  live.start();
  activity.load();
  navigate("/", { replace: true });
}

function endSession(message) {
  api.token = null;
  store.me = null;
  store.forget();
  feed.reset();
  live.stop();
  activity.set(0);
  if (message) toast(message);
  navigate("/login", { replace: true });
}

async function logOut() {
  // First, so that the stream's own "session ended" (the log-out reaching the socket) says nothing more.
  live.stop();
  try {
    await api.delete("/sessions/current");
  } catch {
    // Logged out here either way; the server forgets the token when it can.
  }
  endSession("You're logged out.");
}

// Links inside the app navigate without reloading.
document.addEventListener("click", (event) => {
  const link = event.target.closest("a[href]");
  if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  if (link.hasAttribute("download")) return;
  const url = new URL(link.href, location.href);
  if (url.origin !== location.origin || url.pathname.startsWith("/api/") || url.pathname.startsWith("/media/")) return;
  event.preventDefault();
  navigate(url.pathname);
});
addEventListener("popstate", render);
setInterval(refreshTimes, 60_000);
api.onUnauthorized = () => endSession("Your session has ended. Log in again.");

// Start: a stored token survives reloads; check it once.
(async () => {
  if (api.token) {
    try {
      store.me = await api.get("/me");
      live.start();
      activity.load();
    } catch (error) {
      if (error.status === 401) api.token = null;
      else {
        // Offline: keep the token and show what can be shown; the stream reconnects when the server is back.
        store.me = null;
        replace(
          main,
          emptyState(
            "Can't reach Makestagram",
            error.message,
            h("button.button", { type: "button", onclick: () => location.reload() }, "Try again"),
          ),
        );
        return;
      }
    }
  }
  render();
})();
