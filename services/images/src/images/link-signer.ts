import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signs image ids into the public links that carry no token: the thumbnail URL (`thumb:<id>`) and
 * the deletion link (`delete:<id>`). A signature for one purpose is worthless for the other, and
 * nobody can walk the ids of other users' images.
 */
export function createLinkSigner(secret: string) {
  const signer = (purpose: 'thumb' | 'delete') => {
    const sign = (imageId: number): string => createHmac('sha256', secret).update(`${purpose}:${imageId}`).digest('base64url').slice(0, 32);
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
