import { createHmac, timingSafeEqual } from 'node:crypto';

/** Signs image ids so public thumbnail URLs cannot be enumerated by walking ids. */
export function createThumbSigner(secret: string) {
  const sign = (imageId: number): string =>
    createHmac('sha256', secret).update(`thumb:${imageId}`).digest('base64url').slice(0, 32);

  return {
    sign,
    verify(imageId: number, signature: string): boolean {
      const expected = Buffer.from(sign(imageId));
      const given = Buffer.from(signature);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}

export type ThumbSigner = ReturnType<typeof createThumbSigner>;
