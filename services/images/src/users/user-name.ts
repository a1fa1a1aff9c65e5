const USER_NAME = /^[\p{L}\p{N}_.@-]{1,64}$/u;

/** 1-64 letters, digits or _.@- (checked on the name as given, surrounding spaces removed). */
export function isValidUserName(name: string): boolean {
  return USER_NAME.test(name);
}

/**
 * What makes two user names the same name: case, surrounding spaces and Unicode compatibility forms
 * (NFKC: full-width `ａｌｉｃｅ` is `alice`) do not count. Names are unique by it (users.name_key), and
 * sign-in, the CLI and the sign-in limiter's per-account counter all find a user by it, so `ALICE`
 * is alice, never another account beside her.
 */
export function userNameKey(name: string): string {
  return name.normalize('NFKC').trim().toLowerCase().normalize('NFKC');
}
