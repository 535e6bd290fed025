// The access view. permissions://discover: a matrix of buckets x actions. A permissions:// explainer (a table's or a
// bucket's chain of links, each with its verdict, evidence and fix): the chain, link by link, grouped as the answer
// groups it. Either way a click on a verdict shows its evidence and the fix to copy, and who applies it; a bucket of
// discover's opens its explainer, read through the host.
import { type Json, canCopy, connect, copy, errorLine, escape, fitHeight, payloadOf, root } from "./common";

type Verdict = "allowed" | "denied" | "unknown";
/** A fix as the person copies it: what it is and who applies it, then each text to copy. */
type Fix = { title: string; parts: { label: string; text: string }[] };
type Check = {
  group: string; resource: string; action: string; verdict: Verdict; evidence: string[]; settle: string | null;
  fixes: Fix[]; governedBy: string | null; explain: string | null;
};

// discover's checks per bucket: its evidence key, the S3 action it tried, and what a grant of it is on.
const DISCOVER_ACTIONS: [string, string, string][] = [
  ["location", "s3:GetBucketLocation", ""], ["list", "s3:ListBucket", ""], ["read", "s3:GetObject", "/*"],
  ["simulate_write", "s3:PutObject", "/*"],
];
/** Evidence keys as the words of a sentence: what was checked. */
const CHECKED: Record<string, string> = {
  location: "Asking for the bucket's region (s3:GetBucketLocation)", list: "Listing the bucket (s3:ListBucket)",
  read: "Reading an object (s3:GetObject)", simulate_write: "IAM's simulator, asked about writing (s3:PutObject),",
  bucket_policy: "The bucket policy", key_policy: "The KMS key policy", prefix: "The prefix checked",
  objects_seen: "Objects seen in the listing", registered_location: "The Lake Formation registered location",
  answered: "The answer came from", grants: "The Lake Formation grants to the caller", error: "The check",
  object: "The object read", object_encryption: "The object's encryption", bucket_default: "The bucket's default encryption",
  public_access_block: "The public access block", ownership: "Object ownership", workgroup: "The workgroup",
  result_location: "The query results location", results_encryption: "The results encryption", cutoff_bytes: "The scan cutoff",
};
/** What a check's outcome word means, said plainly. */
const OUTCOMES: Record<string, string> = {
  ok: "was allowed", allowed: "allowed it", denied: "was denied", explicit_deny: "found an explicit Deny",
  implicit_deny: "found no Allow (an implicit deny)", unavailable: "could not be asked", none: "does not exist",
  read: "was read", unreadable: "could not be read", not_checked: "was not checked", unknown: "is unknown",
};
const LEVELS: Record<string, string> = {
  write: "you can write to", read: "you can read", list: "you can only list", none: "you can reach none of",
};

/** One evidence entry as a sentence a person reads: what was checked and what came of it. */
function sentence(key: string, value: unknown): string {
  if (key === "simulated_with_bucket_policy") {
    return value ? "The write simulation weighed the bucket policy as well as the caller's IAM policies."
      : "The write simulation weighed only the caller's IAM policies, not the bucket policy.";
  }
  const subject = CHECKED[key] ?? `${key.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase())}`;
  if (value && typeof value === "object" && "error" in value) {
    const error = value as Json;
    return `${subject} failed (${String(error.error).replace(/_/g, " ")}): ${error.message ?? ""}`.trim();
  }
  if (typeof value === "boolean") return `${subject}: ${value ? "yes" : "no"}.`;
  if (value === null || value === undefined) return `${subject}: none.`;
  if (typeof value === "string" && OUTCOMES[value]) return `${subject} ${OUTCOMES[value]}.`;
  if (typeof value === "number") return `${subject}: ${value.toLocaleString()}.`;
  return `${subject}: ${typeof value === "object" ? JSON.stringify(value) : String(value)}.`;
}

