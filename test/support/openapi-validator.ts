/** Ajv (JSON Schema 2020-12) over an OpenAPI document's components, so `#/components/schemas/X` refs resolve. */
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

type Json = Record<string, any>;

/** `check("#/components/schemas/RunStatus", value)` → the problems found ([] when it fits). */
export function documentValidator(document: Json): (schemaRef: string, value: unknown) => string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: "edgeval", components: document.components }, "edgeval");
  return (schemaRef, value) => {
    const validate = ajv.getSchema(`edgeval${schemaRef}`);
    if (!validate) throw new Error(`no schema ${schemaRef} in the document`);
    return validate(value)
      ? []
      : (validate.errors ?? []).map((e) => `${e.instancePath || "(root)"} ${e.message} ${JSON.stringify(e.params)}`);
  };
}
