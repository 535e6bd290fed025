// What the browser test and the benchmark share: an MCP client that negotiated the ui extension, connected to a
// running server, and headless Chromium showing the test host (test/.build/host.js, `node build.mjs --host`) with
// that client bound as window.mcp, as a host's client lives outside the page it draws.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { chromium } from "playwright-core";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const UI = "io.modelcontextprotocol/ui";
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

/** When `frame` first painted content (Chromium's paint timing, as a wall-clock ms): a view's document has no
 * content until it renders the result the host hands it. */
export const firstPaint = (frame) => frame.evaluate(() => new Promise((resolve) => new PerformanceObserver((list, observer) => {
  const paint = list.getEntriesByName("first-contentful-paint")[0];
  if (paint) { observer.disconnect(); resolve(performance.timeOrigin + paint.startTime); }
}).observe({ type: "paint", buffered: true })));

async function launch(url, name) {
  const client = new Client({ name, version: "1.0.0" },
    { capabilities: { extensions: { [UI]: { mimeTypes: ["text/html;profile=mcp-app"] } } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const calls = {
    "tools/list": (p) => client.listTools(p), "tools/call": (p) => client.callTool(p),
    "resources/read": (p) => client.readResource(p),
  };
  const profile = mkdtempSync(join(tmpdir(), "views-chromium-"));
  // Playwright passes the profile as --user-data-dir; headless, it adds --headless.
  const browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true,
    viewport: { width: 980, height: 780 }, args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"] });
  const page = browser.pages()[0] ?? await browser.newPage();
  const close = async () => {
    await browser.close();
    await client.close();
    rmSync(profile, { recursive: true, force: true });
  };
  return { client, calls, browser, page, close };
}

export async function openHost(url, name) {
  const { client, calls, browser, page, close } = await launch(url, name);
  return { client, calls, browser, page, close,
    /** Loads the host page; call after the page's listeners are attached. */
    start: async () => {
      await page.exposeFunction("mcp", (method, params) => calls[method](params));
      await page.setContent(`<!doctype html><html><body><script>${readFileSync(join(HERE, ".build", "host.js"), "utf8")}</script></body></html>`);
    },
    /** The frame the host shows its view (or document) in. */
    view: () => page.frames().find((frame) => frame !== page.mainFrame()),
    /** The same, waiting for the iframe now in the host (a frame just replaced may still be listed). */
    frame: async () => (await page.locator("iframe").elementHandle()).contentFrame(),
  };
}

/** The documentation host (test/docs-host.ts) on http://host.localhost, its sandbox proxy (test/sandbox.html) on
 * http://sandbox.localhost: two origins served by the browser itself (Playwright's routing), so nothing leaves it. */
export const HOST_PAGES = { "http://host.localhost/": () => `<!doctype html><html><head><meta charset="utf-8"></head><body>`
  + `<script>${readFileSync(join(HERE, ".build", "docs-host.js"), "utf8")}</script></body></html>`,
  "http://sandbox.localhost/sandbox.html": () => readFileSync(join(HERE, "sandbox.html"), "utf8") };

export async function openDocsHost(url, name) {
  const { client, calls, browser, page, close } = await launch(url, name);
  await browser.grantPermissions(["clipboard-read", "clipboard-write"], { origin: "http://host.localhost" });
  for (const [address, body] of Object.entries(HOST_PAGES)) {
    await page.route(address, (route) => route.fulfill({ status: 200, contentType: "text/html", body: body() }));
  }
  return { client, calls, browser, page, close,
    start: async () => {
      await page.exposeFunction("mcp", (method, params) => calls[method](params));
      await page.goto("http://host.localhost/");
    },
    /** The view's frame: the proxy's inner frame. */
    view: () => page.frames().find((frame) => frame.parentFrame()?.url().startsWith("http://sandbox.localhost/")),
  };
}
