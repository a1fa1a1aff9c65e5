const EDITOR_NAME = /^[\p{L}\p{N}_.@-]{1,64}$/u;

/** 1-64 letters, digits or _.@- (checked on the name as given, surrounding spaces removed). */
export function isValidEditorName(name: string): boolean {
  return EDITOR_NAME.test(name.trim());
}

/**
 * What makes two editor names the same: case, surrounding spaces and Unicode compatibility forms (NFKC:
 * full-width `ａｌｉｃｅ` is `alice`) do not count. Names are unique by it (editors.name_key); sign-in, the
 * CLI and the per-account sign-in counter all find an editor by it.
 */
export function editorNameKey(name: string): string {
  return name.normalize('NFKC').trim().toLowerCase().normalize('NFKC');
}
