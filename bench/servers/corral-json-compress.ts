// The compress scenario: the same App with compress() (zstd, br or gzip per Accept-Encoding).
import { serveJson } from "./json-app.ts";

serveJson(true);
