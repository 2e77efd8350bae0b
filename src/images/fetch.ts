import type { ImageFetchConfig } from '../config.js';
import { fetchOutbound, OutboundRefusal } from '../net/outbound-fetch.js';
import { ACCEPTED_IMAGE_TYPES, imageFactsOf, type ImageFacts } from './facts.js';

/** Why an image URL was refused: the text completes "image: …" in the error a client gets. */
export class ImageFetchError extends Error {}

/**
 * Downloads the image at `url` (http or https) and answers its facts, read from its bytes. Refused, with the reason:
 * a host that is (or resolves to, at any hop) an address other than public unicast unless IMAGE_FETCH_ALLOW_PRIVATE
 * (or OUTBOUND_ALLOW_PRIVATE) allows it; more than 5 redirects; an answer other than 200; a body larger than
 * IMAGE_FETCH_MAX_BYTES; the whole exchange taking longer than IMAGE_FETCH_TIMEOUT_MS (src/net/outbound-fetch.ts);
 * bytes that are no image of an accepted type.
 */
export async function fetchImageFacts(url: string, config: ImageFetchConfig): Promise<ImageFacts> {
  const request = { ...config, headers: { accept: 'image/*' } };
  try {
    return await fetchOutbound(url, request, async (answer) => {
      if (answer.status !== 200)
        throw new ImageFetchError(`could not be fetched: the server answered ${answer.status}`);
      const facts = imageFactsOf(await answer.body());
      if (!facts) throw new ImageFetchError(`is not an image (${ACCEPTED_IMAGE_TYPES})`);
      return facts;
    });
  } catch (error) {
    if (error instanceof OutboundRefusal) throw new ImageFetchError(error.message);
    throw error;
  }
}
