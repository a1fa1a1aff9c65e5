import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signs image ids into the public links that carry no token: the thumbnail URL (`thumb:<id>`) and
 * the deletion link (`delete:<id>:<nonce>`). A signature for one purpose is worthless for the other,
 * and nobody can walk the ids of other users' images. The deletion link also signs the image's
 * deletion nonce, which a restore replaces, so a link that binned the image once cannot bin it again.
 */
/**
 * A list page signs twenty: the latest signatures are kept rather than computed again (an HMAC was
 * a tenth of a list request's CPU). About 100 bytes each.
 */
const MAX_CACHED_SIGNATURES = 50_000;

export function createLinkSigner(secret: string) {
  const hmac = (message: string): string => createHmac('sha256', secret).update(message).digest('base64url').slice(0, 32);
  const matches = (given: string, expected: string): boolean => {
    const givenBytes = Buffer.from(given);
    const expectedBytes = Buffer.from(expected);
    return givenBytes.length === expectedBytes.length && timingSafeEqual(givenBytes, expectedBytes);
  };

  const thumbSignatures = new Map<number, string>();
  const thumb = {
    sign(imageId: number): string {
      let signature = thumbSignatures.get(imageId);
      if (signature === undefined) {
        signature = hmac(`thumb:${imageId}`);
        if (thumbSignatures.size >= MAX_CACHED_SIGNATURES) thumbSignatures.clear();
        thumbSignatures.set(imageId, signature);
      }
      return signature;
    },
    verify(imageId: number, signature: string): boolean {
      return matches(signature, thumb.sign(imageId));
    },
  };

  // Each signature is kept with the nonce it signed: after a restore the image's new nonce misses it.
  const deletionSignatures = new Map<number, { nonce: string | null; signature: string }>();
  const deletion = {
    /** A null nonce (an image from before nonces were kept) signs `delete:<id>`, as its links always were, until a restore gives it one. */
    sign(imageId: number, nonce: string | null): string {
      const cached = deletionSignatures.get(imageId);
      if (cached !== undefined && cached.nonce === nonce) return cached.signature;
      const signature = hmac(nonce === null ? `delete:${imageId}` : `delete:${imageId}:${nonce}`);
      if (deletionSignatures.size >= MAX_CACHED_SIGNATURES) deletionSignatures.clear();
      deletionSignatures.set(imageId, { nonce, signature });
      return signature;
    },
    verify(imageId: number, nonce: string | null, signature: string): boolean {
      return matches(signature, deletion.sign(imageId, nonce));
    },
  };

  /**
   * A binned image's thumbnail, for its owner's bin list: signed with the time it was binned, so the
   * link dies with a restore (the public thumbnail answers again) or a purge, and never opens another
   * binning of the same image. Not cached: bin pages are rare.
   */
  const binThumb = {
    sign(imageId: number, deletedAt: Date): string {
      return hmac(`bin-thumb:${imageId}:${deletedAt.getTime()}`);
    },
    verify(imageId: number, deletedAt: Date, signature: string): boolean {
      return matches(signature, binThumb.sign(imageId, deletedAt));
    },
  };

  /** An image's public page (`/p/<id>-<sig>`): the page answers only while the owner has it turned on. */
  const page = {
    sign(imageId: number): string {
      return hmac(`page:${imageId}`).slice(0, 22);
    },
    verify(imageId: number, signature: string): boolean {
      return matches(signature, page.sign(imageId));
    },
  };

  return { thumb, deletion, binThumb, page };
}

export type LinkSigner = ReturnType<typeof createLinkSigner>;
