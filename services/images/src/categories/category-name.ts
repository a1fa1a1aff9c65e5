import { z } from 'zod';

/** A category name, from the API or the admin CLI alike: 1-64 characters after trimming. */
export const categoryNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(64)
  // Cs matches only lone surrogates, which would be stored as U+FFFD, unlike what the client sent.
  .refine((name) => !/[\p{Cc}\p{Cs}]/u.test(name));
