// A second MCP Apps host, written from the ext-apps documentation only (AppBridge's and the spec's double-iframe
// sandbox: "the sandbox proxy sends ui/notifications/sandbox-proxy-ready; the host answers with
// sendSandboxResourceReady({ html, sandbox, csp, permissions })"), not from the project's own test host. It runs on
// its own origin (http://host.localhost: Chromium counts *.localhost as secure, so the clipboard can be granted),
// the sandbox proxy on another (http://sandbox.localhost, test/sandbox.html), and the view in the proxy's inner
// srcdoc frame. Each open says what this host can do: download or not, a clipboard
// permission or not, a maximum height; what the view asked of it is recorded for the test to read.
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

type Options = { theme?: "light" | "dark"; download?: boolean; clipboard?: boolean; maxHeight?: number; result?: unknown };
type Recorded = { calls: string[]; sizes: number[]; downloads: string[]; result?: unknown };

declare global {
  interface Window {
    mcp(method: string, params: unknown): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    show(tool: string, args: Record<string, unknown>, options: Options): Promise<void>;
    record: Recorded;
  }
}

const SANDBOX_ORIGIN = "http://sandbox.localhost";
window.record = { calls: [], sizes: [], downloads: [] };

window.show = async (tool, args, options) => {
  const listed = await window.mcp("tools/list", {});
  const uri = listed.tools.find((t: { name: string }) => t.name === tool)?._meta?.ui?.resourceUri;
  const read = await window.mcp("resources/read", { uri });
  const html: string = read.contents[0].text;
  const meta = read.contents[0]._meta?.ui ?? {};
  window.record = { calls: [], sizes: [], downloads: [] };
  document.body.replaceChildren();
  const outer = Object.assign(document.createElement("iframe"), { src: `${SANDBOX_ORIGIN}/sandbox.html` });
  // The proxy frame gets what the inner frame may get: it delegates clipboard-write only when this host grants it.
  outer.setAttribute("sandbox", "allow-scripts allow-same-origin");
  if (options.clipboard) outer.setAttribute("allow", "clipboard-write");
  outer.style.cssText = `width: 940px; height: ${options.maxHeight ?? 760}px; border: 1px solid #ccc`;
  const ready = new Promise<void>((resolve) => window.addEventListener("message", function proxyReady(event) {
    if (event.origin === SANDBOX_ORIGIN && event.data?.method === "ui/notifications/sandbox-proxy-ready") {
      window.removeEventListener("message", proxyReady);
      resolve();
    }
  }));
  document.body.append(outer);
  await ready;
  const capabilities = { serverTools: {}, serverResources: {}, ...(options.download ? { downloadFile: {} } : {}) };
  const bridge = new AppBridge(null, { name: "ext-apps documentation host", version: "0.1.0" }, capabilities, {
    hostContext: { theme: options.theme ?? "light", displayMode: "inline", platform: "web", locale: "en-US",
      containerDimensions: options.maxHeight ? { maxHeight: options.maxHeight, width: 940 } : { width: 940 } },
  } as never);
  bridge.oncalltool = async (params) => { window.record.calls.push(`tools/call ${params.name}`); return window.mcp("tools/call", params); };
  bridge.onreadresource = async (params) => {
    window.record.calls.push(`resources/read ${params.uri}`);
    return window.mcp("resources/read", params);
  };
  if (options.download) {
    bridge.ondownloadfile = async (params) => {
      for (const item of params.contents as { resource?: { text?: string } }[]) window.record.downloads.push(item.resource?.text ?? "");
      return {};
    };
  }
  bridge.onsizechange = ({ height }) => { if (height !== undefined) window.record.sizes.push(height); };
  const initialized = new Promise<void>((resolve) => { bridge.oninitialized = () => resolve(); });
  const proxy = outer.contentWindow as Window;
  await bridge.connect(new PostMessageTransport(proxy, proxy));
  await bridge.sendSandboxResourceReady({ html, sandbox: "allow-scripts", csp: meta.csp,
    permissions: options.clipboard ? { clipboardWrite: {} } : {} });
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  // Kept for the test: the figures the view was given, to check what it shows against.
  window.record.result = options.result ?? await window.mcp("tools/call", { name: tool, arguments: args });
  await bridge.sendToolResult(window.record.result as never);
};
