// The demo App (examples/demo) with its default limits: 64 workers, 1024 connections, 1 MiB
// bodies, 1000 form entries. GET /hello[?name=], POST /form, POST /upload.
import { createDemoApp } from "../../examples/demo/demo-app.ts";
import { serveBenchApp } from "./serve-app.ts";

serveBenchApp(createDemoApp());
