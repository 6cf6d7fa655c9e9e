// Drives Debian's Chromium for tests/web: one browser per process, one page at a time.
//
// Protocol: one JSON object per line on stdin, {"id": n, "cmd": "...", ...arguments}; one JSON
// object per line on stdout, {"id": n, "ok": true, "result": ...} or {"id": n, "ok": false,
// "error": "..."}. Commands run one after another, in the order they arrive.
//
// Controls are found only by their accessible role and name (exact), like a screen reader user
// finds them, by their label (a password box has no role), or by element id for the
// connection-state elements and a field's error text. Every request the page makes is
// recorded (URL, method, status, redirect), as are console errors and uncaught page errors.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import { chromium } from "playwright-core";

const require = createRequire(import.meta.url);

const POLL_MS = 10;

const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true });
let context = null;
let page = null;
let log = freshLog();

function freshLog() {
  return { requests: [], consoleErrors: [], pageErrors: [] };
}

// Counts animation frames and input events from the first script on, so a test can compare the
// number of requests a drag caused with the number of frames it lasted. Init scripts are injected
// by the browser itself, so the page's Content-Security-Policy does not apply to them.
function countFramesAndInputs() {
  window.__webTest = { frames: 0, inputs: 0 };
  const tick = () => {
    window.__webTest.frames += 1;
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  document.addEventListener("input", () => { window.__webTest.inputs += 1; }, true);
}

async function open({ url, width = 1280, height = 800, touch = false }) {
  if (context) await context.close();
  log = freshLog();
  context = await browser.newContext({
    viewport: { width, height },
    hasTouch: touch,
    isMobile: touch,
    deviceScaleFactor: 1,
  });
  await context.addInitScript(countFramesAndInputs);
  page = await context.newPage();
  page.on("console", (msg) => {
    if (msg.type() === "error") log.consoleErrors.push({ text: msg.text(), location: msg.location() });
  });
  page.on("pageerror", (err) => log.pageErrors.push(String(err && err.stack ? err.stack : err)));
  page.on("request", (req) => {
    const from = req.redirectedFrom();
    log.requests.push({
      url: req.url(),
      method: req.method(),
      resourceType: req.resourceType(),
      redirectedFrom: from ? from.url() : null,
      status: null,
      at: Date.now(),
    });
  });
  // WebSockets are not requests to Playwright; Socket.IO upgrades to one.
  page.on("websocket", (ws) => {
    log.requests.push({ url: ws.url(), method: "GET", resourceType: "websocket", redirectedFrom: null,
                        status: 101, at: Date.now() });
  });
  page.on("response", (resp) => {
    const req = resp.request();
    for (let i = log.requests.length - 1; i >= 0; i--) {
      const r = log.requests[i];
      if (r.url === req.url() && r.method === req.method() && r.status === null) {
        r.status = resp.status();
        break;
      }
    }
  });
  return goto({ url });
}

async function goto({ url }) {
  const resp = await page.goto(url, { waitUntil: "load" });
  return { url: page.url(), status: resp ? resp.status() : null };
}

function locate({ role, name, id, label, css }) {
  if (id !== undefined) return page.locator(`#${id}`);
  if (css !== undefined) return page.locator(css);
  if (label !== undefined) return page.getByLabel(label, { exact: true });
  return page.getByRole(role, { name, exact: true });
}

// Reads one property of the element: "value", "text", "checked", "attr:<name>", or "box".
async function readProp(target, prop, timeout = 2000) {
  const loc = locate(target);
  if (prop === "box") return loc.boundingBox({ timeout });
  return loc.evaluate(
    (el, p) => {
      if (p === "value") return el.value;
      if (p === "text") return el.textContent.trim();
      if (p === "checked") return el.checked;
      if (p === "visible") return !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length);
      if (p.startsWith("attr:")) return el.getAttribute(p.slice(5));
      throw new Error(`unknown property ${p}`);
    },
    prop,
    { timeout },
  );
}

function matches(value, { equals, contains, notEquals, regex }) {
  if (equals !== undefined && value !== equals) return false;
  if (regex !== undefined && !(typeof value === "string" && new RegExp(regex, "i").test(value))) return false;
  if (contains !== undefined && !(typeof value === "string" && value.includes(contains))) return false;
  if (notEquals !== undefined && value === notEquals) return false;
  return true;
}

