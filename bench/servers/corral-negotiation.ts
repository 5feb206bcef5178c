// The negotiation example App (examples/negotiation): GET /greeting as JSON, HTML or text by the
// `Accept` header, parsed by corral's linear `negotiate`.
import { createNegotiationApp } from "../../examples/negotiation/negotiation-app.ts";
import { serveBenchApp } from "./serve-app.ts";

serveBenchApp(createNegotiationApp());
