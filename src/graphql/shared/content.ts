import { formattedContent } from '../../content/paragraphs.js';
import { builder } from '../builder.js';

export const ContentFormatEnum = builder.enumType('ContentFormat', {
  description: 'How a description or excerpt is returned.',
  values: {
    RENDERED: {
      description:
        'Formatted as WordPress shows it (`wpautop`: paragraphs in `<p>`, single newlines as `<br />`), as REST returns it.',
    },
    RAW: { description: 'As stored: the HTML the writer sent, after the sanitizer.' },
  } as const,
});

/** The `format` argument of description and excerpt fields. */
export const contentArgs = builder.args((t) => ({
  format: t.field({
    type: ContentFormatEnum,
    defaultValue: 'RENDERED',
    required: true,
    description: 'RENDERED (the default) or RAW.',
  }),
}));

export function shownContent(stored: string, format: 'RENDERED' | 'RAW'): string {
  return format === 'RAW' ? stored : formattedContent(stored);
}
