// The browser test's host: what an MCP Apps host does, on ext-apps' own host side (AppBridge). It lists the tools,
// reads the ui:// document a tool names in `_meta.ui.resourceUri`, renders it in a sandboxed iframe, hands it the
// tool's input and result, and proxies the view's calls back to the server. The MCP client itself is on the Node
// side of the test (window.mcp, bound by Playwright), as a host's client lives outside the page it draws.
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

declare global {
  interface Window {
    mcp(method: string, params: unknown): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    openView(tool: string, args: Record<string, unknown>, theme: "light" | "dark", result?: unknown): Promise<number>;
    openPlain(result: { structuredContent: { results: { columns: { name: string }[]; rows: unknown[][] } } }): number;
    bridged: string[];
    opened: number;
  }
}

window.bridged = [];

const now = () => performance.timeOrigin + performance.now();
const SANDBOX = "allow-scripts allow-downloads";
const FRAME_STYLE = "width: 960px; height: 760px; border: 0";

/** Shows a tool's view: `result` when given (the benchmark's, fetched once), else the tool called with `args`.
 * Returns when the result was handed to the view; `window.opened`, when its frame was created. */
window.openView = async (tool, args, theme, given) => {
  const listed = await window.mcp("tools/list", {});
  const uri = listed.tools.find((t: { name: string }) => t.name === tool)?._meta?.ui?.resourceUri;
  if (!uri) throw new Error(`${tool} names no view`);
  const html = (await window.mcp("resources/read", { uri })).contents[0].text;
  document.body.replaceChildren();
  document.body.style.background = theme === "dark" ? "#1e1e1e" : "#ffffff";
  window.opened = now();
  const frame = Object.assign(document.createElement("iframe"), { srcdoc: html });
  frame.setAttribute("sandbox", SANDBOX);
  frame.style.cssText = FRAME_STYLE;
  document.body.append(frame);
  const bridge = new AppBridge(null, { name: "aws-data-mcp browser test host", version: "1.0.0" },
    { serverTools: {}, serverResources: {}, downloadFile: {} }, {
      hostContext: { theme, displayMode: "inline", styles: { variables: theme === "dark"
        ? { "--color-background-primary": "#1e1e1e", "--color-text-primary": "#e8e8e8" }
        : { "--color-background-primary": "#ffffff", "--color-text-primary": "#1b1f24" } } },
    } as never);
  bridge.oncalltool = async (params) => { window.bridged.push(`tools/call ${params.name}`); return window.mcp("tools/call", params); };
  bridge.onreadresource = async (params) => { window.bridged.push(`resources/read ${params.uri}`); return window.mcp("resources/read", params); };
  bridge.ondownloadfile = async () => { window.bridged.push("ui/download-file"); return {}; };
  const initialized = new Promise<void>((resolve) => { bridge.oninitialized = () => resolve(); });
  await bridge.connect(new PostMessageTransport(frame.contentWindow as Window, frame.contentWindow as Window));
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  const result = given ?? await window.mcp("tools/call", { name: tool, arguments: args });
  const sent = now();
  await bridge.sendToolResult(result as never);
  return sent;
};

/** The benchmark's baseline: the same rows as a plain HTML table, no view code, in the same frame; when it began. */
window.openPlain = (result) => {
  const { columns, rows } = result.structuredContent.results;
  const text = (value: unknown) => String(value ?? "NULL").replace(/[&<>]/g, (c) => `&#${c.charCodeAt(0)};`);
  const html = `<!doctype html><html><body><table><thead><tr>${columns.map((c) => `<th>${text(c.name)}</th>`).join("")}`
    + `</tr></thead><tbody>${rows.map((row) => `<tr>${row.map((v) => `<td>${text(v)}</td>`).join("")}</tr>`).join("")}`
    + "</tbody></table></body></html>";
  document.body.replaceChildren();
  const frame = Object.assign(document.createElement("iframe"), { srcdoc: html });
  frame.setAttribute("sandbox", SANDBOX);
  frame.style.cssText = FRAME_STYLE;
  const began = now();
  document.body.append(frame);
  return began;
};
