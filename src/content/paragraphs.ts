import { autop } from '@wordpress/autop';
import { LRUCache } from 'lru-cache';

/**
 * Stored content as WordPress shows it (`the_content`, `the_excerpt`): `wpautop` wraps blank-line-separated
 * paragraphs in `<p>`, turns single newlines into `<br />` and leaves block elements alone; the result is trimmed, as
 * The Events Calendar's REST API trims it. Lists show the same descriptions again and again, so formatted texts are
 * remembered (bounded by their size).
 */
const formatted = new LRUCache<string, string>({
  maxSize: 8 * 1024 * 1024,
  sizeCalculation: (value, key) => value.length + key.length,
});

export function formattedContent(stored: string): string {
  if (stored.trim() === '') return '';
  let result = formatted.get(stored);
  if (result === undefined) {
    result = autop(stored).trim();
    formatted.set(stored, result);
  }
  return result;
}
