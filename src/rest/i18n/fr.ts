/** Descriptions in this language; keys missing here fall back to English. */
export const fr: Partial<Record<string, string>> = {};
