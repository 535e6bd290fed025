// The query results view: an athena_query answer (or an athena://queries/{id} page) as a typed table with its
// header, further pages read through the host (on scrolling to the end, or "Next page"), and a chart where one
// answers something (chart.ts). Values are written for people (format.ts); the raw value is the one copied, sorted
// and put in the CSV. Reads the answer's fields where present and leaves out what is missing.
import { type Json, canCopy, connect, copy, errorLine, escape, fitHeight, payloadOf, root, showBox } from "./common";
import { type Column, type Formatter, csvOf, formatters, isNumeric, rawText } from "./format";
import { type Kind, type Plan, drawChart, planOf } from "./chart";

type Chart = Kind | "off";
type Cut = { row: number; column: string; original_length: number; kept_length: number };

/** Past this many characters a cell is cut short on screen (its whole value on hover, and copied whole). */
const LONG_CELL = 60;
/** Rows painted at once; the rest follow, ROWS_A_FRAME at a time. */
const FIRST_ROWS = 60;
const ROWS_A_FRAME = 500;
/** How close to the end of the table (px) scrolling reads the next page. */
const NEAR_END = 160;

let answer: Json = {};
let columns: Column[] = [];
let rows: unknown[][] = [];
let cuts = new Map<unknown[], Map<number, Cut>>(); // values cut to fit an answer, by row (survives sorting)
let nextUri: string | null = null;
let sort: { column: number; descending: boolean } | null = null;
let chart: Chart = "off";
let plan: Plan | null = null;
let measure = -1;
let formats: Formatter[] = [];
let loading = false;
let note = "";

// A failed query, or one stopped by the cutoff, is still an answer about an execution (state, cost, error): shown
// as one. Only a refusal before any execution (the flat error) is an error line alone.
const app = connect("aws-data-mcp query results", (payload, isError) => {
  if (isError && !payload.execution_id) return showError(payload);
  take(payload);
  render();
});

/** A whole answer (the tool's, or the query read again): its first page, unsorted, with the chart it suits. */
function take(payload: Json): void {
  // The tool's answer names the workgroup's cutoff; the query read again (a resource) does not: keep it.
  const cutoff = payload.execution_id === answer.execution_id ? answer.cutoff_bytes : undefined;
  answer = { cutoff_bytes: cutoff, ...payload };
  const results = payload.results ?? {};
  columns = results.columns ?? [];
  rows = results.rows ?? [];
  cuts = new Map();
  markCuts(results);
  nextUri = results.next_uri ?? null;
  sort = null;
  formats = formatters(columns, rows);
  plan = planOf(columns, rows);
  chart = plan?.kind ?? "off";
  measure = plan?.measures[0] ?? -1;
}

/** Marks the page's cut values on its rows, which are the last `results.rows.length` of `rows`. */
function markCuts(results: Json): void {
  const start = rows.length - (results.rows ?? []).length - (results.first_row ?? 0);
  for (const cut of (results.truncated_values ?? []) as Cut[]) {
    const row = rows[start + cut.row];
    const column = columns.findIndex((c) => c.name === cut.column);
    if (!row || column < 0) continue;
    if (!cuts.has(row)) cuts.set(row, new Map());
    cuts.get(row)!.set(column, cut);
  }
}

const pending = () => !answer.results && ["QUEUED", "RUNNING"].includes(answer.state);

const numeric = (i: number) => Boolean(columns[i]) && isNumeric(columns[i]);

function shown(): unknown[][] {
  if (!sort) return rows;
  const { column, descending } = sort;
  const key = (v: unknown) => (v === null ? null : numeric(column) ? Number(v) : String(v));
  return [...rows].sort((a, b) => {
    const [x, y] = [key(a[column]), key(b[column])];
    const order = x === y ? 0 : x === null ? 1 : y === null ? -1 : x < y ? -1 : 1; // NULLs last either way
    return descending && x !== null && y !== null ? -order : order;
  });
}

function bytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return "?";
  const units = ["B", "KB", "MB", "GB", "TB"];
  let i = 0;
  for (; n >= 1000 && i < units.length - 1; i++) n /= 1000;
  return `${n.toFixed(i ? 1 : 0)} ${units[i]}`;
}

function header(): string {
  const stats = answer.statistics ?? {};
  const parts = [
    `<span class="badge ${escape(answer.state ?? "")}">${escape(answer.state ?? "unknown state")}</span>`,
    `<span>scanned <b>${bytes(stats.data_scanned_bytes)}</b></span>`,
    stats.cost_usd !== undefined ? `<span>cost <b>$${Number(stats.cost_usd).toFixed(6)}</b></span>` : "",
    answer.workgroup ? `<span>workgroup <b>${escape(answer.workgroup)}</b>${answer.cutoff_bytes
      ? ` <span class="muted">(cutoff ${bytes(answer.cutoff_bytes)})</span>` : ""}</span>` : "",
    stats.total_ms !== undefined && stats.total_ms !== null ? `<span class="muted">${stats.total_ms} ms</span>` : "",
  ];
  return `<header>${parts.join("")}</header>`;
}