// Waits until target's prop matches; answers the value and the milliseconds waited. The element
// is looked up again on every poll: a re-render may replace it.
async function waitFor({ target, prop, timeout = 5000, ...want }) {
  const start = Date.now();
  let last;
  let lastError = null;
  for (;;) {
    try {
      last = await readProp(target, prop, 200);
      lastError = null;
      if (matches(last, want)) return { value: last, elapsedMs: Date.now() - start };
    } catch (e) {
      lastError = String(e.message || e).split("\n")[0];
    }
    if (Date.now() - start > timeout) {
      throw new Error(
        `timed out after ${timeout} ms waiting for ${JSON.stringify(target)} ${prop} ` +
          `${JSON.stringify(want)}; last value ${JSON.stringify(last)}` +
          (lastError ? `; last error ${lastError}` : ""),
      );
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

async function waitForUrl({ path, timeout = 5000 }) {
  await page.waitForURL((u) => u.pathname === path, { timeout, waitUntil: "load" });
  return { url: page.url() };
}

// Where on screen a range input's value `fraction` (0 = min, 1 = max) lies: the range may be
// turned vertical by writing-mode (vertical-lr with direction rtl puts min at the bottom) or by a
// rotation; a taller than wide box is vertical.
async function rangeGeometry(target) {
  return locate(target).evaluate((el) => {
    const r = el.getBoundingClientRect();
    const cs = getComputedStyle(el);
    const vertical = r.height > r.width;
    let minAtStart; // start = top for vertical, left for horizontal
    if (!vertical) {
      minAtStart = cs.direction !== "rtl";
    } else if (cs.writingMode.startsWith("vertical") || cs.writingMode.startsWith("sideways")) {
      minAtStart = cs.direction !== "rtl";
    } else {
      // a rotated horizontal range: rotate(-90deg) gives matrix(0, -1, 1, 0, ...): min at bottom.
      const m = new DOMMatrix(cs.transform === "none" ? undefined : cs.transform);
      minAtStart = m.b > 0;
    }
    return { x: r.x, y: r.y, width: r.width, height: r.height, vertical, minAtStart };
  });
}

function pointAt(g, fraction) {
  // Stay off the very ends so the thumb's half width cannot clamp the result.
  const f = 0.06 + 0.88 * fraction;
  const along = g.minAtStart ? f : 1 - f;
  if (g.vertical) return { x: g.x + g.width / 2, y: g.y + g.height * along };
  return { x: g.x + g.width * along, y: g.y + g.height / 2 };
}

// A real pointer drag: press on the range at `from`, move in `steps` mouse moves to `to`, release.
// Answers what it caused: input events, animation frames and requests made meanwhile.
async function drag({ target, from, to, steps = 40 }) {
  await locate(target).scrollIntoViewIfNeeded();
  const g = await rangeGeometry(target);
  const a = pointAt(g, from);
  const b = pointAt(g, to);
  const before = await page.evaluate(() => ({ ...window.__webTest }));
  const firstRequest = log.requests.length;
  const started = Date.now();
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move(b.x, b.y, { steps });
  const held = await page.evaluate(() => ({ ...window.__webTest }));
  const releasedAt = Date.now();
  await page.mouse.up();
  const after = await page.evaluate(() => ({ ...window.__webTest }));
  return {
    geometry: g,
    durationMs: Date.now() - started,
    inputEvents: held.inputs - before.inputs,
    framesWhileHeld: held.frames - before.frames,
    startedAt: started,
    releasedAt,
    framesTotal: after.frames - before.frames,
    firstRequest,
    value: await readProp(target, "value"),
  };
}

// Many input events within one task (so within one animation frame), as a fast pointer or a
// held key can cause; then the change event a release ends with.
async function inputBurst({ target, values }) {
  return locate(target).evaluate((el, vs) => {
    for (const v of vs) {
      el.value = String(v);
      el.dispatchEvent(new Event("input", { bubbles: true }));
    }
    el.dispatchEvent(new Event("change", { bubbles: true }));
    return el.value;
  }, values);
}

// Resolves after n animation frames of the page.
async function waitFrames({ n }) {
  return page.evaluate(
    (count) =>
      new Promise((resolve) => {
        let seen = 0;
        const tick = () => (++seen >= count ? resolve(seen) : requestAnimationFrame(tick));
        requestAnimationFrame(tick);
      }),
    n,
  );
}

// Bounding boxes of every element with that role (name: aria-label or text).
async function boxes({ role }) {
  const all = await page.getByRole(role).all();
  const out = [];
  for (const loc of all) {
    if (!(await loc.isVisible())) continue;
    const box = await loc.boundingBox();
    const name = await loc.evaluate((el) => el.getAttribute("aria-label") || el.textContent.trim() ||
                                         (el.labels && el.labels[0] ? el.labels[0].textContent.trim() : ""));
    out.push({ name, box });
  }
  return out;
}

// The element that has the keyboard focus: its id, tag, role and text.
async function focused() {
  return page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return null;
    return { id: el.id, tag: el.tagName.toLowerCase(), role: el.getAttribute("role"),
             text: el.textContent.trim() };
  });
}

// Everything the page holds as text: its markup and the current value of every form control
// (a typed value is a property, not in the markup).
async function pageText() {
  return page.evaluate(() => ({
    html: document.documentElement.outerHTML,
    values: [...document.querySelectorAll("input, textarea, select")].map((el) => el.value),
  }));
}

// Runs axe-core (the locked package) on the page, or on the element `include` names (a CSS
// selector), with the rules of the given tags. The script goes in through the DevTools protocol,
// which the page's Content-Security-Policy (no inline script) does not govern.
async function axe({ include = null, tags }) {
  const loaded = await page.evaluate(() => typeof window.axe === "object");
  if (!loaded) await page.evaluate(readFileSync(require.resolve("axe-core/axe.min.js"), "utf8"));
  const result = await page.evaluate(
    ({ include, tags }) => window.axe.run(include ? { include: [include] } : document,
                                          { runOnly: { type: "tag", values: tags } }),
    { include, tags },
  );
  return {
    version: result.testEngine.version,
    passes: result.passes.length,
    violations: result.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, summary: n.failureSummary })),
    })),
  };
}

