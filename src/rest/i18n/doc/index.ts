import type { Language } from '../index.js';
import { docDe } from './de.js';
import { docEn, type DocKey } from './en.js';
import { docEs } from './es.js';
import { docFr } from './fr.js';

export type { DocKey };

/** The /doc texts per language; each translation must have every key (checked by the compiler and a test). */
export const DOC_CATALOGUES: Record<Language, Record<DocKey, string>> = { en: docEn, de: docDe, fr: docFr, es: docEs };

export function isDocKey(key: string): key is DocKey {
  return Object.hasOwn(docEn, key);
}

/** A /doc text in the request's language. */
export function docText(key: DocKey, language: Language): string {
  return DOC_CATALOGUES[language][key] ?? docEn[key];
}
