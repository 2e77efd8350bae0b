import { imageSize } from 'image-size';

/** What the service knows of an image from its bytes. */
export interface ImageFacts {
  mimeType: string;
  width: number;
  height: number;
  filesize: number;
}

/**
 * The image types accepted, as image-size names them, with their MIME type and file extensions (the first is the
 * usual one): WordPress's default image MIME types. SVG is not among them (it can carry scripts), as in WordPress.
 */
const IMAGE_TYPES: Record<string, { mimeType: string; extensions: string[] }> = {
  jpg: { mimeType: 'image/jpeg', extensions: ['jpg', 'jpeg', 'jpe'] },
  png: { mimeType: 'image/png', extensions: ['png'] },
  gif: { mimeType: 'image/gif', extensions: ['gif'] },
  webp: { mimeType: 'image/webp', extensions: ['webp'] },
  avif: { mimeType: 'image/avif', extensions: ['avif'] },
  heic: { mimeType: 'image/heic', extensions: ['heic'] },
  bmp: { mimeType: 'image/bmp', extensions: ['bmp'] },
  tiff: { mimeType: 'image/tiff', extensions: ['tif', 'tiff'] },
  ico: { mimeType: 'image/x-icon', extensions: ['ico'] },
};

export const ACCEPTED_IMAGE_TYPES = 'JPEG, PNG, GIF, WebP, AVIF, HEIC, BMP, TIFF or ICO';

/** The facts of an image of an accepted type, or null for anything else (text, SVG, a broken or truncated image). */
export function imageFactsOf(bytes: Uint8Array): ImageFacts | null {
  try {
    const size = imageSize(bytes);
    const known = size.type ? IMAGE_TYPES[size.type] : undefined;
    if (!known || !(size.width > 0) || !(size.height > 0)) return null;
    return { mimeType: known.mimeType, width: size.width, height: size.height, filesize: bytes.byteLength };
  } catch {
    return null;
  }
}

/** The MIME type files with this extension have (`JPG` → `image/jpeg`), or null for another extension. */
export function mimeTypeOfExtension(extension: string): string | null {
  const lower = extension.toLowerCase();
  return Object.values(IMAGE_TYPES).find((type) => type.extensions.includes(lower))?.mimeType ?? null;
}

/**
 * The extension the image object shows: the URL's own when it fits the image's type (`photo.JPEG` → `jpeg`), else the
 * type's usual one (`/image?id=3` of a PNG → `png`), as WordPress names a downloaded file; without a known type, the
 * URL's (or empty).
 */
export function extensionOf(url: string, mimeType: string | null): string {
  const fromUrl = /\.([A-Za-z0-9]{1,5})$/.exec(new URL(url).pathname)?.[1]?.toLowerCase() ?? '';
  const type = mimeType ? Object.values(IMAGE_TYPES).find((candidate) => candidate.mimeType === mimeType) : undefined;
  if (!type || type.extensions.includes(fromUrl)) return fromUrl;
  return type.extensions[0]!;
}
