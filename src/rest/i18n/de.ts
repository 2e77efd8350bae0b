/** Descriptions in this language; keys missing here fall back to English. */
export const de: Partial<Record<string, string>> = {};
