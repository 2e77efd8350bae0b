import { de } from './de.js';
import { en } from './en.js';
import { es } from './es.js';
import { fr } from './fr.js';

// The languages the REST API answers in, and its parameter descriptions in each.

/** The languages the REST API answers in (a `/{lang}/` segment of the URL; English otherwise). */
export const LANGUAGES = ['en', 'de', 'fr', 'es'] as const;
export type Language = (typeof LANGUAGES)[number];

export type MessageKey = keyof typeof en;

const CATALOGUES: Record<Language, Partial<Record<string, string>>> = { en, de, fr, es };

/** A parameter description in the request's language, English where a translation is missing. */
export function describe(key: string, language: Language): string {
  return CATALOGUES[language][key] ?? (en as Record<string, string>)[key] ?? key;
}
