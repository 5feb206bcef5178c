import type { TemplateCache } from "mustache";

/**
 * Mustache's parse cache with a fixed number of entries. A Writer caches every string it parses,
 * and at render time it also parses strings the set never saw (a partial re-indented for a
 * standalone `{{> name}}` line, the text a lambda section renders): with the stock cache, a lambda
 * rendering ever-new strings grows memory without bound. Here the entries stop at `capacity`, and
 * later strings are parsed on each use instead of cached.
 */
export class BoundedTemplateCache implements TemplateCache {
  readonly #capacity: number;
  #entries = new Map<string, string>();

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(cacheKey: string): string | undefined {
    return this.#entries.get(cacheKey);
  }

  set(cacheKey: string, value: string): void {
    if (this.#entries.size < this.#capacity) this.#entries.set(cacheKey, value);
  }

  clear(): void {
    this.#entries = new Map();
  }
}
