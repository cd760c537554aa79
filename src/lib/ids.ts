/**
 * Ids of stored things: a short kind prefix and `hexChars` random hex digits (from a UUIDv4, so
 * 20 digits carry 77 random bits). The prefix says what an id names in logs and support mail.
 */
export const prefixedId = (prefix: string, hexChars = 20): string => `${prefix}${crypto.randomUUID().replace(/-/g, "").slice(0, hexChars)}`;
