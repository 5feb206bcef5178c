/** The quick start of a Markdown document: the shell and TypeScript blocks under its heading. */
export interface QuickStart {
  readonly shell: string;
  readonly code: string;
}

/** Reads the first `sh` and `ts` code blocks after the "Quick start" heading of `markdown`. */
export function quickStart(markdown: string): QuickStart {
  const start = markdown.search(/^#{2,3} Quick start$/m);
  if (start < 0) throw new Error("no Quick start heading");
  const section = markdown.slice(start);
  const block = (language: string) => {
    const match = new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, "m").exec(section);
    if (match === null) throw new Error(`no ${language} block in the quick start`);
    return match[1]!;
  };
  return { shell: block("sh"), code: block("ts") };
}
