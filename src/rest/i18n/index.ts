import type { Language } from '../request.js';
import { de } from './de.js';
import { en } from './en.js';
import { es } from './es.js';
import { fr } from './fr.js';

export type MessageKey = keyof typeof en;

const CATALOGUES: Record<Language, Partial<Record<string, string>>> = { en, de, fr, es };

/** A parameter description in the request's language, English where a translation is missing. */
export function describe(key: string, language: Language): string {
  return CATALOGUES[language][key] ?? (en as Record<string, string>)[key] ?? key;
}
