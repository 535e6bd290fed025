// What both views share: the App handshake with the host, its theme and style variables, and small DOM helpers.
import {
  App, PostMessageTransport, applyDocumentTheme, applyHostFonts, applyHostStyleVariables, type McpUiHostContext,
} from "@modelcontextprotocol/ext-apps";

export type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- the server's JSON answers

/** Connects to the host; `show` gets each tool result's payload (its structured content, else its text's JSON). */
export function connect(name: string, show: (payload: Json, isError: boolean) => void): App {
  const app = new App({ name, version: "1.0.0" }, {}, { autoResize: true });
  const theme = (context?: McpUiHostContext) => {
    if (context?.theme) applyDocumentTheme(context.theme);
    if (context?.styles?.variables) applyHostStyleVariables(context.styles.variables);
    if (context?.styles?.css?.fonts) applyHostFonts(context.styles.css.fonts);
  };
  app.onhostcontextchanged = theme;
  app.ontoolresult = (result) => show(payloadOf(result), Boolean(result.isError));
  app.connect(new PostMessageTransport(window.parent, window.parent)).then(() => theme(app.getHostContext()));
  return app;
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

/** Copies `text` (the host grants clipboard-write), and says so. */
export async function copy(text: string): Promise<void> {
  let said = "Copied";
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    said = "Copy refused by the host: select the text instead";
  }
  const toast = Object.assign(document.createElement("div"), { className: "toast", textContent: said });
  document.body.append(toast);
  setTimeout(() => toast.remove(), 1500);
}

/** An error answer (the server's structured error vocabulary) as a line a person can act on. */
export function errorLine(payload: Json): string {
  const details = Array.isArray(payload?.details) ? ` ${payload.details.join(" ")}` : "";
  return `${payload?.message ?? "The server answered an error"}${details}`;
}
