// The live event stream (docs/live-updates.md): one WebSocket per page, opened with a single-use ticket,
// subscribed to the posts on screen, reconnecting with backoff and resubscribing so the snapshots catch up.

import { api, APIError } from "./api.js";
import { closeCode, limits } from "./constants.js";

export class LiveStream {
  /**
   * @param handlers.onMessage(message)  every server message after hello
   * @param handlers.onStatus(status)    "connecting", "live" or "offline"
   * @param handlers.onResume()          the stream is back after a drop: catch up with what it missed
   * @param handlers.onSessionEnded()    the token was logged out elsewhere
   * @param handlers.onAccountClosed(reason) the account was suspended or deleted ("account suspended", "account deleted")
   */
  constructor(handlers) {
    this.handlers = handlers;
    this.wanted = new Map(); // post ID → how many views show it
    this.subscribed = new Set();
    this.maxSubscriptions = limits.maxSubscriptions;
    this.socket = null;
    this.attempt = 0;
    this.everConnected = false;
    this.stopped = true;
    this.retryTimer = null;
  }

  start() {
    if (!this.stopped) return;
    this.stopped = false;
    this.connect();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.socket?.close(1000, "bye");
    this.socket = null;
    this.subscribed.clear();
    this.everConnected = false;
  }

  /** A view shows these posts: keep them subscribed while it does. */
  watch(ids) {
    const added = [];
    for (const id of ids) {
      const count = this.wanted.get(id) ?? 0;
      this.wanted.set(id, count + 1);
      if (count === 0) added.push(id);
    }
    this.flushSubscriptions(added);
  }

  /** A view no longer shows these posts. */
  unwatch(ids) {
    const dropped = [];
    for (const id of ids) {
      const count = this.wanted.get(id) ?? 0;
      if (count <= 1) {
        this.wanted.delete(id);
        if (this.subscribed.delete(id)) dropped.push(id);
      } else {
        this.wanted.set(id, count - 1);
      }
    }
    this.send({ type: "unsubscribe", posts: dropped });
  }

  /** Subscribes to wanted posts up to the cap, newest wishes first. */
  flushSubscriptions(candidates = [...this.wanted.keys()]) {
    if (this.socket?.readyState !== WebSocket.OPEN || !this.ready) return;
    const room = this.maxSubscriptions - this.subscribed.size;
    if (room <= 0) return;
    const fresh = candidates.filter((id) => !this.subscribed.has(id)).slice(-room);
    for (const id of fresh) this.subscribed.add(id);
    this.send({ type: "subscribe", posts: fresh });
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
      this.flushSubscriptions();
      const resumed = this.everConnected;
      this.everConnected = true;
      this.handlers.onStatus("live");
      if (resumed) this.handlers.onResume();
      return;
    }
    if (message.type === "post.deleted") {
      this.subscribed.delete(message.postId);
    }
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
