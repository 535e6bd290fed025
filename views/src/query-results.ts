// The query results view: an athena_query answer (or an athena://queries/{id} page) as a typed table with its
// header, further pages read through the host, and a chart where the result has a category or time column and a
// numeric one. Reads the answer's fields where present and leaves out what is missing.
import { type Json, connect, copy, errorLine, escape, payloadOf, root } from "./common";

type Column = { name: string; type: string | null };
type Chart = "bar" | "line" | "off";
type Cut = { row: number; column: string; original_length: number; kept_length: number };

const NUMERIC = /^(tinyint|smallint|int|integer|bigint|real|double|float|decimal)/i;
const TIME = /^(date|timestamp|time)/i;
const TEXT = /^(varchar|char|string|boolean)/i;
const CHART_POINTS = 60;

let answer: Json = {};
let columns: Column[] = [];
let rows: unknown[][] = [];
let cuts = new Map<unknown[], Map<number, Cut>>(); // values cut to fit an answer, by row (survives sorting)
let nextUri: string | null = null;
let sort: { column: number; descending: boolean } | null = null;
let chart: Chart = "off";
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
  chart = chartable() ? (TIME.test(columns[chartable()!.x].type ?? "") ? "line" : "bar") : "off";
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

const numeric = (i: number) => NUMERIC.test(columns[i]?.type ?? "");

function chartable(): { x: number; y: number } | null {
  const x = columns.findIndex((c) => TIME.test(c.type ?? "") || TEXT.test(c.type ?? ""));
  const y = columns.findIndex((_, i) => numeric(i));
  return x >= 0 && y >= 0 && rows.length > 1 ? { x, y } : null;
}

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
  const text = typeof value === "object" ? JSON.stringify(value) : String(value);
  if (cut) {
    return `<td class="cut" title="${escape(`cut to ${cut.kept_length.toLocaleString("en")} of `
      + `${cut.original_length.toLocaleString("en")} characters`)}"><span class="badge unknown">cut</span> ${escape(text)}</td>`;
  }
  return text === "" ? `<td class="empty"></td>` : `<td class="${num.trim()}">${escape(text)}</td>`;
}

function table(list: unknown[][]): string {
  const heads = columns.map((c, i) => {
    const sorted = sort?.column === i ? ` aria-sort="${sort.descending ? "descending" : "ascending"}"` : "";
    return `<th data-column="${i}" class="${numeric(i) ? "num" : ""}"${sorted}>${escape(c.name)}`
      + `<small>${escape(c.type ?? "?")}</small></th>`;
  }).join("");
  const body = list.map((row, r) => `<tr data-row="${r}">${row.map((value, i) => cell(value, i, cuts.get(row)?.get(i)))
    .join("")}</tr>`).join("");
  return `<div class="scroll"><table><thead><tr>${heads}</tr></thead><tbody>${body}</tbody></table>`
    + `<div id="more-sentinel"></div></div>`;
}

function drawChart(list: unknown[][]): string {
  const axes = chartable();
  if (!axes || chart === "off") return "";
  const points = list.filter((row) => row[axes.y] !== null).slice(0, CHART_POINTS);
  const values = points.map((row) => Number(row[axes.y]));
  const top = Math.max(...values, 0) || 1;
  const [w, h, left, bottom] = [720, 220, 48, 36];
  const step = (w - left) / Math.max(points.length, 1);
  const y = (v: number) => h - bottom - (v / top) * (h - bottom - 10);
  const labels = points.map((row, i) => i % Math.ceil(points.length / 8) ? "" :
    `<text x="${left + i * step + step / 2}" y="${h - bottom + 14}" text-anchor="middle">`
    + `${escape(String(row[axes.x] ?? "NULL")).slice(0, 12)}</text>`).join("");
  const marks = chart === "bar"
    ? values.map((v, i) => `<rect class="mark" x="${left + i * step + 1}" y="${y(v)}" width="${Math.max(step - 2, 1)}"`
      + ` height="${h - bottom - y(v)}"><title>${escape(String(points[i][axes.x]))}: ${v}</title></rect>`).join("")
    : `<path class="mark" d="${values.map((v, i) => `${i ? "L" : "M"}${left + i * step + step / 2},${y(v)}`).join("")}"/>`;
  return `<svg viewBox="0 0 ${w} ${h}" role="img" aria-label="${escape(columns[axes.y].name)} by ${escape(columns[axes.x].name)}">`
    + `<line x1="${left}" y1="${h - bottom}" x2="${w}" y2="${h - bottom}"/>`
    + `<text x="${left - 4}" y="14" text-anchor="end">${top.toLocaleString()}</text>`
    + `<text x="${left - 4}" y="${h - bottom}" text-anchor="end">0</text>${marks}${labels}</svg>`;
}

