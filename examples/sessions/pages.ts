// The example's two HTML pages. Text from outside (a username) goes in through Bun.escapeHTML,
// which replaces & < > " and ' with character references.

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${title}</title></head>
<body>
<h1>${title}</h1>
${body}
</body>
</html>
`;
}

/** The login form, with `message` (an error, say) above it when given. */
export function loginPage(message?: string): string {
  const notice = message === undefined ? "" : `<p role="alert">${Bun.escapeHTML(message)}</p>\n`;
  return page(
    "Sign in",
    `${notice}<form method="post" action="/login">
<label>Username <input name="username" autocomplete="username" required></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button>
</form>`,
  );
}

/** The protected page: who is signed in, for how much longer, and a logout button. */
export function accountPage(username: string, remainingSeconds: number): string {
  return page(
    "Your account",
    `<p>Signed in as <strong>${Bun.escapeHTML(username)}</strong>.</p>
<p>This session ends in ${remainingSeconds} s, however busy you are: it is never extended.</p>
<form method="post" action="/logout"><button type="submit">Sign out</button></form>`,
  );
}
