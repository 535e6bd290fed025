// The query results view's chart: drawn only where it answers something, a category or time column against a
// measure on a result that looks aggregated (one row per category), never an identifier as the category. Readable
// axes: nice ticks, titles, as many labels as fit, numbers written as the table writes them, the full width.
import { type Column, type Formatter, isIdentifier, isNumeric, isTime, shortTime } from "./format";
import { escape } from "./common";

export type Kind = "bar" | "line";
export type Plan = { x: number; measures: number[]; kind: Kind };

/** Past this many rows a result is not a summary: no chart. */
const MOST_ROWS = 500;
/** Bars past this many are too thin to read: the chart shows the first ones and says so. */
const MOST_BARS = 60;

/** What the rows can be charted as, or null: the category is a time column (a line) or a text column (bars) whose
 * values are all different (one row per category: grouped), not named as an identifier, in a result with no key
 * column that is unique (a listing); the measures are the numeric columns that are not identifiers either. */
export function planOf(columns: Column[], rows: unknown[][]): Plan | null {
  if (rows.length < 2 || rows.length > MOST_ROWS) return null;
  const measures = columns.map((c, i) => i).filter((i) => isNumeric(columns[i]) && !isIdentifier(columns[i])
    && rows.some((row) => row[i] !== null && row[i] !== undefined));
  if (!measures.length) return null;
  const unique = (i: number) => new Set(rows.map((row) => String(row[i]))).size === rows.length;
  // A listing of entities, one row per key (an order_id on every row), is not a summary, whatever else it holds.
  if (columns.some((c, i) => isIdentifier(c) && unique(i))) return null;
  const category = (i: number) => !isNumeric(columns[i]) && !isIdentifier(columns[i])
    && /^(varchar|char|string|date|timestamp|boolean)/i.test(columns[i].type ?? "varchar") && unique(i);
  // The first such column: a GROUP BY's keys come first (a later time column is an aggregate, max(order_ts)).
  const x = columns.findIndex((c, i) => category(i));
  if (x < 0) return null;
  return { x, measures, kind: isTime(columns[x], rows.map((row) => row[x])) ? "line" : "bar" };
}

/** Ticks at 1, 2 or 5 times a power of ten covering [low, high], about `count` of them. */
export function niceTicks(low: number, high: number, count = 5): number[] {
  if (low === high) high = low + 1;
  const raw = (high - low) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) as number;
  const ticks: number[] = [];
  for (let t = Math.floor(low / step) * step; t <= high + step * 1e-9; t += step) ticks.push(Number(t.toPrecision(12)));
  if (ticks[ticks.length - 1] < high) ticks.push(ticks[ticks.length - 1] + step);
  return ticks;
}

type Drawing = { plan: Plan; kind: Kind; measure: number; columns: Column[]; rows: unknown[][];
  formats: Formatter[]; width: number };

/** The chart as SVG, `width` px wide (the view's own width), with its caption when it shows fewer rows than the
 * page has. */
export function drawChart({ plan, kind, measure, columns, rows, formats, width }: Drawing): string {
  const drawn = rows.filter((row) => row[measure] !== null && row[measure] !== undefined);
  const points = kind === "bar" ? drawn.slice(0, MOST_BARS) : drawn;
  const values = points.map((row) => Number(row[measure]));
  const ticks = niceTicks(Math.min(0, ...values), Math.max(0, ...values));
  const [low, high] = [ticks[0], ticks[ticks.length - 1]];
  const tickText = (v: number) => formats[measure].show(v) ?? String(v);
  const labelWidth = Math.max(...ticks.map((t) => tickText(t).length)) * 6.5;
  const [h, top, bottom, left, right] = [260, 12, 44, Math.ceil(labelWidth) + 30, 12];
  const plotW = Math.max(width - left - right, 60);
  const plotH = h - top - bottom;
  const y = (v: number) => top + plotH - ((v - low) / (high - low)) * plotH;
  const step = plotW / Math.max(points.length, 1);
  const cx = (i: number) => left + i * step + step / 2;
  const grid = ticks.map((t) => `<line class="grid" x1="${left}" x2="${left + plotW}" y1="${y(t)}" y2="${y(t)}"/>`
    + `<text x="${left - 6}" y="${y(t) + 3}" text-anchor="end">${escape(tickText(t))}</text>`).join("");
  const fits = Math.max(1, Math.floor(plotW / 84));
  const every = Math.ceil(points.length / fits);
  const name = (row: unknown[]) => {
    const value = row[plan.x];
    return value === null || value === undefined ? "NULL" : formats[plan.x].show(value) ?? String(value);
  };
  const times = formats[plan.x].kind === "time";
  const years = times && new Set(points.map((row) => String(row[plan.x]).slice(0, 4))).size > 1;
  const labels = points.map((row, i) => {
    if (i % every) return "";
    const full = (times ? shortTime(row[plan.x], years) : null) ?? name(row);
    const short = full.length > 13 ? `${full.slice(0, 12)}…` : full;
    return `<text class="x-label" x="${cx(i)}" y="${top + plotH + 14}" text-anchor="middle">${escape(short)}</text>`;
  }).join("");
  const tip = (row: unknown[], v: number) => `<title>${escape(name(row))}: ${escape(tickText(v))}</title>`;
  const marks = kind === "bar"
    ? values.map((v, i) => `<rect class="mark" x="${left + i * step + step * 0.1}" y="${Math.min(y(v), y(0))}" `
      + `width="${Math.max(step * 0.8, 1)}" height="${Math.abs(y(0) - y(v))}">${tip(points[i], v)}</rect>`).join("")
    : `<path class="mark" d="${values.map((v, i) => `${i ? "L" : "M"}${cx(i)},${y(v)}`).join("")}"/>`
      + (points.length <= 120 ? values.map((v, i) => `<circle class="dot" cx="${cx(i)}" cy="${y(v)}" r="3">`
        + `${tip(points[i], v)}</circle>`).join("") : "");
  const [xName, yName] = [columns[plan.x].name, columns[measure].name];
  const titles = `<text class="axis-title" x="${left + plotW / 2}" y="${h - 6}" text-anchor="middle">${escape(xName)}</text>`
    + `<text class="axis-title" transform="translate(12 ${top + plotH / 2}) rotate(-90)" text-anchor="middle">`
    + `${escape(yName)}</text>`;
  const caption = points.length < rows.length
    ? `<p class="muted" id="chart-note">The chart shows the first ${points.length} of ${rows.length} rows.</p>` : "";
  return `<figure id="chart"><svg width="${width}" height="${h}" viewBox="0 0 ${width} ${h}" role="img" `
    + `aria-label="${escape(yName)} by ${escape(xName)}">${grid}`
    + `<line class="axis" x1="${left}" x2="${left + plotW}" y1="${y(0)}" y2="${y(0)}"/>${marks}${labels}${titles}</svg>`
    + `${caption}</figure>`;
}
