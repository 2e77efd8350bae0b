/** Descriptions in this language; keys missing here fall back to English. */
export const es: Partial<Record<string, string>> = {};
