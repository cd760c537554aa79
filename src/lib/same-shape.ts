/**
 * `Same<A, B>` is `true` only when A and B are each assignable to the other: a zod schema kept
 * next to a hand-written type (`const sameShape: Same<z.output<typeof S>, T> = true;`) then fails
 * to compile as soon as the two drift apart.
 */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