const KINDS: Record<string, string> = {
  identity_policy: "the caller's IAM policy", bucket_policy: "the bucket policy", key_policy: "the KMS key policy",
  group_policy: "an IAM group's policy", permissions_boundary: "the permissions boundary",
  lake_formation_grant: "a Lake Formation grant", workgroup: "the workgroup's settings",
};

let checks: Check[] = [];
let head = "";
let summary = "";
let chain = false;
let picked = -1;
let shown: Json = {};
let discovered: Json | null = null; // discover's answer, while one of its buckets' explainer is shown

const app = connect("aws-data-mcp access", (payload, isError) => {
  discovered = null;
  show(payload, isError);
});

function show(payload: Json, isError: boolean): void {
  if (isError) {
    root().innerHTML = `<p class="error">${escape(errorLine(payload))}</p>`;
    return;
  }
  shown = payload;
  chain = Array.isArray(payload.links);
  checks = chain ? fromExplainer(payload) : fromDiscover(payload);
  summary = typeof payload.summary === "string" ? `<p id="summary">${escape(payload.summary)}</p>` : "";
  head = chain ? explainerHead(payload) : `<header><b>${escape(payload.principal_arn ?? "Access")}</b></header>`
    + levelsLegend(payload.levels ?? {});
  const denied = checks.findIndex((check) => check.verdict === "denied");
  picked = denied >= 0 ? denied : checks.findIndex((check) => check.verdict === "unknown");
  render();
}

async function explain(uri: string, from: Json): Promise<void> {
  try {
    const result = await app.readServerResource({ uri });
    discovered = from;
    show(payloadOf(result), false);
  } catch (error) {
    root().insertAdjacentHTML("beforeend", `<p class="error">Could not read ${escape(uri)}: ${escape((error as Error).message)}</p>`);
  }
}

function verdictOf(value: unknown): Verdict {
  const text = String(value ?? "").toLowerCase();
  if (text === "ok" || text === "allowed" || text === "allow") return "allowed";
  if (text.includes("deny") || text === "denied") return "denied";
  return "unknown";
}

/** discover's count of buckets per level, and what each verdict means, as a legend. */
function levelsLegend(levels: Record<string, number>): string {
  const total = Object.values(levels).reduce((n, count) => n + Number(count), 0);
  const parts = ["write", "read", "list", "none", ...Object.keys(levels).filter((l) => !LEVELS[l])]
    .filter((level) => levels[level]).map((level) => `<span>${escape(LEVELS[level] ?? `${level}:`)} `
      + `<b>${levels[level]}</b></span>`);
  return `<div class="legend" id="legend"><span>Of <b>${total}</b> bucket${total === 1 ? "" : "s"}:</span>${parts.join("")}</div>`
    + `<div class="legend muted">${badge("allowed")} AWS allows it ${badge("denied")} AWS refuses it `
    + `${badge("unknown")} not settled from the caller's seat (click a cell for why)</div>`;
}

const badge = (verdict: string) => `<span class="badge ${escape(verdict)}">${escape(verdict)}</span>`;
const json = (value: unknown) => JSON.stringify(value, null, 2);

function fromDiscover(payload: Json): Check[] {
  return ((payload.buckets ?? []) as Json[]).flatMap((bucket) => DISCOVER_ACTIONS.map(([key, action, suffix]) => {
    const raw = key === "simulate_write" ? bucket.write : bucket.evidence?.[key];
    const verdict = verdictOf(raw);
    const errors = (bucket.errors ?? []).filter((e: Json) => !e.action || e.action === action)
      .map((e: Json) => sentence("error", { error: e.error ?? "error", message: e.message }));
    const evidence = [sentence(key, raw ?? "not_checked"), ...errors,
      ...Object.entries(bucket.evidence ?? {}).filter(([k]) => k !== key).map(([k, v]) => sentence(k, v)),
      ...(key === "simulate_write" && bucket.write_note ? [String(bucket.write_note)] : []),
      ...(key === "read" && bucket.note ? [String(bucket.note)] : [])];
    const fixes = verdict === "denied" ? [{
      title: "Add to the caller's IAM policy (and allow it in the bucket policy, if it has one)",
      parts: [{ label: "statement", text: json({ Effect: "Allow", Action: action,
        Resource: `arn:aws:s3:::${bucket.bucket}${suffix}` }) }],
    }] : [];
    return { group: "", resource: bucket.bucket, action, verdict, evidence, settle: null, fixes, governedBy: null,
      explain: bucket.explain ?? null };
  }));
}

