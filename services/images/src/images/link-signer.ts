import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signs image ids into the public links that carry no token: the thumbnail URL (`thumb:<id>`) and
 * the deletion link (`delete:<id>`). A signature for one purpose is worthless for the other, and
 * nobody can walk the ids of other users' images.
 */
/**
 * A signature depends on the id alone, and a list page signs twenty: the latest ones are kept rather
 * than computed again (an HMAC was a tenth of a list request's CPU). About 100 bytes each.
 */
const MAX_CACHED_SIGNATURES = 50_000;

export function createLinkSigner(secret: string) {
  const signer = (purpose: 'thumb' | 'delete') => {
    const signatures = new Map<number, string>();
    const sign = (imageId: number): string => {
      let signature = signatures.get(imageId);
      if (signature === undefined) {
        signature = createHmac('sha256', secret).update(`${purpose}:${imageId}`).digest('base64url').slice(0, 32);
        if (signatures.size >= MAX_CACHED_SIGNATURES) signatures.clear();
        signatures.set(imageId, signature);
      }
      return signature;
    };
    return {
      sign,
      verify(imageId: number, signature: string): boolean {
        const expected = Buffer.from(sign(imageId));
        const given = Buffer.from(signature);
        return given.length === expected.length && timingSafeEqual(given, expected);
      },
    };
  };
  return { thumb: signer('thumb'), deletion: signer('delete') };
}

export type LinkSigner = ReturnType<typeof createLinkSigner>;
