import type { Translate } from './i18n';

/** The name the service gives every user's default category (services/images/src/users/user-admin.ts). */
const SERVICE_DEFAULT_NAME = '默认分类';

/** A category's name to show: the default one, while it keeps the service's name, in the app's language. */
export function categoryName(category: { name: string; is_default: boolean }, t: Translate): string {
  return category.is_default && category.name === SERVICE_DEFAULT_NAME ? t('defaultCategoryName') : category.name;
}
