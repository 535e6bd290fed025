// What both views share: the App handshake with the host, its theme and style variables, and small DOM helpers.
import type { McpUiHostContext } from "@modelcontextprotocol/ext-apps";
import { ViewBridge } from "./bridge";

export type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- the server's JSON answers

/** The host's theme, style variables and fonts on the document (what ext-apps' applyDocumentTheme,
 * applyHostStyleVariables and applyHostFonts do). */
function theme(context: McpUiHostContext): void {
  const html = document.documentElement;
  if (context.theme) {
    html.setAttribute("data-theme", context.theme);
    html.style.colorScheme = context.theme;
  }
  for (const [name, value] of Object.entries(context.styles?.variables ?? {})) {
    if (value !== undefined) html.style.setProperty(name, String(value));
  }
  const fonts = context.styles?.css?.fonts;
  if (fonts && !document.getElementById("__mcp-host-fonts")) {
    document.head.append(Object.assign(document.createElement("style"), { id: "__mcp-host-fonts", textContent: fonts }));
  }
  const limit = (context.containerDimensions as { maxHeight?: number } | undefined)?.maxHeight;
  if (limit) html.style.setProperty("--max-height", `${limit}px`);
}

/** Connects to the host; `show` gets each tool result's payload (its structured content, else its text's JSON).
 * The size is reported from the first result on: the empty document before it is no size worth telling the host. */
export function connect(name: string, show: (payload: Json, isError: boolean) => void): ViewBridge {
  performance.mark("view:script"); // the bench (views/test/bench.mjs) reads these marks to say where time goes
  const app = new ViewBridge({ name, version: "1.0.0" });
  let sizing = false;
  app.onhostcontextchanged = theme;
  app.ontoolresult = (result) => {
    performance.mark("view:result");
    show(payloadOf(result), Boolean(result?.isError));
    performance.mark("view:rendered");
    if (!sizing) app.reportSize();
    sizing = true;
  };
  hostApp = app;
  void app.connect().then(() => {
    performance.mark("view:connected");
    theme(app.hostContext);
  });
  return app;
}

let hostApp: ViewBridge | null = null;

/** The tallest the document may be (the host's containerDimensions.maxHeight), or null when the host sets none. */
export function maxHeight(): number | null {
  const dimensions = hostApp?.hostContext.containerDimensions as { maxHeight?: number; height?: number } | undefined;
  return dimensions?.maxHeight ?? dimensions?.height ?? null;
}

/** Shrinks `box` (a scrolling part of the view) so the whole document fits the host's maximum height. */
export function fitHeight(box: HTMLElement | null, least = 120): void {
  const limit = maxHeight();
  if (!box || !limit) return;
  box.style.maxHeight = "";
  const over = document.documentElement.scrollHeight - limit;
  if (over > 0) box.style.maxHeight = `${Math.max(box.getBoundingClientRect().height - over, least)}px`;
}

/** Whether the host lets this frame write to the clipboard (its iframe's permission policy). */
export function canCopy(): boolean {
  const policy = (document as unknown as { featurePolicy?: { allowsFeature(name: string): boolean } }).featurePolicy;
  return Boolean(navigator.clipboard?.writeText) && (policy ? policy.allowsFeature("clipboard-write") : true);
}

export function payloadOf(result: { structuredContent?: Json; content?: Json[]; contents?: Json[] }): Json {
  if (result.structuredContent) return result.structuredContent;
  const text = [...(result.content ?? []), ...(result.contents ?? [])].find((block) => typeof block?.text === "string");
  try {
    return text ? JSON.parse(text.text) : {};
  } catch {
    return { message: text.text };
  }
}

export const escape = (text: string): string =>
  text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c] as string);

export const root = (): HTMLElement => document.getElementById("root") as HTMLElement;

/** Copies `text` where the host allows it, and says so; where it does not, or the copy fails, shows the text in a
 * selectable box instead, already selected. */
export async function copy(text: string, what = "value"): Promise<void> {
  if (canCopy()) {
    try {
      await navigator.clipboard.writeText(text);
      const toast = Object.assign(document.createElement("div"), { className: "toast", textContent: "Copied" });
      document.body.append(toast);
      setTimeout(() => toast.remove(), 1500);
      return;
    } catch {
      // The host's permission policy or the person refused: the box below still lets them take it.
    }
  }
  showBox(text, `The ${what}, to select and copy (this host does not let the view copy):`);
}

/** Shows `text` in a read-only box under the view, selected, with a line saying what it is. */
export function showBox(text: string, title: string): void {
  let box = document.getElementById("box");
  if (!box) {
    box = Object.assign(document.createElement("aside"), { id: "box", className: "detail" });
    document.body.append(box);
  }
  box.innerHTML = `<div class="bar"><span>${escape(title)}</span><button id="close-box">Close</button></div>`
    + `<textarea readonly rows="${Math.min(Math.max(text.split("\n").length, 2), 12)}">${escape(text)}</textarea>`;
  const area = box.querySelector("textarea") as HTMLTextAreaElement;
  area.focus();
  area.select();
  box.querySelector("#close-box")?.addEventListener("click", () => box?.remove());
}

/** An error answer (the server's structured error vocabulary) as a line a person can act on. */
export function errorLine(payload: Json): string {
  const details = Array.isArray(payload?.details) ? ` ${payload.details.join(" ")}` : "";
  return `${payload?.message ?? "The server answered an error"}${details}`;
}
