import type { Fortune } from "../../examples/techempower/seed-data.ts";

/**
 * The fortunes page reduced to a canonical string, the way TechEmpower's `FortuneHTMLParser`
 * does: tags as `<name>` / `</name>` (lower case, attributes dropped), whitespace-only text
 * dropped, character references decoded and the text escaped again in one fixed way. Two pages
 * that a browser shows alike compare equal; a `<` left unescaped in a message becomes a tag and
 * does not. Linear in the page: one pass, no regular expression over it.
 */
export function normaliseFortunesHtml(html: string): string {
  const parts: string[] = [];
  let index = 0;
  while (index < html.length) {
    const open = html.indexOf("<", index);
    const textEnd = open < 0 ? html.length : open;
    if (textEnd > index) pushText(parts, html.slice(index, textEnd));
    if (open < 0) break;
    const close = html.indexOf(">", open);
    if (close < 0) {
      pushText(parts, html.slice(open));
      break;
    }
    parts.push(canonicalTag(html.slice(open + 1, close)));
    index = close + 1;
  }
  return parts.join("");
}

/** The canonical page TechEmpower expects for these rows (already sorted, the added one in). */
export function expectedFortunesHtml(rows: readonly Fortune[]): string {
  const cells = rows.map(
    (row) => `<tr><td>${row.id}</td><td>${escapeCanonical(row.message)}</td></tr>`,
  );
  return (
    "<!doctype html><html><head><title>Fortunes</title></head><body><table>" +
    `<tr><th>id</th><th>message</th></tr>${cells.join("")}</table></body></html>`
  );
}

function canonicalTag(inside: string): string {
  if (inside.startsWith("!")) return `<${inside.toLowerCase()}>`;
  const closing = inside.startsWith("/");
  const body = closing ? inside.slice(1) : inside;
  let end = 0;
  while (end < body.length && !" \t\r\n/".includes(body[end]!)) end++;
  const name = body.slice(0, end).toLowerCase();
  return closing ? `</${name}>` : `<${name}>`;
}

function pushText(parts: string[], raw: string): void {
  if (raw.trim() === "") return;
  parts.push(escapeCanonical(decodeReferences(raw)));
}

const namedReferences: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  mdash: "—",
  nbsp: "\u00a0",
};

/** Decodes `&name;`, `&#NN;` and `&#xHH;`; anything else is left as it stands. */
function decodeReferences(text: string): string {
  let out = "";
  let index = 0;
  while (index < text.length) {
    const amp = text.indexOf("&", index);
    if (amp < 0) {
      out += text.slice(index);
      break;
    }
    out += text.slice(index, amp);
    const semicolon = text.indexOf(";", amp);
    const reference = semicolon < 0 || semicolon - amp > 10 ? "" : text.slice(amp + 1, semicolon);
    const decoded = decodeReference(reference);
    if (decoded === undefined) {
      out += "&";
      index = amp + 1;
    } else {
      out += decoded;
      index = semicolon + 1;
    }
  }
  return out;
}

function decodeReference(reference: string): string | undefined {
  if (reference.startsWith("#x") || reference.startsWith("#X")) {
    const code = Number.parseInt(reference.slice(2), 16);
    return /^[0-9a-f]+$/i.test(reference.slice(2)) ? String.fromCodePoint(code) : undefined;
  }
  if (reference.startsWith("#")) {
    const code = Number(reference.slice(1));
    return /^\d+$/.test(reference.slice(1)) ? String.fromCodePoint(code) : undefined;
  }
  return namedReferences[reference];
}

function escapeCanonical(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&apos;");
}
