// The password rules and scrypt hashing live in the kit: the directory's editors sign in with the same.
export { hashPassword, isAcceptablePassword, needsRehash, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, verifyPassword } from '@platform/kit';
