// The browser test's host: what an MCP Apps host does, on ext-apps' own host side (AppBridge). It lists the tools,
// reads the ui:// document a tool names in `_meta.ui.resourceUri`, renders it in a sandboxed iframe, hands it the
// tool's input and result, and proxies the view's calls back to the server. The MCP client itself is on the Node
// side of the test (window.mcp, bound by Playwright), as a host's client lives outside the page it draws.
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

declare global {
  interface Window {
    mcp(method: string, params: unknown): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    openView(tool: string, args: Record<string, unknown>, theme: "light" | "dark"): Promise<number>;
    bridged: string[];
  }
}

window.bridged = [];

window.openView = async (tool, args, theme) => {
  const listed = await window.mcp("tools/list", {});
  const uri = listed.tools.find((t: { name: string }) => t.name === tool)?._meta?.ui?.resourceUri;
  if (!uri) throw new Error(`${tool} names no view`);
  const html = (await window.mcp("resources/read", { uri })).contents[0].text;
  document.body.replaceChildren();
  document.body.style.background = theme === "dark" ? "#1e1e1e" : "#ffffff";
  const frame = Object.assign(document.createElement("iframe"), { srcdoc: html });
  frame.setAttribute("sandbox", "allow-scripts allow-downloads");
  frame.style.cssText = "width: 960px; height: 760px; border: 0";
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
  const result = await window.mcp("tools/call", { name: tool, arguments: args });
  const sent = performance.timeOrigin + performance.now();
  await bridge.sendToolResult(result);
  return sent;
};