function cell(value: unknown, i: number, cut?: Cut): string {
  const num = numeric(i) ? " num" : "";
  if (value === null || value === undefined) return `<td class="null${num}">NULL</td>`;
  const text = rawText(value);
  if (cut) {
    return `<td class="cut" title="${escape(`cut to ${cut.kept_length.toLocaleString("en")} of `
      + `${cut.original_length.toLocaleString("en")} characters`)}"><span class="badge unknown">cut</span> `
      + `${escape(text.slice(0, LONG_CELL))}…</td>`;
  }
  if (text === "") return `<td class="empty"></td>`;
  const shown = formats[i]?.show(value) ?? text;
  const long = shown.length > LONG_CELL;
  const title = shown !== text || long ? ` title="${escape(text)}"` : "";
  return `<td class="${num.trim()}${long ? " long" : ""}"${title}>${escape(long ? `${shown.slice(0, LONG_CELL)}…` : shown)}</td>`;
}

const rowsHtml = (list: unknown[][], from: number, to: number): string => list.slice(from, to).map((row, r) =>
  `<tr data-row="${from + r}">${row.map((value, i) => cell(value, i, cuts.get(row)?.get(i))).join("")}</tr>`).join("");

function table(list: unknown[][], upTo: number): string {
  const heads = columns.map((c, i) => {
    const sorted = sort?.column === i ? ` aria-sort="${sort.descending ? "descending" : "ascending"}"` : "";
    return `<th data-column="${i}" class="${numeric(i) ? "num" : ""}"${sorted}>${escape(c.name)}`
      + `<small>${escape(c.type ?? "?")}</small></th>`;
  }).join("");
  const body = rowsHtml(list, 0, upTo);
  return `<div class="scroll" id="rows"><table><thead><tr>${heads}</tr></thead><tbody>${body}</tbody></table></div>`;
}

function chartPart(list: unknown[][]): string {
  if (!plan || chart === "off" || measure < 0) return "";
  const width = Math.max(root().clientWidth - 24, 240); // the view's whole width, inside its padding
  return drawChart({ plan, kind: chart, measure, columns, rows: list, formats, width });
}

function toolbar(): string {
  const chartButtons = plan
    ? (["bar", "line", "off"] as Chart[]).map((kind) =>
      `<button data-chart="${kind}" aria-pressed="${chart === kind}">${kind === "off" ? "No chart" : kind === "bar" ? "Bar" : "Line"}</button>`).join("")
    : "";
  const measures = plan && plan.measures.length > 1 && chart !== "off"
    ? `<label>chart <select id="measure">${plan.measures.map((i) => `<option value="${i}"${i === measure ? " selected" : ""}>`
      + `${escape(columns[i].name)}</option>`).join("")}</select></label>` : "";
  const first = answer.results?.first_row ?? 0;
  const count = rows.length
    ? `<span class="muted" id="count">rows ${(first + 1).toLocaleString()}–${(first + rows.length).toLocaleString()}`
      + `${nextUri ? ", more to read (scroll to the end)" : ""}</span>`
    : answer.results ? `<span class="muted" id="count">no rows</span>` : "";
  const more = nextUri ? `<button id="more"${loading ? " disabled" : ""}>${loading ? "Reading…" : "Next page"}</button>` : "";
  const refresh = pending() && answer.uri ? `<button id="refresh"${loading ? " disabled" : ""}>Read the query again</button>` : "";
  // Only what this host can do: its download, else the CSV shown to select; nothing at all without rows.
  const csv = !rows.length ? "" : hostDownloads() ? `<button id="csv">Download CSV</button>`
    : `<button id="csv">Show CSV</button>`;
  const parts = count + more + refresh + csv + chartButtons + measures;
  return parts ? `<div class="bar">${parts}</div>` : "";
}

const hostDownloads = () => Boolean(app.hostCapabilities?.downloadFile);

/** Counts renders: rows still being added belong to the render that started adding them. */
let generation = 0;
let adding = false;

function render(): void {
  const list = shown();
  const before = document.getElementById("rows");
  const [top, left] = [before?.scrollTop ?? 0, before?.scrollLeft ?? 0]; // a page appended keeps the place
  // From the top, the first rows are painted first and the rest added after that paint, a batch a frame: a person
  // sees rows at once, and the page stays responsive. Scrolled down, every row is there before the place is kept.
  const upTo = top === 0 ? Math.min(FIRST_ROWS, list.length) : list.length;
  const waiting = answer.next_step ? `<p class="muted">${escape(answer.next_step)}</p>` : "";
  root().innerHTML = header() + waiting + failure() + cutNote() + (note ? `<p class="error">${escape(note)}</p>` : "")
    + toolbar() + chartPart(list) + (columns.length ? table(list, upTo) : "");
  const mine = ++generation;
  adding = upTo < list.length;
  if (adding) addRows(list, upTo, mine);
  const box = document.getElementById("rows");
  fitHeight(box);
  if (box) {
    box.scrollTop = top;
    box.scrollLeft = left;
    box.addEventListener("scroll", nearEnd, { passive: true });
  }
}

