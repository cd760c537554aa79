/**
 * Something a request was accepted with but its sender should know, at its field (`path` as in a
 * 400's issues): a run's Karenina option not applied, a secret a dry run found missing, a key issued
 * to a disabled tenant. One shape for every `warnings` list the API answers.
 */
import { z } from "zod";

export const FieldWarning = z.strictObject({ path: z.string(), message: z.string() });
export type FieldWarning = z.infer<typeof FieldWarning>;
