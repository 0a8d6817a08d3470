// The live event stream (docs/live-updates.md): one WebSocket per page, opened with a single-use ticket,
// subscribed to the posts on screen, reconnecting with backoff and resubscribing so the snapshots catch up.

import { api, APIError } from "./api.js";
import { closeCode, limits } from "./constants.js";

export class LiveStream {
  /**
   * @param handlers.onMessage(message)  every server message after hello
   * @param handlers.onStatus(status)    "connecting", "live" or "offline"
   * @param handlers.onResume()          the stream is back after a drop: catch up with what it missed
   * @param handlers.onResync()          the server asked for every screen to load again (a block changed what the
   *                                     user may see, or updates were missed)
   * @param handlers.onSessionEnded()    the token was logged out elsewhere
   * @param handlers.onAccountClosed(reason) the account was suspended or deleted ("account suspended", "account deleted")
   */
  constructor(handlers) {
    this.handlers = handlers;
    this.wanted = new Map(); // post ID → how many views show it, in the order first wanted
    // What the server holds for this socket once it has acted on every message sent: the client's idea of its
    // subscriptions, corrected by every refusal the server names (so it always equals the server's).
    this.subscribed = new Set();
    this.unavailable = new Set(); // wanted posts the server said are gone or hidden: not asked for again
    this.maxSubscriptions = limits.maxSubscriptions;
    this.socket = null;
    this.attempt = 0;
    this.everConnected = false;
    this.stopped = true;
    this.retryTimer = null;
    this.flushTimer = null;
    this.refusedUntil = 0; // after a refusal, nothing is sent before the moment the server named
  }

  start() {
    if (!this.stopped) return;
    this.stopped = false;
    this.connect();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearTimeout(this.flushTimer);
    this.flushTimer = null;
    this.socket?.close(1000, "bye");
    this.socket = null;
    this.subscribed.clear();
    this.unavailable.clear();
    this.everConnected = false;
  }

  /** A view shows these posts: keep them subscribed while it does. */
  watch(ids) {
    for (const id of ids) this.wanted.set(id, (this.wanted.get(id) ?? 0) + 1);
    this.scheduleFlush();
  }

  /** A view no longer shows these posts. */
  unwatch(ids) {
    for (const id of ids) {
      const count = this.wanted.get(id) ?? 0;
      if (count <= 1) {
        this.wanted.delete(id);
        this.unavailable.delete(id);
      } else {
        this.wanted.set(id, count - 1);
      }
    }
    this.scheduleFlush();
  }

  /** Views change many cards at once (a page of the feed, leaving a profile): their wishes go in one message each way. */
  scheduleFlush(delay = 0) {
    if (this.flushTimer !== null) {
      if (delay === 0) return;
      clearTimeout(this.flushTimer);
    }
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      this.flush();
    }, delay);
  }

  /** Brings the server's subscriptions to what the views want: one unsubscribe and one subscribe at most. */
  flush() {
    if (this.socket?.readyState !== WebSocket.OPEN || !this.ready) return;
    const wait = this.refusedUntil - Date.now();
    if (wait > 0) return this.scheduleFlush(wait);
    const dropped = [...this.subscribed].filter((id) => !this.wanted.has(id));
    for (const id of dropped) this.subscribed.delete(id);
    const room = Math.max(0, this.maxSubscriptions - this.subscribed.size);
    // The newest wishes first, when more are wanted than a connection may hold.
    const candidates = [...this.wanted.keys()].filter((id) => !this.subscribed.has(id) && !this.unavailable.has(id));
    const added = room === 0 ? [] : candidates.slice(-room);
    for (const id of added) this.subscribed.add(id);
    this.send({ type: "unsubscribe", posts: dropped });
    this.send({ type: "subscribe", posts: added });
  }

  /** The server did not do what a message asked: take its word for what it holds, and ask again when it says. */
  refused(error) {
    const posts = error.posts ?? [];
    if (error.refused === "subscribe") for (const id of posts) this.subscribed.delete(id);
    if (error.refused === "unsubscribe") for (const id of posts) this.subscribed.add(id);
    if (error.retryAfter) {
      this.refusedUntil = Math.max(this.refusedUntil, Date.now() + error.retryAfter * 1000);
      this.scheduleFlush(error.retryAfter * 1000);
    }
  }

  send(message) {
    if (message.posts?.length === 0) return;
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }

  async connect() {
    this.handlers.onStatus(this.everConnected ? "offline" : "connecting");
    let ticket;
    try {
      ticket = (await api.post("/events/tickets")).ticket;
    } catch (error) {
      if (error instanceof APIError && error.status === 401) return this.handlers.onSessionEnded();
      return this.retry();
    }
    if (this.stopped) return;
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/api/v1/events?ticket=${encodeURIComponent(ticket)}`);
    this.socket = socket;
    this.ready = false;
    socket.addEventListener("message", (event) => this.receive(socket, event.data));
    socket.addEventListener("close", (event) => this.closed(socket, event.code, event.reason));
  }

  receive(socket, data) {
    if (socket !== this.socket) return;
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    if (message.type === "hello") {
      this.ready = true;
      this.maxSubscriptions = message.maxSubscriptions;
      this.attempt = 0;
      this.subscribed.clear();
      this.unavailable.clear();
      this.refusedUntil = 0;
      this.flush();
      const resumed = this.everConnected;
      this.everConnected = true;
      this.handlers.onStatus("live");
      if (resumed) this.handlers.onResume();
      return;
    }
    if (message.type === "subscribed") {
      for (const id of message.unavailable) {
        this.subscribed.delete(id);
        if (this.wanted.has(id)) this.unavailable.add(id);
      }
    }
    if (message.type === "post.deleted" && this.subscribed.delete(message.postId)) {
      // The server ended the subscription: never ask for it again.
      if (this.wanted.has(message.postId)) this.unavailable.add(message.postId);
    }
    if (message.type === "error" && message.refused) this.refused(message);
    this.handlers.onMessage(message);
  }

  closed(socket, code, reason) {
    if (socket !== this.socket) return;
    this.socket = null;
    this.ready = false;
    this.subscribed.clear();
    if (this.stopped) return;
    if (code === closeCode.sessionEnded) return this.handlers.onSessionEnded();
    if (code === closeCode.accountClosed) return this.handlers.onAccountClosed(reason);
    if (code === closeCode.resync) {
      this.attempt = 0;
      this.handlers.onResync?.();
      return this.connect();
    }
    if (code === closeCode.unauthorized) {
      // The ticket was refused: the token itself may be gone, which the ticket request then says.
      return this.retry();
    }
    this.retry();
  }

  /** Tries again after 1, 2, 4 … 30 seconds, with jitter so that a restarted server is not stampeded. */
  retry() {
    if (this.stopped) return;
    this.handlers.onStatus(this.everConnected ? "offline" : "connecting");
    const delay = Math.min(30000, 1000 * 2 ** this.attempt) * (0.75 + Math.random() * 0.5);
    this.attempt = Math.min(this.attempt + 1, 5);
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }
}