function addRows(list: unknown[][], from: number, mine: number): void {
  requestAnimationFrame(() => setTimeout(() => { // after the next paint
    const body = document.querySelector("#rows tbody");
    if (mine !== generation || !body) return;
    const to = Math.min(from + ROWS_A_FRAME, list.length);
    body.insertAdjacentHTML("beforeend", rowsHtml(list, from, to));
    adding = to < list.length;
    if (adding) addRows(list, to, mine);
    else fitHeight(document.getElementById("rows"));
  }));
}

/** Scrolling to (near) the end of the rows reads the next page. A scroll position, not an observer on a zero-height
 * sentinel: at the very bottom such a sentinel can sit a fraction of a pixel below the box and never intersect. */
function nearEnd(event: Event): void {
  const box = event.currentTarget as HTMLElement;
  if (nextUri && !loading && !adding && box.scrollTop + box.clientHeight >= box.scrollHeight - NEAR_END) void readPage(nextUri, true);
}

/** Why the query failed or stopped, Athena's reason, and what to do (the error's details). */
function failure(): string {
  const error = answer.error;
  if (!error) return "";
  const details: string[] = Array.isArray(error.details) ? error.details : [];
  return `<section class="detail" id="failure"><p class="error">${escape(error.message ?? "The query failed")}</p>`
    + (details.length ? `<ul>${details.map((d) => `<li>${escape(d)}</li>`).join("")}</ul>` : "") + "</section>";
}

function cutNote(): string {
  const count = [...cuts.values()].reduce((n, cut) => n + cut.size, 0);
  if (!count) return "";
  const file = answer.results?.whole_values_file;
  return `<p class="muted" id="cut-note">${count === 1 ? "1 value was" : `${count} values were`} cut to fit the answer `
    + `(marked cut; the CSV has them cut too)${file ? `: every value whole is in <code>${escape(file)}</code>` : ""}</p>`;
}

function showError(payload: Json): void {
  root().innerHTML = `<p class="error">${escape(errorLine(payload))}</p>`;
}

async function readPage(uri: string, append: boolean): Promise<void> {
  if (loading) return;
  loading = true;
  note = "";
  render();
  try {
    const page = payloadOf(await app.readServerResource({ uri }));
    if (append) {
      const results = page.results ?? {};
      rows = rows.concat(results.rows ?? []);
      markCuts(results);
      nextUri = results.next_uri ?? null;
      plan = planOf(columns, rows);
      if (!plan) chart = "off";
    } else {
      take(page);
    }
  } catch (error) {
    note = `Could not read ${uri}: ${(error as Error).message}`;
  } finally {
    loading = false;
    render();
  }
}

async function download(): Promise<void> {
  const name = `query-${answer.execution_id ?? "results"}.csv`;
  const text = csvOf(columns, shown());
  if (hostDownloads()) {
    try {
      const done = await app.downloadFile({ contents: [{ type: "resource",
        resource: { uri: `file:///${name}`, mimeType: "text/csv", text } }] });
      if (!(done as { isError?: boolean })?.isError) return;
    } catch {
      // The host refused or failed: the box below still gives the CSV.
    }
  }
  showBox(text, `${name}, to select and copy:`);
}

document.addEventListener("click", (event) => {
  const target = event.target as HTMLElement;
  const th = target.closest("th[data-column]") as HTMLElement | null;
  const button = target.closest("button") as HTMLButtonElement | null;
  if (th) {
    const column = Number(th.dataset.column);
    sort = sort?.column === column ? (sort.descending ? null : { column, descending: true }) : { column, descending: false };
    render();
  } else if (button?.dataset.chart) {
    chart = button.dataset.chart as Chart;
    render();
  } else if (button?.id === "more" && nextUri) {
    void readPage(nextUri, true);
  } else if (button?.id === "refresh" && answer.uri) {
    void readPage(answer.uri, false);
  } else if (button?.id === "csv") {
    void download();
  } else if (target.closest("td")) {
    const td = target.closest("td") as HTMLTableCellElement;
    const row = shown()[Number((td.parentElement as HTMLElement).dataset.row)];
    void copy(rawText(row?.[td.cellIndex]), columns[td.cellIndex]?.name ?? "value");
  }
});

document.addEventListener("change", (event) => {
  const target = event.target as HTMLSelectElement;
  if (target.id === "measure") {
    measure = Number(target.value);
    render();
  }
});

// The chart takes the view's whole width: drawn again when the host resizes the frame.
let resized = 0;
let drawnWidth = window.innerWidth;
window.addEventListener("resize", () => {
  clearTimeout(resized);
  resized = window.setTimeout(() => {
    if (window.innerWidth === drawnWidth) return; // the host fitting the frame's height to the view: nothing to redraw
    drawnWidth = window.innerWidth;
    if (plan && chart !== "off") render();
  }, 150);
});

// Cells say they copy only where the host lets the view copy; elsewhere a click shows the value to select.
document.documentElement.classList.toggle("no-copy", !canCopy());
