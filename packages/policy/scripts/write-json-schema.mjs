// Writes policy.schema.json from the built zod schema (run by `npm run build` after tsc).
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { policyJsonSchemaText } from "../dist/json-schema.js";

const target = fileURLToPath(new URL("../policy.schema.json", import.meta.url));
writeFileSync(target, policyJsonSchemaText());
console.log(`wrote ${target}`);
