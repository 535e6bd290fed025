// How the query results view writes a value for a person: numbers with the locale's grouping and decimals suited
// to their column (never more than 6), dates and timestamps readable, money with its currency where the column's
// comment or a currency column says which. The value as the server sent it stays the one copied, sorted and
// written to the CSV. Also the CSV itself, with OWASP's rule against spreadsheet formulas.

export type Column = { name: string; type: string | null; comment?: string | null };
/** How one column's values are shown: `show(value)` is the person's text, or null to show the raw text. */
export type Formatter = { kind: "number" | "time" | "text"; show: (value: unknown) => string | null };

export const NUMERIC = /^(tinyint|smallint|int|integer|bigint|real|double|float|decimal)/i;
const INTEGER = /^(tinyint|smallint|int|integer|bigint)/i;
const TIME = /^(date|timestamp)/i;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_TIMESTAMP = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(?: ?(Z|UTC|[+-]\d{2}:?\d{2}))?$/;
/** Names that say a column identifies rather than measures: never grouped, summed or charted as a category. */
const IDENTIFIER = /(^|_)(id|key|uuid|guid|code|number|no)$/i;
const CAMEL_IDENTIFIER = /[a-z](Id|Key|Uuid)$/;
const MONEY = /(amount|price|total|revenue|cost|sales|spend|paid|fee|balance|usd|eur|gbp)/i;
const CURRENCY_COLUMN = /^(currency|currency_code|ccy)$/i;
const CURRENCY_IN_COMMENT = /\b(USD|EUR|GBP|JPY|CHF|CAD|AUD|SEK|NOK|DKK|INR|CNY|BRL|MXN)\b/;
export const MAX_DECIMALS = 6;

const LOCALE = typeof navigator === "undefined" ? "en" : navigator.language || "en";
const text = (value: unknown): string =>
  value === null || value === undefined ? "" : typeof value === "object" ? JSON.stringify(value) : String(value);

export const isNumeric = (column: Column) => NUMERIC.test(column.type ?? "");
export const isIdentifier = (column: Column) => IDENTIFIER.test(column.name) || CAMEL_IDENTIFIER.test(column.name);

/** Whether a column holds times: by its type, or a varchar whose every value is an ISO date or timestamp. */
export function isTime(column: Column, values: unknown[]): boolean {
  if (TIME.test(column.type ?? "")) return true;
  if (!/^(varchar|char|string)/i.test(column.type ?? "")) return false;
  const present = values.filter((v) => v !== null && v !== undefined && v !== "");
  return present.length > 0 && present.every((v) => ISO_DATE.test(String(v)) || ISO_TIMESTAMP.test(String(v)));
}

/** The currency a money column is in: its comment's ISO code, else the one code of every row's currency column. */
function currencyOf(column: Column, columns: Column[], rows: unknown[][]): string | null {
  const said = (column.comment ?? "").match(CURRENCY_IN_COMMENT);
  if (said) return said[1];
  if (!MONEY.test(column.name)) return null;
  const at = columns.findIndex((c) => CURRENCY_COLUMN.test(c.name));
  if (at < 0) return null;
  const codes = new Set(rows.map((row) => row[at]).filter((v) => v !== null && v !== undefined));
  const [only] = [...codes];
  return codes.size === 1 && /^[A-Z]{3}$/.test(String(only)) ? String(only) : null;
}

/** Decimals that suit a column's values: none for whole numbers, the type's scale for a decimal(p,s), two for
 * values of 1 and more, three significant digits below 1; never more than MAX_DECIMALS. */
function decimalsOf(column: Column, values: number[]): number {
  if (INTEGER.test(column.type ?? "") || values.every(Number.isInteger)) return 0;
  const scale = /decimal\(\s*\d+\s*,\s*(\d+)\s*\)/i.exec(column.type ?? "");
  if (scale) return Math.min(Number(scale[1]), MAX_DECIMALS);
  const sorted = values.map(Math.abs).filter((v) => v > 0).sort((a, b) => a - b);
  const typical = sorted[Math.floor(sorted.length / 2)] ?? 1;
  return typical >= 1 ? 2 : Math.min(MAX_DECIMALS, 2 - Math.floor(Math.log10(typical)));
}

