// `bun add corral` as a new user does it, from an empty folder: pack this working tree, install
// the tarball (and a git URL) in a `bun init` project, then run, type-check and compile an app.
// Installs come from Bun's package cache or the registry `bun install` already uses.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { isBuiltin } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { RawClient } from "../../engine/test/support/raw-client.ts";
import { startExample } from "../examples/support/start-example.ts";
import { servingPids } from "../supervisor/support/serving-pids.ts";
import { type PackedCorral, packCorral } from "./support/packed-corral.ts";
import { mustRun, runCommand } from "./support/run-command.ts";
import { createUserProject } from "./support/user-project.ts";

const repositoryRoot = join(import.meta.dir, "../..");
const workspace = mkdtempSync(join(tmpdir(), "corral-package-"));
// Backstops against a hung install or build, not expectations: each step waits for its command.
const stepTimeoutMs = 180_000;
let packed: PackedCorral;
let project: string;
/** The git-URL install, built while the tests of the tarball install run; its test awaits it. */
let gitProject: Promise<string>;

beforeAll(async () => {
  packed = await packCorral(join(workspace, "corral"), workspace);
  project = await createUserProject(join(workspace, "app"), packed.tarball);
  gitProject = createUserProject(join(workspace, "git-app"), `git+file://${packed.clone}`, [
    "--trust",
  ]);
  gitProject.catch(() => {}); // a failure is reported by the test that awaits it
}, stepTimeoutMs);

afterAll(() => rmSync(workspace, { recursive: true, force: true }), stepTimeoutMs);

/** Every file under `directory`, relative to it, sorted. */
function filesUnder(directory: string): string[] {
  return readdirSync(directory, { recursive: true, encoding: "utf8" })
    .filter((name) => statSync(join(directory, name)).isFile())
    .sort();
}

/** Pipelines one request per path on one connection and returns what came back, in order. */
async function requestAll(port: number, paths: readonly string[]) {
  using client = await RawClient.connect(port);
  client.send(
    paths
      .map((path, index) => {
        const close = index === paths.length - 1 ? "Connection: close\r\n" : "";
        return `GET ${path} HTTP/1.1\r\nHost: example\r\nX-User: ada\r\n${close}\r\n`;
      })
      .join(""),
  );
  const responses = await client.responses(paths.length);
  return responses.map((response) => ({
    statusLine: response.statusLine,
    contentType: response.header("content-type"),
    text: response.text,
  }));
}

const expectedAnswers = [
  {
    statusLine: "HTTP/1.1 200 OK",
    contentType: "text/plain; charset=utf-8",
    text: "Hello ada: post 9 of user 7",
  },
  { statusLine: "HTTP/1.1 200 OK", contentType: "text/plain; charset=utf-8", text: "1\n2\n3\n" },
  {
    statusLine: "HTTP/1.1 200 OK",
    contentType: "text/html; charset=utf-8",
    text: "<h1>Hi</h1><p>&lt;b&gt;</p>",
  },
  {
    statusLine: "HTTP/1.1 200 OK",
    contentType: "text/event-stream; charset=utf-8",
    text: 'event: progress\nid: 1\ndata: {"percent":100}\n\n',
  },
  { statusLine: "HTTP/1.1 200 OK", contentType: "text/plain; charset=utf-8", text: "id-1 nosniff" },
];
const appPaths = ["/users/7/posts/9", "/count", "/page", "/progress", "/id"];

