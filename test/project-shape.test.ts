import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import rootPackage from "../package.json";

const root = join(import.meta.dir, "..");

/** Every import specifier of every TypeScript file under `folder` (type-only imports too). */
function importsUnder(
  folder: string,
): Array<{ readonly file: string; readonly specifier: string }> {
  return readdirSync(join(root, folder), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .flatMap((name) => {
      const file = join(root, folder, name);
      const text = readFileSync(file, "utf8");
      return ts
        .preProcessFile(text, true, true)
        .importedFiles.map((imported) => ({ file, specifier: imported.fileName }));
    });
}

/** Where a relative specifier points, relative to the repository root. */
function target(file: string, specifier: string): string {
  return relative(root, resolve(dirname(file), specifier));
}

describe("project shape", () => {
  test("one package: the App, its middleware and the engine, with no dependency on a corral package", () => {
    expect({
      name: rootPackage.name,
      dependencies: rootPackage.dependencies,
      workspaces: "workspaces" in rootPackage,
      exports: rootPackage.exports,
    }).toEqual({
      name: "corral",
      dependencies: { mustache: "4.2.0" },
      workspaces: false,
      exports: {
        ".": { types: "./dist/src/index.d.ts", import: "./dist/src/index.js" },
        "./middleware": {
          types: "./dist/src/middleware/index.d.ts",
          import: "./dist/src/middleware/index.js",
        },
        "./engine": { types: "./dist/engine/index.d.ts", import: "./dist/engine/index.js" },
        "./package.json": "./package.json",
      },
    });
    expect(rootPackage.scripts.prepack).toBe("bun run build");
  });

  test("Bun 1.4.4 is the declared runtime", () => {
    expect(rootPackage.packageManager).toBe("bun@1.4.4");
    expect(rootPackage.engines.bun).toBe(">=1.4.4");
  });

  test("the engine never imports src/ or the App", () => {
    const outside = importsUnder("engine").filter(({ file, specifier }) =>
      specifier.startsWith(".")
        ? !target(file, specifier).startsWith("engine/")
        : specifier === "corral" || specifier.startsWith("corral-"),
    );
    expect(outside).toEqual([]);
  });

  test("src/ reaches the engine only through corral/engine", () => {
    // corral/middleware is built on the App's public entry ("corral"), as a user's would be.
    const publicEntry = (file: string, specifier: string) =>
      specifier === "corral" && relative(root, file).startsWith("src/middleware/");
    const intoEngine = importsUnder("src").filter(({ file, specifier }) =>
      specifier.startsWith(".")
        ? !target(file, specifier).startsWith("src/")
        : specifier.startsWith("corral") &&
          specifier !== "corral/engine" &&
          !publicEntry(file, specifier),
    );
    expect(intoEngine).toEqual([]);
  });

  test("corral/middleware uses only the App's public entry", () => {
    const internal = importsUnder("src/middleware").filter(({ file, specifier }) =>
      specifier.startsWith(".")
        ? !target(file, specifier).startsWith("src/middleware/")
        : specifier.startsWith("corral") && specifier !== "corral",
    );
    expect(internal).toEqual([]);
  });

  test("no file of the engine's source is over 400 lines, connection.ts well under 500", () => {
    const lines = (file: string) => readFileSync(file, "utf8").split("\n").length - 1;
    const source = join(root, "engine", "src");
    const over = readdirSync(source, { recursive: true, encoding: "utf8" })
      .filter((name) => name.endsWith(".ts"))
      .map((name) => ({ name, lines: lines(join(source, name)) }))
      .filter((file) => file.lines > 400);
    expect(over).toEqual([]);
    expect(lines(join(source, "internal", "connection.ts"))).toBeLessThanOrEqual(400);
  });
});
