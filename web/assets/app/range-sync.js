// Keeps one <input type="range"> and a value on the daemon in step without the two fighting.
//
// - While the user moves it, the newest value is sent at most once per animation frame, and at
//   most one request is in flight: the next goes when the previous one has answered (the latest
//   value wins, values in between are skipped).
// - While the user holds it (pointer down until release, or a key pressed in the last 500 ms)
//   values arriving from the daemon are only remembered: the control stays under the finger.
// - On release the final value is sent; its answer is what the control then shows. For a short
//   while after that, late echoes of values sent during the drag are ignored (the socket and the
//   HTTP answers travel separately, so an older echo can arrive after the final answer); any other
//   value (the device's own slider, another client) applies at once.
import { level } from "./dom.js";

const KEY_HOLD_MS = 500;
const ECHO_SETTLE_MS = 400;

export class RangeSync {
  /**
   * @param {HTMLInputElement} input the range
   * @param {(value: number) => Promise<number|null>} send posts the value; resolves with the
   *        value the daemon answered (or null when the request failed)
   * @param {(value: number) => void} shown called whenever the shown value changes
   */
  constructor(input, send, shown = () => {}) {
    this.input = input;
    this.send = send;
    this.shown = shown;
    this.pending = null; // value waiting to be sent
    this.inFlight = false;
    this.frame = 0;
    this.pointerHeld = false;
    this.keyHeldUntil = 0;
    this.keyTimer = 0;
    this.known = level(input.value); // the daemon's latest value as far as the page knows
    this.#paint(this.known);
    this.gesture = false; // something was sent or received since the control was last idle
    this.sentThisGesture = new Set();
    this.settleUntil = 0;
    // Another client's (or the device's) value arrived while a request was out: the HTTP answer
    // and the socket event travel separately, so which came last is unknown.
    this.foreignDuringFlight = false;
    this.resent = false;

    input.addEventListener("input", () => this.#moved());
    input.addEventListener("pointerdown", (event) => {
      this.pointerHeld = true;
      // Captured, the release is seen here even when the finger leaves the control first.
      try {
        input.setPointerCapture(event.pointerId);
      } catch {
        // The pointer is already gone (released before this ran): lostpointercapture follows.
      }
    });
    const release = () => {
      if (!this.pointerHeld) return;
      this.pointerHeld = false;
      this.#release();
    };
    input.addEventListener("pointerup", release);
    input.addEventListener("pointercancel", release);
    input.addEventListener("lostpointercapture", release);
    input.addEventListener("keydown", () => {
      this.keyHeldUntil = performance.now() + KEY_HOLD_MS;
      clearTimeout(this.keyTimer);
      this.keyTimer = setTimeout(() => this.#release(), KEY_HOLD_MS + 10);
    });
  }

  get held() {
    return this.pointerHeld || performance.now() < this.keyHeldUntil;
  }

  get busy() {
    return this.held || this.inFlight || this.pending !== null || this.frame !== 0;
  }

  /** A value from the daemon (an event or a fresh state). */
  receive(value) {
    const next = level(value);
    if (this.busy) {
      // Echoes of what this page sent say nothing new; anything else is the daemon's latest.
      if (!this.sentThisGesture.has(next)) {
        this.known = next;
        if (this.inFlight) this.foreignDuringFlight = true;
      }
      this.gesture = true;
      return;
    }
    if (performance.now() < this.settleUntil && this.sentThisGesture.has(next)) return;
    this.known = next;
    this.#show(next);
  }

  /** Shows a value without sending it (used when the whole state is rendered again). */
  reset(value) {
    this.known = level(value);
    if (this.busy) {
      this.gesture = true;
      return;
    }
    this.#show(this.known);
  }

  #show(value) {
    if (Number(this.input.value) !== value) this.input.value = String(value);
    this.#paint(value);
  }

  #paint(value) {
    this.input.style.setProperty("--fill", `${value}%`);
    this.shown(value);
  }

  /** The user let go: the final value goes out unless the daemon already has it (a tap that
   *  moved nothing, or a drag whose last value was answered while the finger was still down). */
  #release() {
    // A request or frame still running ends in #idle by itself, with the latest value sent.
    if (this.held || this.inFlight || this.frame !== 0) return;
    if (level(this.input.value) !== this.known) this.#moved();
    else this.#idle();
  }

  #moved() {
    this.pending = level(this.input.value);
    this.gesture = true;
    this.#paint(this.pending);
    if (!this.frame) this.frame = requestAnimationFrame(() => this.#flush());
  }

  async #flush() {
    this.frame = 0;
    if (this.inFlight || this.pending === null) return;
    const value = this.pending;
    this.pending = null;
    this.inFlight = true;
    this.sentThisGesture.add(value);
    let answered = null;
    try {
      answered = await this.send(value);
    } finally {
      this.inFlight = false;
    }
    if (this.pending !== null) {
      this.frame = requestAnimationFrame(() => this.#flush());
      return;
    }
    const foreign = this.foreignDuringFlight;
    this.foreignDuringFlight = false;
    // A failed request leaves `known` as it was, so the control goes back to the daemon's value.
    if (answered !== null && answered !== undefined && !foreign) this.known = level(answered);
    if (foreign && !this.held && !this.resent && level(this.input.value) !== this.known) {
      // The user's final value wins: send it once more so that it is the last word.
      this.resent = true;
      this.#moved();
      return;
    }
    this.#idle();
  }

  /** Called when nothing is held or in flight any more: show the daemon's value. */
  #idle() {
    if (this.busy || !this.gesture) return;
    this.gesture = false;
    this.resent = false;
    const value = this.known;
    this.settleUntil = performance.now() + ECHO_SETTLE_MS;
    // The final value itself is never "stale": only values sent earlier in the gesture are.
    this.sentThisGesture.delete(value);
    this.#show(value);
    setTimeout(() => {
      if (!this.busy) this.sentThisGesture.clear();
    }, ECHO_SETTLE_MS);
  }
}