const DATE = new Intl.DateTimeFormat(LOCALE, { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" });
const DATE_TIME = new Intl.DateTimeFormat(LOCALE, { year: "numeric", month: "short", day: "numeric", hour: "2-digit",
  minute: "2-digit", second: "2-digit", hourCycle: "h23", timeZone: "UTC" });

/** A date or timestamp as a person reads it; Athena's timestamps carry no zone, so none is converted. */
export function readableTime(value: unknown): string | null {
  const raw = String(value);
  if (ISO_DATE.test(raw)) return DATE.format(new Date(`${raw}T00:00:00Z`));
  const parts = ISO_TIMESTAMP.exec(raw);
  if (!parts) return null;
  const when = new Date(`${parts[1]}T${parts[2].length === 5 ? `${parts[2]}:00` : parts[2]}Z`);
  if (Number.isNaN(when.getTime())) return null;
  const zone = parts[3] ? ` ${parts[3]}` : "";
  const fraction = /\.(\d*[1-9])0*$/.exec(parts[2])?.[1];
  const shown = DATE_TIME.format(when);
  return `${shown}${fraction ? `.${fraction.slice(0, 3)}` : ""}${zone}`;
}

const SHORT_DAY = new Intl.DateTimeFormat(LOCALE, { month: "short", day: "numeric", timeZone: "UTC" });
const SHORT_TIME = new Intl.DateTimeFormat(LOCALE, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit",
  hourCycle: "h23", timeZone: "UTC" });

/** A date or timestamp as short as an axis label can be: the day ("Jan 7"), with the time where it is not midnight;
 * the year only when `years` (the labels span more than one). */
export function shortTime(value: unknown, years: boolean): string | null {
  const parts = ISO_TIMESTAMP.exec(String(value)) ?? (ISO_DATE.test(String(value)) ? [String(value), String(value), "00:00"] : null);
  if (!parts) return null;
  const when = new Date(`${parts[1]}T00:00:00Z`);
  const [hours, minutes] = parts[2].split(":").map(Number);
  if (Number.isNaN(when.getTime())) return null;
  const midnight = !hours && !minutes;
  when.setUTCHours(hours, minutes);
  const shown = (midnight ? SHORT_DAY : SHORT_TIME).format(when);
  return years ? `${shown} ${parts[1].slice(0, 4)}` : shown;
}

/** A numeric text with too many decimals (a varchar holding a computed number), cut to MAX_DECIMALS. */
const LONG_DECIMAL = /^-?\d+\.\d{7,}$/;

/** One formatter per column, fitted to the rows at hand (a page read later keeps its column's formatter). */
export function formatters(columns: Column[], rows: unknown[][]): Formatter[] {
  return columns.map((column, i) => {
    const values = rows.map((row) => row[i]);
    if (isNumeric(column)) {
      const numbers = values.filter((v) => v !== null && v !== undefined && v !== "").map(Number)
        .filter(Number.isFinite);
      const decimals = decimalsOf(column, numbers);
      const currency = currencyOf(column, columns, rows);
      const format = new Intl.NumberFormat(LOCALE, { minimumFractionDigits: decimals, maximumFractionDigits: decimals,
        useGrouping: !isIdentifier(column) && !/year/i.test(column.name),
        ...(currency ? { style: "currency", currency, currencyDisplay: "narrowSymbol" } : {}) });
      return { kind: "number", show: (v: unknown) => {
        const n = Number(v);
        return v === "" || !Number.isFinite(n) ? null : format.format(n);
      } };
    }
    if (isTime(column, values)) return { kind: "time", show: readableTime };
    return { kind: "text", show: (v: unknown) => (LONG_DECIMAL.test(text(v)) ? Number(v).toFixed(MAX_DECIMALS) : null) };
  });
}

/** One CSV field: quoted where needed, and (OWASP's CSV injection rule) a text starting with =, +, -, @, tab or CR
 * prefixed with ' so a spreadsheet shows it instead of running it. A number of a numeric column is data, kept. */
export function csvField(value: unknown, numeric: boolean): string {
  let field = text(value);
  const aNumber = numeric && field !== "" && Number.isFinite(Number(field));
  if (!aNumber && /^[=+\-@\t\r]/.test(field)) field = `'${field}`;
  return /[",\n\r]/.test(field) ? `"${field.replace(/"/g, '""')}"` : field;
}

export function csvOf(columns: Column[], rows: unknown[][]): string {
  const head = columns.map((c) => csvField(c.name, false)).join(",");
  const numeric = columns.map(isNumeric);
  return [head, ...rows.map((row) => row.map((v, i) => csvField(v, numeric[i])).join(","))].join("\r\n") + "\r\n";
}

export { text as rawText };
