import { expect, test } from "bun:test";
import { RawClient } from "./support/raw-client.ts";
import { echoHandler, startServer } from "./support/test-server.ts";

test("empty lines before a request line are skipped: the method and HEAD are still right", async () => {
  await using server = startServer(echoHandler);
  using client = await RawClient.connect(server.port);
  client.send("\r\n\r\nHEAD /x HTTP/1.1\r\nHost: h\r\n\r\n\r\nGET /y HTTP/1.1\r\nHost: h\r\n\r\n");
  await client.waitFor(() => client.receivedText.includes("path=/y"), "the GET answer");
  const text = client.receivedText;
  const [headAnswer, getAnswer] = text.split(/(?=HTTP\/1\.1 200 OK)/);
  expect(headAnswer!.endsWith("\r\n\r\n")).toBe(true);
  expect(getAnswer!.endsWith("\r\n\r\nGET /y 1.1\npath=/y query=\nheaders=Host=h\nbody=")).toBe(
    true,
  );
});
