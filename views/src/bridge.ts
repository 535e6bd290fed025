// The view's side of MCP Apps (the ext-apps specification, protocol 2026-01-26), in the few messages these views
// use: the ui/initialize handshake, the tool result and host context notifications, size reports, and two requests
// (resources/read and ui/download-file) through the host. Why not ext-apps' App: it brings the MCP client's
// Protocol and zod with it, 330 KB whose module set-up alone took 0.5-1.1 s of a view's first paint on a busy
// machine (views/test/bench.mjs's marks); this is the same wire, 3 KB. Its types are ext-apps' own (import type:
// no code), and both test hosts talk to it through ext-apps' AppBridge, the reference it is judged by.
import type {
  McpUiHostCapabilities, McpUiHostContext, McpUiInitializeResult,
} from "@modelcontextprotocol/ext-apps";

export const PROTOCOL_VERSION = "2026-01-26";
/** The longest a request to the host may wait (ext-apps' App: the MCP SDK's default request timeout). */
const REQUEST_TIMEOUT_MS = 60_000;

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON-RPC payloads
type Message = { jsonrpc: "2.0"; id?: number | string; method?: string; params?: Json; result?: Json;
  error?: { code: number; message: string } };
type Waiting = { resolve: (result: Json) => void; reject: (error: Error) => void };

export class ViewBridge {
  hostCapabilities: McpUiHostCapabilities | undefined;
  hostContext: McpUiHostContext = {};
  ontoolresult: ((result: Json) => void) | undefined;
  onhostcontextchanged: ((context: McpUiHostContext) => void) | undefined;
  private nextId = 1;
  private readonly waiting = new Map<number | string, Waiting>();

  constructor(private readonly info: { name: string; version: string }) {
    window.addEventListener("message", (event) => {
      if (event.source === window.parent) this.receive(event.data as Message);
    });
  }

  /** The handshake: ui/initialize, then ui/notifications/initialized; the host's capabilities and context kept. */
  async connect(): Promise<void> {
    const answer = await this.request("ui/initialize", { appInfo: this.info, appCapabilities: {},
      protocolVersion: PROTOCOL_VERSION }) as McpUiInitializeResult;
    this.hostCapabilities = answer.hostCapabilities;
    this.hostContext = answer.hostContext ?? {};
    this.notify("ui/notifications/initialized", {});
  }

  readServerResource(params: { uri: string }): Promise<Json> {
    return this.request("resources/read", params);
  }

  downloadFile(params: Json): Promise<Json> {
    return this.request("ui/download-file", params);
  }

  /** Reports the document's height (and the window's width) to the host whenever it changes, as ext-apps' App does. */
  reportSize(): void {
    let queued = false;
    let [width, height] = [0, 0];
    const measure = () => {
      if (queued) return;
      queued = true;
      requestAnimationFrame(() => {
        queued = false;
        const html = document.documentElement;
        const before = html.style.height;
        html.style.height = "max-content";
        const tall = Math.ceil(html.getBoundingClientRect().height);
        html.style.height = before;
        const wide = Math.ceil(window.innerWidth);
        if (tall !== height || wide !== width) {
          [width, height] = [wide, tall];
          this.notify("ui/notifications/size-changed", { width, height });
        }
      });
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(document.documentElement);
    observer.observe(document.body);
  }

  /** A request to the host; one it never answers fails after REQUEST_TIMEOUT_MS, so the view can say so. */
  private request(method: string, params: Json): Promise<Json> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`the host did not answer ${method} within ${REQUEST_TIMEOUT_MS / 1000} s`));
      }, REQUEST_TIMEOUT_MS);
      const done = <T>(settle: (value: T) => void) => (value: T) => {
        clearTimeout(timer);
        settle(value);
      };
      this.waiting.set(id, { resolve: done(resolve), reject: done(reject) });
      this.post({ jsonrpc: "2.0", id, method, params });
    });
  }

  private notify(method: string, params: Json): void {
    this.post({ jsonrpc: "2.0", method, params });
  }

  private post(message: Message): void {
    window.parent.postMessage(message, "*");
  }

  private receive(message: Message): void {
    if (message?.jsonrpc !== "2.0") return;
    if (message.method === undefined) { // a response to one of ours
      const waiting = message.id === undefined ? undefined : this.waiting.get(message.id);
      if (!waiting) return;
      this.waiting.delete(message.id as number);
      if (message.error) waiting.reject(new Error(message.error.message));
      else waiting.resolve(message.result);
    } else if (message.id !== undefined) { // a request of the host's: teardown and ping are all it may ask a view
      const known = message.method === "ui/resource-teardown" || message.method === "ping";
      this.post(known ? { jsonrpc: "2.0", id: message.id, result: {} }
        : { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } });
    } else if (message.method === "ui/notifications/tool-result") {
      this.ontoolresult?.(message.params);
    } else if (message.method === "ui/notifications/host-context-changed") {
      this.hostContext = { ...this.hostContext, ...message.params };
      this.onhostcontextchanged?.(this.hostContext);
    }
  }
}