function toolbar(): string {
  const chartButtons = chartable()
    ? (["bar", "line", "off"] as Chart[]).map((kind) =>
      `<button data-chart="${kind}" aria-pressed="${chart === kind}">${kind === "off" ? "No chart" : kind === "bar" ? "Bar" : "Line"}</button>`).join("")
    : "";
  const first = answer.results?.first_row ?? 0;
  const count = `<span class="muted" id="count">rows ${rows.length ? first + 1 : 0}–${first + rows.length}${nextUri ? ", more to read" : ""}</span>`;
  const more = nextUri ? `<button id="more"${loading ? " disabled" : ""}>${loading ? "Reading…" : "Next page"}</button>` : "";
  const refresh = pending() && answer.uri ? `<button id="refresh"${loading ? " disabled" : ""}>Read the query again</button>` : "";
  return `<div class="bar">${count}${more}${refresh}<button id="csv"${rows.length ? "" : " disabled"}>Download CSV</button>${chartButtons}</div>`;
}

function render(): void {
  const list = shown();
  const waiting = answer.next_step ? `<p class="muted">${escape(answer.next_step)}</p>` : "";
  root().innerHTML = header() + waiting + failure() + cutNote() + (note ? `<p class="error">${escape(note)}</p>` : "")
    + toolbar() + drawChart(list) + (columns.length ? table(list) : "");
  watchScroll();
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

function csv(): string {
  const field = (v: unknown) => {
    const text = v === null || v === undefined ? "" : typeof v === "object" ? JSON.stringify(v) : String(v);
    return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return [columns.map((c) => c.name), ...shown()].map((row) => row.map(field).join(",")).join("\r\n") + "\r\n";
}

async function download(): Promise<void> {
  const name = `query-${answer.execution_id ?? "results"}.csv`;
  if (app.getHostCapabilities()?.downloadFile) {
    await app.downloadFile({ contents: [{ type: "resource", resource: { uri: `file:///${name}`, mimeType: "text/csv", text: csv() } }] });
  } else {
    const link = Object.assign(document.createElement("a"), { download: name,
      href: `data:text/csv;charset=utf-8,${encodeURIComponent(csv())}` });
    link.click();
  }
}

let observer: IntersectionObserver | null = null;
function watchScroll(): void {
  observer?.disconnect();
  const sentinel = document.getElementById("more-sentinel");
  if (!sentinel || !nextUri) return;
  observer = new IntersectionObserver((seen) => {
    if (seen.some((entry) => entry.isIntersecting) && nextUri && rows.length) void readPage(nextUri, true);
  }, { root: sentinel.parentElement });
  // Only once the person has scrolled: a short first page must not read every page at once.
  sentinel.parentElement?.addEventListener("scroll", () => observer && sentinel && observer.observe(sentinel), { once: true });
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
  } else if (target.tagName === "TD") {
    const row = shown()[Number((target.parentElement as HTMLElement).dataset.row)];
    const value = row?.[(target as HTMLTableCellElement).cellIndex];
    void copy(value === null || value === undefined ? "" : typeof value === "object" ? JSON.stringify(value) : String(value));
  }
});