function fixOf(fix: Json): Fix {
  const parts = [
    // What holds the policy and what the fix changes for whom (a group's or the boundary's: shared by others).
    fix.note ? { label: fix.holder ? `held by ${fix.holder}` : "what it changes", text: String(fix.note) } : null,
    fix.command ? { label: "command", text: String(fix.command) } : null,
    fix.statement ? { label: "statement", text: json(fix.statement) } : null,
    fix.request ? { label: "request", text: json(fix.request) } : null,
    fix.removes?.length ? { label: "remove these statements (an Allow never overrides a Deny)", text: json(fix.removes) }
      : null,
    // A Deny that names others too, or everyone, is kept and changed to leave out the caller only: say which, as changed.
    fix.narrows?.length ? { label: "change these statements to leave the caller out (an Allow never overrides a Deny)",
      text: json(fix.narrows) } : null,
    fix.widens?.length ? { label: "a wildcard also stops denying the caller (narrow it by hand if it must stay)",
      text: json(fix.widens) } : null,
  ].filter((part): part is { label: string; text: string } => part !== null);
  const title = `${KINDS[fix.kind] ?? fix.kind ?? "fix"}, applied by the ${fix.apply_by ?? "administrator"}`
    + (fix.target ? ` on ${fix.target}` : "");
  return { title, parts };
}

function linkOf(group: string, link: Json): Check {
  return {
    group, resource: String(link.resource ?? ""), action: String(link.check ?? "check"), verdict: verdictOf(link.verdict),
    evidence: Object.entries(link.evidence ?? {}).map(([key, value]) => sentence(key, value)), settle: link.settle ?? null,
    fixes: ([] as Json[]).concat(link.fix ?? []).map(fixOf), governedBy: link.governed_by ?? null, explain: null,
  };
}

function fromExplainer(payload: Json): Check[] {
  const subject = payload.table ? "the table" : "the bucket";
  return [
    ...(payload.links as Json[]).map((link) => linkOf(subject, link)),
    ...Object.entries(payload.workgroups ?? {}).flatMap(([workgroup, links]) =>
      (links as Json[]).map((link) => linkOf(`workgroup ${workgroup}`, link))),
    ...((payload.unseen ?? []) as Json[]).map((link) => linkOf("not visible from the caller's seat", link)),
  ];
}

function explainerHead(payload: Json): string {
  const name = payload.table ? `${payload.database}.${payload.table}` : payload.bucket;
  const verdicts = payload.table ? `<span>query ${badge(verdictOf(payload.query))}</span>`
    : ["list", "read", "write"].map((key) => `<span>${key} ${badge(verdictOf(payload[key]))}</span>`).join("");
  const columns = payload.read_columns;
  const read = !payload.table ? "" : `<p id="read-columns">Columns the query would see: ${columns === null
    ? "<span class=\"muted\">unknown (Lake Formation's grants could not be read)</span>"
    : columns?.length ? columns.map((c: string) => `<code>${escape(c)}</code>`).join(", ")
      : "<b>none</b> (the query is denied)"}</p>`;
  return `<header><b>${escape(String(name ?? "Access"))}</b>${verdicts}`
    + (payload.decided_by ? `<span class="muted">decided by ${escape(payload.decided_by)}</span>` : "")
    + (payload.workgroup ? `<span class="muted">workgroup ${escape(payload.workgroup)}</span>` : "")
    + `<span class="muted">as ${escape(payload.principal_arn ?? "the caller")}</span>`
    + (discovered ? `<button id="back">Back to every bucket</button>` : "") + `</header>${read}`;
}

