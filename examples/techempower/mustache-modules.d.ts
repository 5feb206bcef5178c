// `import page from "./page.mustache" with { type: "text" }` gives the file's text, embedded by
// `bun build --compile`.
declare module "*.mustache" {
  const source: string;
  export default source;
}
