// The page's script, embedded as text (`with { type: "text" }`): it runs in the browser, not
// here, so it is not type-checked with the server's code.
declare module "*/page.js" {
  const text: string;
  export default text;
}