describe("bun add corral in an empty project", () => {
  test("the tarball holds the built code, declarations, README, LICENSE, CHANGELOG and docs only", async () => {
    const unpacked = join(workspace, "unpacked");
    mkdirSync(unpacked);
    await mustRun(["tar", "-xzf", packed.tarball, "-C", unpacked], workspace);
    const files = filesUnder(join(unpacked, "package"));
    const declarations = files.filter((file) => /^dist\/(src|engine)\/.+\.d\.ts$/.test(file));
    const docs = readdirSync(join(repositoryRoot, "docs")).map((name) => `docs/${name}`);
    expect({
      others: files.filter((file) => !/\.d\.ts(\.map)?$/.test(file)),
      declarationMaps: files.filter((file) => file.endsWith(".d.ts.map")),
      entryDeclarations: [
        "dist/src/index.d.ts",
        "dist/engine/index.d.ts",
        "dist/src/middleware/index.d.ts",
      ].filter((file) => declarations.includes(file)),
    }).toEqual({
      others: [
        "CHANGELOG.md",
        "LICENSE",
        "README.md",
        "dist/engine/index.js",
        "dist/src/index.js",
        "dist/src/middleware/index.js",
        "dist/src/supervisor/child-main.js",
        "dist/src/supervisor/corral-command.js",
        ...docs,
        "engine/README.md",
        "package.json",
      ].sort(),
      declarationMaps: declarations.map((file) => `${file}.map`),
      entryDeclarations: [
        "dist/src/index.d.ts",
        "dist/engine/index.d.ts",
        "dist/src/middleware/index.d.ts",
      ],
    });
    // What the App uses internally is not in the public types (nor in editors' completions).
    const publicTypes = [
      "dist/src/response-draft.d.ts",
      "dist/src/context.d.ts",
      "dist/src/request-view.d.ts",
    ]
      .map((file) => readFileSync(join(unpacked, "package", file), "utf8"))
      .join("\n");
    expect(
      [
        "finalize(",
        "discard(",
        "enteredMiddleware",
        "assertLive(",
        "releaseBody(",
        "end(): void",
      ].filter((internal) => publicTypes.includes(internal)),
    ).toEqual([]);
    const unpackedBytes = files.reduce(
      (total, file) => total + statSync(join(unpacked, "package", file)).size,
      0,
    );
    // About 1.02 MB with WebSockets (their built code about 72 KB, their docs about 15 KB), 1.21
    // MB by 27 November 2026, 1.31 MB by the 28th, 1.45 MB by the 29th (docs and measurements
    // grew); the bound catches a tarball that ships what it should not (tests, sources twice,
    // node_modules), each of which doubles it or more.
    expect(unpackedBytes).toBeLessThan(1_600_000);
  });

  test("runtime dependencies are what the built code imports; declarations name no other package", () => {
    const installed = join(project, "node_modules/corral");
    const installedPackage = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
    const files = filesUnder(join(installed, "dist"));
    const transpiler = new Bun.Transpiler({ loader: "js" });
    const codeImports = files
      .filter((file) => file.endsWith(".js"))
      .flatMap((file) =>
        transpiler.scanImports(
          // The `corral` command starts with a shebang line, which the transpiler rejects.
          readFileSync(join(installed, "dist", file), "utf8").replace(/^#!.*\n/, ""),
        ),
      )
      .map((imported) => imported.path);
    const typeImports = files
      .filter((file) => file.endsWith(".d.ts"))
      .flatMap(
        (file) =>
          ts.preProcessFile(readFileSync(join(installed, "dist", file), "utf8"), true, true)
            .importedFiles,
      )
      .map((imported) => imported.fileName);
    const packages = (specifiers: string[]) =>
      [...new Set(specifiers)]
        .filter((path) => !path.startsWith(".") && !isBuiltin(path) && !/^bun(:|$)/.test(path))
        .sort();
    expect({
      dependencies: Object.keys(installedPackage.dependencies).sort(),
      codeImports: packages(codeImports),
      typeImports: packages(typeImports),
    }).toEqual({
      dependencies: ["mustache"],
      codeImports: ["mustache"],
      typeImports: ["corral", "corral/engine"],
    });
  });

  test("the app runs on the installed package and answers over a real socket", async () => {
    await using app = await startExample("user app", ["bun", "app.ts"], { cwd: project });
    expect(await requestAll(app.port, appPaths)).toEqual(expectedAnswers);
  });

  test("the installed corral command serves an App on 2 processes behind one port", async () => {
    writeFileSync(
      join(project, "group-app.ts"),
      'import { App } from "corral";\n' +
        "export default () =>\n" +
        '  new App({ shared: {} }).route("GET", "/pid", (ctx) => ctx.response.text(200, String(process.pid)));\n',
    );
    await using group = await startExample(
      "corral command",
      [
        join(project, "node_modules/.bin/corral"),
        "group-app.ts",
        "--port",
        "0",
        "--processes",
        "2",
      ],
      { cwd: project },
    );
    expect(group.startupOutput).toContain("in total, 2 processes x (reserved");
    expect((await servingPids(group.port, [], 100)).length).toBe(2);
  });

  test(
    "the user's strict tsc passes under TypeScript 5.9 and under the one bun init installs",
    async () => {
      const compilers = [
        ["bun", join(repositoryRoot, "node_modules/typescript/bin/tsc")],
        [join(project, "node_modules/.bin/tsc")],
      ];
      const results = [];
      for (const compiler of compilers) {
        const version = (await mustRun([...compiler, "--version"], project)).trim();
        const check = await runCommand([...compiler, "--noEmit", "-p", "."], project);
        results.push({ version, exitCode: check.exitCode, output: check.stdout + check.stderr });
      }
      expect(results[0]!.version).toStartWith("Version 5.9.");
      expect(results.map(({ exitCode, output }) => ({ exitCode, output }))).toEqual([
        { exitCode: 0, output: "" },
        { exitCode: 0, output: "" },
      ]);
    },
    stepTimeoutMs,
  );

  test(
    "bun build --compile makes one executable that runs from an empty folder",
    async () => {
      const binaries = join(workspace, "bin");
      const elsewhere = join(workspace, "elsewhere");
      mkdirSync(elsewhere);
      await mustRun(
        ["bun", "build", "--compile", "app.ts", "--outfile", join(binaries, "user-app")],
        project,
      );
      expect(readdirSync(binaries)).toEqual(["user-app"]);
      await using app = await startExample("compiled user app", [join(binaries, "user-app")], {
        cwd: elsewhere,
      });
      expect(await requestAll(app.port, appPaths)).toEqual(expectedAnswers);
    },
    stepTimeoutMs,
  );

  test(
    "bun add --trust from a git URL builds the package; the app runs and type-checks",
    async () => {
      const directory = await gitProject;
      await using app = await startExample("git-installed user app", ["bun", "app.ts"], {
        cwd: directory,
      });
      expect(await requestAll(app.port, appPaths)).toEqual(expectedAnswers);
      const check = await runCommand(
        [join(directory, "node_modules/.bin/tsc"), "--noEmit", "-p", "."],
        directory,
      );
      expect({ exitCode: check.exitCode, output: check.stdout + check.stderr }).toEqual({
        exitCode: 0,
        output: "",
      });
    },
    stepTimeoutMs,
  );
});
