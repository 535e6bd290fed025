// The access view: permissions://discover (and the permissions:// explainers, a list of checks each with its
// verdict, evidence and fix) as a matrix of resources x actions; a cell shows its evidence and the fix to copy.
import { type Json, connect, copy, errorLine, escape, root } from "./common";

type Verdict = "allowed" | "denied" | "unknown";
type Check = { resource: string; action: string; verdict: Verdict; evidence: string[]; fix: string | null };

// discover's checks per bucket: its evidence key, the S3 action it tried, and what a grant of it is on.
const DISCOVER_ACTIONS: [string, string, string][] = [
  ["location", "s3:GetBucketLocation", ""], ["list", "s3:ListBucket", ""], ["read", "s3:GetObject", "/*"],
  ["simulate_write", "s3:PutObject", "/*"],
];

let checks: Check[] = [];
let head = "";
let picked = -1;

connect("aws-data-mcp access", (payload, isError) => {
  if (isError) {
    root().innerHTML = `<p class="error">${escape(errorLine(payload))}</p>`;
    return;
  }
  checks = Array.isArray(payload.buckets) ? fromDiscover(payload) : fromExplainer(payload);
  head = `<header><b>${escape(payload.principal_arn ?? payload.uri ?? "Access")}</b>`
    + (payload.levels ? Object.entries(payload.levels).map(([level, n]) =>
      `<span class="muted">${escape(level)}: ${n}</span>`).join("") : "") + "</header>";
  picked = checks.findIndex((check) => check.verdict === "denied");
  render();
});

function verdictOf(value: unknown): Verdict {
  const text = String(value ?? "").toLowerCase();
  if (text === "ok" || text === "allowed" || text === "allow") return "allowed";
  if (text.includes("deny") || text === "denied") return "denied";
  return "unknown";
}

function grant(action: string, arn: string): string {
  return JSON.stringify({ Effect: "Allow", Action: action, Resource: arn }, null, 2);
}

function fromDiscover(payload: Json): Check[] {
  return (payload.buckets as Json[]).flatMap((bucket) => DISCOVER_ACTIONS.map(([key, action, suffix]) => {
    const raw = key === "simulate_write" ? bucket.write : bucket.evidence?.[key];
    const verdict = verdictOf(raw);
    const errors = (bucket.errors ?? []).filter((e: Json) => !e.action || e.action === action)
      .map((e: Json) => `${e.error ?? "error"}: ${e.message ?? ""}`);
    const evidence = [`${action}: ${raw ?? "not checked"}`, ...errors,
      ...Object.entries(bucket.evidence ?? {}).filter(([k]) => k !== key).map(([k, v]) => `${k}: ${v}`)];
    const fix = verdict === "denied"
      ? `Add to the caller's IAM policy (and allow it in the bucket policy, if it has one):\n`
        + grant(action, `arn:aws:s3:::${bucket.bucket}${suffix}`)
      : null;
    return { resource: bucket.bucket, action, verdict, evidence, fix };
  }));
}

function fromExplainer(payload: Json): Check[] {
  const list: Json[] = payload.checks ?? payload.links ?? [];
  return list.map((item) => ({
    resource: String(item.resource ?? payload.table ?? payload.bucket ?? payload.uri ?? "resource"),
    action: String(item.check ?? item.action ?? "check"),
    verdict: verdictOf(item.verdict),
    evidence: ([] as unknown[]).concat(item.evidence ?? []).map((e) => typeof e === "string" ? e : JSON.stringify(e)),
    fix: item.fix ? (typeof item.fix === "string" ? item.fix : JSON.stringify(item.fix, null, 2)) : null,
  }));
}

function render(): void {
  const resources = [...new Set(checks.map((c) => c.resource))];
  const actions = [...new Set(checks.map((c) => c.action))];
  const cells = (resource: string) => actions.map((action) => {
    const i = checks.findIndex((c) => c.resource === resource && c.action === action);
    if (i < 0) return "<td></td>";
    const verdict = checks[i].verdict;
    return `<td data-check="${i}" class="${i === picked ? "picked" : ""}" title="${escape(`${resource}: ${action}`)}">`
      + `<span class="badge ${verdict}">${verdict}</span></td>`;
  }).join("");
  const matrix = `<div class="scroll"><table class="matrix"><thead><tr><th>resource</th>${actions.map((a) =>
    `<th>${escape(a)}</th>`).join("")}</tr></thead><tbody>${resources.map((r) =>
    `<tr><th>${escape(r)}</th>${cells(r)}</tr>`).join("")}</tbody></table></div>`;
  root().innerHTML = head + (checks.length ? matrix : `<p class="muted">No checks in this answer.</p>`) + detail();
}

function detail(): string {
  const check = checks[picked];
  if (!check) return "";
  return `<section class="detail" id="detail"><b>${escape(check.resource)}</b> · ${escape(check.action)} · `
    + `<span class="badge ${check.verdict}">${check.verdict}</span>`
    + `<ul>${check.evidence.map((e) => `<li>${escape(e)}</li>`).join("")}</ul>`
    + (check.fix ? `<div class="bar"><b>Fix</b><button id="copy-fix">Copy</button></div><pre id="fix">${escape(check.fix)}</pre>` : "")
    + "</section>";
}

document.addEventListener("click", (event) => {
  const target = event.target as HTMLElement;
  const cell = target.closest("td[data-check]") as HTMLElement | null;
  if (cell) {
    picked = Number(cell.dataset.check);
    render();
  } else if (target.id === "copy-fix" && checks[picked]?.fix) {
    void copy(checks[picked].fix as string);
  }
});
