/**
 * Karenina's rubric merge: the benchmark's global rubric plus the question's own, one trait list
 * per kind, a name defined twice refused, and where each trait came from recorded.
 * Dynamic traits are kept apart: they join the rubric only after the presence check.
 */
import { RUBRIC_LISTS, type DynamicRubric, type Rubric, type RubricList } from "../schemas/rubric";
import type { Provenance } from "./types";

export type TraitLists = Pick<Rubric, RubricList>;

export interface MergedRubric {
  rubric: TraitLists;
  dynamic: TraitLists | null;
  provenance: Record<string, Provenance>;
}

export class RubricMergeError extends Error {}

export function emptyLists(): TraitLists {
  return Object.fromEntries(RUBRIC_LISTS.map((k) => [k, []])) as unknown as TraitLists;
}

function addAll(into: TraitLists, from: TraitLists, source: Provenance, provenance: Record<string, Provenance>): void {
  for (const kind of RUBRIC_LISTS) {
    for (const trait of from[kind]) {
      const before = provenance[trait.name];
      if (before)
        throw new RubricMergeError(`trait "${trait.name}" is defined twice (${before} and ${source}); trait names must be unique`);
      provenance[trait.name] = source;
      (into[kind] as { name: string }[]).push(trait);
    }
  }
}

/** Throws RubricMergeError on a duplicate name (Karenina raises ValueError). */
export function mergeRubrics(global: Rubric | null | undefined, question: Rubric | null | undefined): MergedRubric {
  const rubric = emptyLists();
  const provenance: Record<string, Provenance> = {};
  if (global) addAll(rubric, global, "global", provenance);
  if (question) addAll(rubric, question, "question_specific", provenance);
  const dynamicParts = [global?.dynamic, question?.dynamic].filter((d): d is DynamicRubric => !!d);
  let dynamic: TraitLists | null = null;
  if (dynamicParts.length) {
    dynamic = emptyLists();
    const seen: Record<string, Provenance> = { ...provenance };
    for (const d of dynamicParts) addAll(dynamic, d, "dynamic", seen);
  }
  return { rubric, dynamic, provenance };
}

export function traitCount(lists: TraitLists | null): number {
  return lists ? RUBRIC_LISTS.reduce((n, k) => n + lists[k].length, 0) : 0;
}

/** Keeps only the named traits (`rubric_trait_names`); null keeps everything. */
export function filterTraits(lists: TraitLists, names: readonly string[] | null | undefined): TraitLists {
  if (!names) return lists;
  const keep = new Set(names);
  return Object.fromEntries(
    RUBRIC_LISTS.map((k) => [k, (lists[k] as { name: string }[]).filter((t) => keep.has(t.name))]),
  ) as unknown as TraitLists;
}

export function namesOf(lists: TraitLists): string[] {
  return RUBRIC_LISTS.flatMap((k) => (lists[k] as { name: string }[]).map((t) => t.name));
}