// Clicks `target` and waits for the download it starts; answers its suggested file name and its
// text (the files tests/web downloads are JSON).
async function download({ target, timeout = 10000 }) {
  const started = page.waitForEvent("download", { timeout });
  await locate(target).click({ timeout: 5000 });
  const file = await started;
  const path = await file.path();
  return { name: file.suggestedFilename(), text: readFileSync(path, "utf8") };
}

// Puts a file with `text` into the file input `target`, as choosing it in the file dialog does.
async function setFile({ target, name, text, mimeType = "application/json" }) {
  const file = { name, mimeType, buffer: Buffer.from(text, "utf8") };
  await locate(target).setInputFiles(file, { timeout: 5000 });
  return null;
}

const commands = {
  download,
  setFile,
  focused,
  pageText,
  axe,
  inputBurst,
  waitFrames,
  boxes,
  open,
  goto,
  waitForUrl,
  url: async () => ({ url: page.url() }),
  click: async ({ target }) => {
    await locate(target).click({ timeout: 5000 });
    return null;
  },
  fill: async ({ target, value }) => {
    await locate(target).fill(value, { timeout: 5000 });
    return null;
  },
  check: async ({ target }) => {
    await locate(target).check({ timeout: 5000 });
    return null;
  },
  uncheck: async ({ target }) => {
    await locate(target).uncheck({ timeout: 5000 });
    return null;
  },
  select: async ({ target, value }) => {
    await locate(target).selectOption(value, { timeout: 5000 });
    return null;
  },
  // The mouse button goes down on the middle of `target` and stays down (a held tile).
  mouseDown: async ({ target }) => {
    const box = await locate(target).boundingBox({ timeout: 5000 });
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    return null;
  },
  mouseUp: async () => {
    await page.mouse.up();
    return null;
  },
  press: async ({ key }) => {
    await page.keyboard.press(key);
    return null;
  },
  count: async ({ target }) => locate(target).count(),
  read: async ({ target, prop }) => readProp(target, prop),
  wait: waitFor,
  drag,
  layout: async () =>
    page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      clientWidth: document.documentElement.clientWidth,
      bodyScrollWidth: document.body.scrollWidth,
    })),
  screenshot: async ({ path, fullPage = false }) => {
    await page.screenshot({ path, fullPage });
    return null;
  },
  log: async ({ since = 0 } = {}) => ({
    requests: log.requests.slice(since),
    consoleErrors: log.consoleErrors,
    pageErrors: log.pageErrors,
  }),
  frames: async () => page.evaluate(() => ({ ...window.__webTest })),
  close: async () => {
    if (context) await context.close();
    context = null;
    page = null;
    return null;
  },
};

function reply(obj) {
  process.stdout.write(JSON.stringify(obj) + "\n");
}

const lines = createInterface({ input: process.stdin });
let chain = Promise.resolve();
lines.on("line", (line) => {
  chain = chain.then(async () => {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch (e) {
      reply({ id: null, ok: false, error: `not JSON: ${line}` });
      return;
    }
    const { id, cmd, ...args } = msg;
    const fn = commands[cmd];
    if (!fn) {
      reply({ id, ok: false, error: `unknown command ${cmd}` });
      return;
    }
    try {
      reply({ id, ok: true, result: (await fn(args)) ?? null });
    } catch (e) {
      reply({ id, ok: false, error: String((e && e.message) || e) });
    }
  });
});
lines.on("close", () => {
  chain.then(() => browser.close()).then(() => process.exit(0));
});
