// The compress scenario's baseline: the App answering 16 KiB of JSON as it is.
import { serveJson } from "./json-app.ts";

serveJson(false);
