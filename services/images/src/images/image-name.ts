import { AppError } from '../errors/app-error';

/** The longest displayed name, in characters (the column's limit; uploads are cut to it too). */
export const IMAGE_NAME_MAX = 255;

/**
 * A new displayed name for an image (rename): trimmed, 1-255 characters, no control characters
 * (a tab or newline would break the Markdown/HTML links built from it; a lone surrogate would be
 * stored as U+FFFD, unlike what was sent). Each refusal says which rule the name broke.
 */
export function parseImageName(value: unknown): string {
  if (value === undefined || value === null) throw new AppError('imageNameEmpty', 200);
  if (typeof value !== 'string') throw new AppError('badParameter', 200);
  const name = value.trim();
  if (name === '') throw new AppError('imageNameEmpty', 200);
  if (/[\p{Cc}\p{Cs}]/u.test(name)) throw new AppError('imageNameInvalid', 200);
  if (Array.from(name).length > IMAGE_NAME_MAX) throw new AppError('imageNameTooLong', 200);
  return name;
}
