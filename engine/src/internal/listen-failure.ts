/**
 * The error for a port the engine could not listen on: Bun's says only "Failed to listen at
 * 127.0.0.1", with the reason in its `code`. This one names the address, the port and the
 * reason, and keeps Bun's as its `cause` (and its `code`, for callers that test it).
 */
export function listenFailure(error: unknown, hostname: string, port: number): Error {
  const code = (error as { code?: unknown } | null)?.code;
  const reason = typeof code === "string" ? (reasons[code] ?? code) : String(error);
  const failure = new Error(`corral: cannot listen on ${hostname}:${port}: ${reason}`, {
    cause: error,
  });
  if (typeof code === "string") Object.assign(failure, { code });
  return failure;
}

const reasons: Readonly<Record<string, string>> = {
  EADDRINUSE: "the address is in use (EADDRINUSE): another process listens there",
  EACCES: "permission denied (EACCES): ports below 1024 need privileges",
  EADDRNOTAVAIL: "the address is not one of this machine's (EADDRNOTAVAIL)",
};
