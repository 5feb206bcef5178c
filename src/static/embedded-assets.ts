import { realpathSync } from "node:fs";
import { sep } from "node:path";
import type { ContentCoding } from "../http/content-coding.ts";
import { optionNames, refuseUnknownOptions } from "../option-names.ts";
import { canonicalPath } from "../router/canonical-path.ts";
import { contentTypeFor, isCompressibleType } from "./content-types.ts";
import { MemoryFile } from "./memory-file.ts";
import { precompress } from "./precompress.ts";
import {
  type FileLookup,
  type FileSource,
  type StaticFile,
  variantSuffixes,
} from "./static-file.ts";

const embeddedAssetsOptionNames = optionNames<EmbeddedAssetsOptions>({
  allowDotfiles: true,
  precompress: true,
  maxTotalBytes: true,
  indexFile: true,
});

/**
 * Options of `EmbeddedAssets`.
 *
 * @example
 * await EmbeddedAssets.fromFolder("./public", { precompress: false, maxTotalBytes: 8 * 1024 * 1024 });
 */
export interface EmbeddedAssetsOptions {
  /** Load names starting with `.` too. Default false: dotfiles are neither loaded nor served. */
  readonly allowDotfiles?: boolean;
  /** Make br, zstd and gzip variants of compressible assets that have none. Default true. */
  readonly precompress?: boolean;
  /** The most bytes all assets and variants may hold; more is a `RangeError`. Default 64 MiB. */
  readonly maxTotalBytes?: number;
  /** Served for a directory path ending in `/`. Default `index.html`; `null` for none. */
  readonly indexFile?: string | null;
}

/**
 * Where an asset's bytes come from: a file path (also `$bunfs` paths) or a Blob.
 *
 * @example
 * const input: AssetInput = new Blob(["<p>hello</p>"]);
 */
export type AssetInput = string | Blob;

const defaultMaxTotalBytes = 64 * 1024 * 1024;

/**
 * Static assets held in memory: read once at startup (a folder, the files `bun build --compile`
 * embedded, or named files), served with the same rules as a folder on disk but with no
 * filesystem access at request time. Bodies go out with `borrowBody` (no copy); entity-tags are
 * content hashes (SHA-256, strong); precompressed variants are made at startup when missing.
 *
 * @example
 * const assets = await EmbeddedAssets.fromFolder("./public");
 * serveStatic({ assets }).mount(app, "/");
 */
export class EmbeddedAssets implements FileSource {
  readonly #files = new Map<string, MemoryFile>();
  readonly #variants = new Map<string, MemoryFile>();
  readonly #directories = new Set<string>([""]);
  readonly #indexFile: string | undefined;
  #totalBytes = 0;
  readonly #maxTotalBytes: number;

  private constructor(options: EmbeddedAssetsOptions) {
    refuseUnknownOptions(options, embeddedAssetsOptionNames, "EmbeddedAssets");
    this.#indexFile = options.indexFile === null ? undefined : (options.indexFile ?? "index.html");
    this.#maxTotalBytes = options.maxTotalBytes ?? defaultMaxTotalBytes;
  }

  /**
   * Reads every file under `folder` (symlinks leading outside it are skipped, dotfiles too
   * unless allowed), with `name.br`, `name.zst` and `name.gz` taken as variants of `name`.
   */
  static async fromFolder(
    folder: string,
    options: EmbeddedAssetsOptions = {},
  ): Promise<EmbeddedAssets> {
    const realRoot = realpathSync(folder);
    const glob = new Bun.Glob("**/*");
    const files: Record<string, AssetInput> = {};
    for await (const name of glob.scan({
      cwd: realRoot,
      dot: options.allowDotfiles === true,
      onlyFiles: true,
      followSymlinks: true,
    })) {
      const real = realpathSync(realRoot + sep + name);
      if (!real.startsWith(realRoot + sep)) continue;
      files[name.split(sep).join("/")] = real;
    }
    return EmbeddedAssets.fromFiles(files, options);
  }

  /**
   * The files `bun build --compile` embedded (`Bun.embeddedFiles`): those given with
   * `--asset folder` keep their relative names (`folder/app.js`); with `folder`, only names under
   * it are taken, without that prefix. Outside a compiled executable there are none.
   */
  static fromBundle(folder = "", options: EmbeddedAssetsOptions = {}): Promise<EmbeddedAssets> {
    const prefix = folder === "" ? "" : `${folder.replace(/\/+$/, "")}/`;
    const files: Record<string, AssetInput> = {};
    for (const blob of Bun.embeddedFiles) {
      const name = (blob as Blob & { readonly name: string }).name;
      if (name.startsWith(prefix)) files[name.slice(prefix.length)] = blob;
    }
    return EmbeddedAssets.fromFiles(files, options);
  }

