/** What /v1 promises (also in the README, "API versioning"). */
export const VERSIONING_POLICY = `## Versioning

Everything under \`/v1\` keeps working for clients written against this document. Within /v1 a release may add
operations, optional request fields, response fields, enum values and error codes; it never removes or renames a
path, field or enum value, never makes an optional request field required, and never changes a field's type or
meaning. Clients must therefore ignore response fields they do not know (this document lists every field the
server sends today, so a strict validator of it is right for this release only). A change that breaks this goes
to \`/v2\`, served beside /v1 for at least six months; /v1 responses then carry \`Deprecation\` and \`Sunset\` headers.
\`info.version\` is edgeval's version; the document at \`/openapi.json\` always describes the deployment serving it.`;