function matrix(): string {
  const resources = [...new Set(checks.map((c) => c.resource))];
  const actions = [...new Set(checks.map((c) => c.action))];
  const cells = (resource: string) => actions.map((action) => {
    const i = checks.findIndex((c) => c.resource === resource && c.action === action);
    if (i < 0) return "<td></td>";
    return `<td data-check="${i}" class="${i === picked ? "picked" : ""}" title="${escape(`${resource}: ${action}`)}">`
      + `${badge(checks[i].verdict)}</td>`;
  }).join("");
  return `<div class="scroll"><table class="matrix"><thead><tr><th>resource</th>${actions.map((a) =>
    `<th>${escape(a)}</th>`).join("")}</tr></thead><tbody>${resources.map((r) =>
    `<tr><th>${escape(r)}</th>${cells(r)}</tr>`).join("")}</tbody></table></div>`;
}

function chainTable(): string {
  const rows = checks.map((check, i) => (i === 0 || checks[i - 1].group !== check.group
    ? `<tr class="group"><th colspan="4">${escape(check.group)}</th></tr>` : "")
    + `<tr data-check="${i}" class="${i === picked ? "picked" : ""}"><td>${escape(check.action)}</td>`
    + `<td>${badge(check.verdict)}</td><td class="muted">${escape(check.resource)}</td>`
    + `<td class="muted">${escape(check.governedBy ?? "")}</td></tr>`).join("");
  return `<div class="scroll short"><table class="chain"><thead><tr><th>link</th><th>verdict</th><th>resource</th>`
    + `<th>governed by</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

function render(): void {
  const body = !checks.length ? `<p class="muted">No checks in this answer.</p>` : chain ? chainTable() : matrix();
  root().innerHTML = summary + head + body + detail();
  fitHeight(root().querySelector(".scroll"), 80); // within the host's maximum height, the detail below kept whole
}

function detail(): string {
  const check = checks[picked];
  if (!check) return "";
  const fixes = check.fixes.map((fix, f) => `<div class="fix"><b>Fix</b>: ${escape(fix.title)}`
    + fix.parts.map((part, p) => `<div class="bar"><span class="muted">${escape(part.label)}</span>`
      + `<button data-fix="${f}" data-part="${p}">${canCopy() ? "Copy" : "Select to copy"}</button></div><pre>${escape(part.text)}</pre>`).join("")
    + "</div>").join("");
  return `<section class="detail" id="detail"><b>${escape(check.resource)}</b> · ${escape(check.action)} · `
    + `${badge(check.verdict)}<ul>${check.evidence.map((e) => `<li>${escape(e)}</li>`).join("")}</ul>`
    + (check.settle ? `<p class="muted" id="settle">To settle it: ${escape(check.settle)}</p>` : "")
    + (check.explain ? `<div class="bar"><button id="explain">Explain ${escape(check.resource)}, link by link</button></div>` : "")
    + (fixes ? `<div id="fix">${fixes}</div>` : "") + "</section>";
}

document.addEventListener("click", (event) => {
  const target = event.target as HTMLElement;
  const picking = target.closest("[data-check]") as HTMLElement | null;
  if (picking) {
    picked = Number(picking.dataset.check);
    render();
  } else if (target.id === "explain" && checks[picked]?.explain) {
    void explain(checks[picked].explain as string, shown);
  } else if (target.id === "back" && discovered) {
    const from = discovered;
    discovered = null;
    show(from, false);
  } else if (target.dataset.fix !== undefined) {
    const part = checks[picked]?.fixes[Number(target.dataset.fix)]?.parts[Number(target.dataset.part)];
    if (part) void copy(part.text, part.label);
  }
});