  /**
   * Named files: `{ "index.html": pagePath }`, where `pagePath` comes from
   * an import of the page with `{ type: "file" }` (a path; embedded when compiled). Each
   * name must be a canonical path (no `.`, `..`, empty segments or dotfiles unless allowed).
   */
  static async fromFiles(
    files: Readonly<Record<string, AssetInput>>,
    options: EmbeddedAssetsOptions = {},
  ): Promise<EmbeddedAssets> {
    const assets = new EmbeddedAssets(options);
    const names = Object.keys(files).sort();
    for (const name of names) {
      const checked = canonicalPath(encodeURIComponentPath(name), {
        allowDotfiles: options.allowDotfiles === true,
        windowsNames: false,
      });
      if (!checked.ok)
        throw new TypeError(
          `corral: the asset name ${JSON.stringify(name)} is not a canonical path (${checked.reason})`,
        );
      const input = files[name]!;
      const blob = typeof input === "string" ? Bun.file(input) : input;
      const bytes = new Uint8Array(await blob.arrayBuffer());
      const coding = codingOfVariant(name);
      if (coding !== undefined && Object.hasOwn(files, coding.base)) {
        assets.#add(assets.#variants, name, bytes, `-${coding.coding}`);
        continue;
      }
      assets.#add(assets.#files, name, bytes, "");
      const segments = name.split("/");
      for (let index = 1; index < segments.length; index++)
        assets.#directories.add(segments.slice(0, index).join("/"));
    }
    if (options.precompress !== false) assets.#precompressMissing();
    return assets;
  }

  /** How many bytes the assets and their variants hold. */
  get totalBytes(): number {
    return this.#totalBytes;
  }

  /** @internal */
  lookup(segments: readonly string[], trailingSlash: boolean): FileLookup {
    const name = segments.join("/");
    if (this.#directories.has(name)) {
      if (!trailingSlash) return { kind: "directory" };
      if (this.#indexFile === undefined) return missing;
      const indexName = name === "" ? this.#indexFile : `${name}/${this.#indexFile}`;
      const index = this.#files.get(indexName);
      return index === undefined ? missing : { kind: "file", file: index, name: indexName };
    }
    const file = trailingSlash ? undefined : this.#files.get(name);
    return file === undefined ? missing : { kind: "file", file, name };
  }

  /** @internal */
  variant(name: string, coding: ContentCoding): StaticFile | undefined {
    return this.#variants.get(name + variantSuffixes[coding]);
  }

  #add(table: Map<string, MemoryFile>, name: string, bytes: Uint8Array, tagSuffix: string): void {
    this.#totalBytes += bytes.length;
    if (this.#totalBytes > this.#maxTotalBytes) {
      throw new RangeError(
        `corral: embedded assets reach ${this.#totalBytes} bytes, over maxTotalBytes ${this.#maxTotalBytes}`,
      );
    }
    table.set(name, hashedFile(bytes, tagSuffix));
  }

  #precompressMissing(): void {
    for (const [name, file] of this.#files) {
      if (!isCompressibleType(contentTypeFor(name))) continue;
      for (const coding of ["br", "zstd", "gzip"] as const) {
        const variantName = name + variantSuffixes[coding];
        if (this.#variants.has(variantName)) continue;
        const compressed = precompress(file.bytes, coding);
        if (compressed !== undefined)
          this.#add(this.#variants, variantName, compressed, `-${coding}`);
      }
    }
  }
}

const missing = { kind: "missing" } as const;

/** Which variant suffix `name` has, and the name it is a variant of. */
function codingOfVariant(name: string): { coding: ContentCoding; base: string } | undefined {
  for (const coding of ["br", "zstd", "gzip"] as const) {
    const suffix = variantSuffixes[coding];
    if (name.endsWith(suffix)) return { coding, base: name.slice(0, -suffix.length) };
  }
  return undefined;
}

/** Encodes each segment so the canonicalizer sees the name as a request would send it. */
function encodeURIComponentPath(name: string): string {
  return name.split("/").map(encodeURIComponent).join("/");
}

/** An asset's bytes with a strong tag: a hash of exactly these bytes (RFC 9110 §8.8.3). */
function hashedFile(bytes: Uint8Array, tagSuffix: string): MemoryFile {
  const hash = new Bun.CryptoHasher("sha256").update(bytes).digest("base64url").slice(0, 22);
  return new MemoryFile(bytes, {
    etag: `"${hash}${tagSuffix}"`,
    lastModified: undefined,
    lastModifiedText: undefined,
  });
}
