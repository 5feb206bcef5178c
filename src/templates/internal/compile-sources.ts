import { TemplateCompileError } from "../template-errors.ts";
import type { PageWriter, TemplateToken } from "./page-writer.ts";

type SourceKind = "template" | "partial";

/**
 * Parses every template and partial once into `writer`'s cache, so rendering never meets a
 * syntax error, and checks that every `{{> name}}` names a defined partial (mustache.js would
 * render an unknown one as nothing, silently). Throws `TemplateCompileError` for the first
 * source that fails, naming it.
 */
export function compileSources(
  writer: PageWriter,
  templates: ReadonlyMap<string, string>,
  partials: Readonly<Record<string, string>>,
): void {
  const parsed: [SourceKind, string, readonly TemplateToken[]][] = [];
  for (const [name, source] of templates) {
    parsed.push(["template", name, parseSource(writer, "template", name, source)]);
  }
  for (const [name, source] of Object.entries(partials)) {
    parsed.push(["partial", name, parseSource(writer, "partial", name, source)]);
  }
  for (const [kind, name, tokens] of parsed) {
    for (const included of includedPartials(tokens)) {
      if (!Object.hasOwn(partials, included)) {
        throw new TemplateCompileError(
          kind,
          name,
          `it includes partial "${included}", which is not defined`,
        );
      }
    }
  }
  checkNoEndlessInclude(parsed);
}

/**
 * Throws when a partial includes itself, directly or through others, outside every section: it
 * would render forever, whatever the data (inside a section, as a tree's node partial includes
 * itself for each child, the data ends it).
 */
function checkNoEndlessInclude(parsed: readonly [SourceKind, string, readonly TemplateToken[]][]) {
  const always = new Map<string, string[]>();
  for (const [kind, name, tokens] of parsed) {
    if (kind === "partial") always.set(name, unconditionalPartials(tokens));
  }
  // Depth-first, each partial finished once: linear in the includes.
  const finished = new Set<string>();
  const path: string[] = [];
  const visit = (name: string): void => {
    if (finished.has(name)) return;
    const loopStart = path.indexOf(name);
    if (loopStart >= 0) {
      const loop = [...path.slice(loopStart), name].join(" > ");
      throw new TemplateCompileError(
        "partial",
        name,
        `it includes itself outside any section (${loop}), so it would render forever`,
      );
    }
    path.push(name);
    for (const included of always.get(name) ?? []) visit(included);
    path.pop();
    finished.add(name);
  };
  for (const name of always.keys()) visit(name);
}

/** The partials a token list includes outside any section. */
function unconditionalPartials(tokens: readonly TemplateToken[]): string[] {
  return tokens.filter((token) => token[0] === ">").map((token) => token[1]);
}

function parseSource(
  writer: PageWriter,
  kind: SourceKind,
  name: string,
  source: unknown,
): readonly TemplateToken[] {
  if (typeof source !== "string") {
    throw new TemplateCompileError(kind, name, `its source is ${typeof source}, not a string`);
  }
  try {
    return writer.compile(source);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    // mustache.js ends its parse errors with " at <offset>" when it knows where.
    const offset = /^(.*) at (\d+)$/s.exec(detail);
    if (offset === null) throw new TemplateCompileError(kind, name, detail);
    throw new TemplateCompileError(kind, name, offset[1]!, position(source, Number(offset[2])));
  }
}

function position(source: string, offset: number): { line: number; column: number } {
  const before = source.slice(0, offset);
  const lineStart = before.lastIndexOf("\n") + 1;
  return { line: before.split("\n").length, column: offset - lineStart + 1 };
}

/** The partial names a token tree includes, sections' bodies included. */
function* includedPartials(tokens: readonly TemplateToken[]): Generator<string> {
  for (const token of tokens) {
    if (token[0] === ">") yield token[1];
    else if (token[0] === "#" || token[0] === "^") {
      yield* includedPartials(token[4] as readonly TemplateToken[]);
    }
  }
}
